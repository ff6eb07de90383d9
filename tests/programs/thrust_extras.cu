// tests/programs/thrust_extras.cu: the rest of what a learner finds in
// Thrust's and CUB's examples, beyond thrust_algorithms: for_each, tabulate,
// gather/scatter, inner_product, adjacent_difference, reduce_by_key,
// vectorised lower/upper_bound, stable_partition, remove_if, replace, count,
// set_union/set_intersection/merge of sorted runs with repeats, equal,
// stable_sort_by_key of floats descending; CUB's DeviceHistogram::
// HistogramEven, DeviceRunLengthEncode::Encode and DeviceSegmentedReduce::Sum.
// 50,000 elements (several tiles of each algorithm), each result compared
// with the same computation by the C++ standard library on the host.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/for_each.h>
#include <thrust/tabulate.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>
#include <thrust/inner_product.h>
#include <thrust/adjacent_difference.h>
#include <thrust/reduce.h>
#include <thrust/binary_search.h>
#include <thrust/partition.h>
#include <thrust/remove.h>
#include <thrust/replace.h>
#include <thrust/count.h>
#include <thrust/set_operations.h>
#include <thrust/merge.h>
#include <thrust/equal.h>
#include <thrust/sort.h>
#include <thrust/sequence.h>
#include <cub/cub.cuh>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

struct AddOne {
    __host__ __device__ void operator()(int &x) const { x += 1; }
};
struct SquareMod {
    int n;
    __host__ __device__ int operator()(int i) const { return (int)((long long)i * i % n); }
};
struct Negative {
    __host__ __device__ bool operator()(int x) const { return x < 0; }
};

static unsigned next_rand(unsigned *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

static bool report(const char *what, bool ok) {
    printf("%-32s %s\n", what, ok ? "ok" : "WRONG");
    return ok;
}

template <typename T> static bool same(const thrust::device_vector<T> &d, const std::vector<T> &h, size_t n) {
    thrust::host_vector<T> c(d.begin(), d.begin() + n);
    return n <= h.size() && std::equal(h.begin(), h.begin() + n, c.begin());
}

int main(void) {
    bool ok = true;
    const int n = 50000;
    unsigned seed = 99;
    std::vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = (int)(next_rand(&seed) % 2001) - 1000;
    thrust::device_vector<int> d(h.begin(), h.end());

    // for_each, tabulate, gather, scatter
    thrust::for_each(d.begin(), d.end(), AddOne());
    for (int &x : h) x += 1;
    ok &= report("for_each", same(d, h, n));
    thrust::device_vector<int> idx(n), o(n);
    thrust::tabulate(idx.begin(), idx.end(), SquareMod{n});
    thrust::gather(idx.begin(), idx.end(), d.begin(), o.begin());
    std::vector<int> g(n);
    for (int i = 0; i < n; i++) g[i] = h[(long long)i * i % n];
    ok &= report("tabulate, gather", same(o, g, n));
    thrust::device_vector<int> rev(n), sc(n);
    thrust::sequence(rev.begin(), rev.end(), n - 1, -1);
    thrust::scatter(d.begin(), d.end(), rev.begin(), sc.begin());
    std::vector<int> hs(h.rbegin(), h.rend());
    ok &= report("scatter", same(sc, hs, n));

    // inner_product, adjacent_difference
    long long ip = thrust::inner_product(d.begin(), d.end(), o.begin(), 0LL);
    long long hip = 0;
    for (int i = 0; i < n; i++) hip += (long long)h[i] * g[i];
    printf("inner_product: %lld\n", ip);
    ok &= report("inner_product", ip == hip);
    thrust::device_vector<int> ad(n);
    thrust::adjacent_difference(d.begin(), d.end(), ad.begin());
    std::vector<int> had(n);
    std::adjacent_difference(h.begin(), h.end(), had.begin());
    ok &= report("adjacent_difference", same(ad, had, n));

    // reduce_by_key over sorted keys: how often each value occurs
    thrust::device_vector<int> k(d);
    thrust::sort(k.begin(), k.end());
    std::vector<int> hk(h);
    std::sort(hk.begin(), hk.end());
    thrust::device_vector<int> ones(n, 1), uk(n), cnt(n);
    auto ends = thrust::reduce_by_key(k.begin(), k.end(), ones.begin(), uk.begin(), cnt.begin());
    int groups = (int)(ends.first - uk.begin());
    std::map<int, int> freq;
    for (int x : h) freq[x]++;
    std::vector<int> fk, fc;
    for (auto &p : freq) { fk.push_back(p.first); fc.push_back(p.second); }
    printf("reduce_by_key: %d keys\n", groups);
    ok &= report("reduce_by_key", groups == (int)fk.size() && same(uk, fk, fk.size()) && same(cnt, fc, fc.size()));

    // vectorised binary search
    const int nq = 101;
    thrust::device_vector<int> q(nq), lb(nq), ub(nq);
    thrust::sequence(q.begin(), q.end(), -1000, 20);
    thrust::lower_bound(k.begin(), k.end(), q.begin(), q.end(), lb.begin());
    thrust::upper_bound(k.begin(), k.end(), q.begin(), q.end(), ub.begin());
    std::vector<int> hlb(nq), hub(nq);
    for (int j = 0; j < nq; j++) {
        int v = -1000 + 20 * j;
        hlb[j] = (int)(std::lower_bound(hk.begin(), hk.end(), v) - hk.begin());
        hub[j] = (int)(std::upper_bound(hk.begin(), hk.end(), v) - hk.begin());
    }
    ok &= report("lower_bound, upper_bound", same(lb, hlb, nq) && same(ub, hub, nq));

    // stable_partition, remove_if, replace, count
    thrust::device_vector<int> p(d);
    int np = (int)(thrust::stable_partition(p.begin(), p.end(), Negative()) - p.begin());
    std::vector<int> hp(h);
    int hnp = (int)(std::stable_partition(hp.begin(), hp.end(), Negative()) - hp.begin());
    printf("stable_partition: %d negative\n", np);
    ok &= report("stable_partition", np == hnp && same(p, hp, n));
    thrust::device_vector<int> r(d);
    int nr = (int)(thrust::remove_if(r.begin(), r.end(), Negative()) - r.begin());
    std::vector<int> hr(h);
    int hnr = (int)(std::remove_if(hr.begin(), hr.end(), Negative()) - hr.begin());
    ok &= report("remove_if", nr == hnr && same(r, hr, nr));
    thrust::replace(r.begin(), r.begin() + nr, 5, -5);
    std::replace(hr.begin(), hr.begin() + hnr, 5, -5);
    int c5 = (int)thrust::count(r.begin(), r.begin() + nr, -5);
    printf("count after replace: %d\n", c5);
    ok &= report("replace, count", same(r, hr, nr) && c5 == (int)std::count(hr.begin(), hr.begin() + hnr, -5));

    // set operations and merge of sorted runs with repeats
    thrust::device_vector<int> a(k.begin(), k.begin() + 3000), b(k.begin() + 1500, k.begin() + 4500), u(6000);
    std::vector<int> ha(hk.begin(), hk.begin() + 3000), hb(hk.begin() + 1500, hk.begin() + 4500), hu(6000);
    int nu = (int)(thrust::set_union(a.begin(), a.end(), b.begin(), b.end(), u.begin()) - u.begin());
    int hnu = (int)(std::set_union(ha.begin(), ha.end(), hb.begin(), hb.end(), hu.begin()) - hu.begin());
    ok &= report("set_union", nu == hnu && same(u, hu, nu));
    int ni = (int)(thrust::set_intersection(a.begin(), a.end(), b.begin(), b.end(), u.begin()) - u.begin());
    int hni = (int)(std::set_intersection(ha.begin(), ha.end(), hb.begin(), hb.end(), hu.begin()) - hu.begin());
    ok &= report("set_intersection", ni == hni && same(u, hu, ni));
    int nm = (int)(thrust::merge(a.begin(), a.end(), b.begin(), b.end(), u.begin()) - u.begin());
    std::merge(ha.begin(), ha.end(), hb.begin(), hb.end(), hu.begin());
    printf("set_union %d, set_intersection %d, merge %d\n", nu, ni, nm);
    ok &= report("merge", nm == 6000 && same(u, hu, nm));
    ok &= report("equal", thrust::equal(d.begin(), d.end(), d.begin()) && !thrust::equal(d.begin(), d.end(), o.begin()));

    // stable_sort_by_key: float keys descending, values in their original order within a key
    thrust::device_vector<float> fkey(d.begin(), d.end());
    thrust::device_vector<int> fval(n);
    thrust::sequence(fval.begin(), fval.end());
    thrust::stable_sort_by_key(fkey.begin(), fkey.end(), fval.begin(), thrust::greater<float>());
    std::vector<int> order(n);
    for (int i = 0; i < n; i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return (float)h[x] > (float)h[y]; });
    ok &= report("stable_sort_by_key (greater)", same(fval, order, n));

    // CUB: histogram, run-length encoding, segmented sums
    int *dp = thrust::raw_pointer_cast(d.data());
    const int bins = 10;
    thrust::device_vector<int> hist(bins);
    void *tmp = nullptr;
    size_t tb = 0;
    cudaCheck(cub::DeviceHistogram::HistogramEven(tmp, tb, dp, thrust::raw_pointer_cast(hist.data()), bins + 1, -1000, 1010, n));
    cudaCheck(cudaMalloc(&tmp, tb));
    cudaCheck(cub::DeviceHistogram::HistogramEven(tmp, tb, dp, thrust::raw_pointer_cast(hist.data()), bins + 1, -1000, 1010, n));
    cudaCheck(cudaFree(tmp));
    std::vector<int> hh(bins);
    for (int x : h) hh[(x + 1000) / 201]++;
    printf("histogram bin 0: %d\n", (int)hist[0]);
    ok &= report("DeviceHistogram::HistogramEven", same(hist, hh, bins));
    thrust::device_vector<int> runs_u(n), runs_c(n), runs_n(1);
    int *kp = thrust::raw_pointer_cast(k.data());
    tmp = nullptr;
    tb = 0;
    cudaCheck(cub::DeviceRunLengthEncode::Encode(tmp, tb, kp, thrust::raw_pointer_cast(runs_u.data()),
                                                 thrust::raw_pointer_cast(runs_c.data()), thrust::raw_pointer_cast(runs_n.data()), n));
    cudaCheck(cudaMalloc(&tmp, tb));
    cudaCheck(cub::DeviceRunLengthEncode::Encode(tmp, tb, kp, thrust::raw_pointer_cast(runs_u.data()),
                                                 thrust::raw_pointer_cast(runs_c.data()), thrust::raw_pointer_cast(runs_n.data()), n));
    cudaCheck(cudaFree(tmp));
    int nruns = runs_n[0];
    ok &= report("DeviceRunLengthEncode::Encode", nruns == (int)fk.size() && same(runs_u, fk, fk.size()) && same(runs_c, fc, fc.size()));
    const int segs = 10;
    thrust::device_vector<int> offs(segs + 1), sums(segs);
    thrust::sequence(offs.begin(), offs.end(), 0, n / segs);
    int *op = thrust::raw_pointer_cast(offs.data());
    tmp = nullptr;
    tb = 0;
    cudaCheck(cub::DeviceSegmentedReduce::Sum(tmp, tb, dp, thrust::raw_pointer_cast(sums.data()), segs, op, op + 1));
    cudaCheck(cudaMalloc(&tmp, tb));
    cudaCheck(cub::DeviceSegmentedReduce::Sum(tmp, tb, dp, thrust::raw_pointer_cast(sums.data()), segs, op, op + 1));
    cudaCheck(cudaFree(tmp));
    std::vector<int> hsum(segs);
    for (int i = 0; i < n; i++) hsum[i / (n / segs)] += h[i];
    printf("segment 3 sum: %d\n", (int)sums[3]);
    ok &= report("DeviceSegmentedReduce::Sum", same(sums, hsum, segs));

    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
