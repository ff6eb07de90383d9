// tests/programs/thrust_algorithms.cu: the Thrust algorithms a learner
// reaches for first, on device_vectors large enough that CUB's multi-block
// and multi-pass paths run (a reduce over 2^18 elements, radix sorts of
// 20,000 keys: several tiles and every digit pass). host_vector <->
// device_vector copies, sequence, fill, transform with functors (cudojo
// passes no --extended-lambda), reduce, transform_reduce, inclusive and
// exclusive scans, sort of int, float and 64-bit keys, a sort with a
// comparator of its own (merge sort), sort_by_key, copy_if, count_if,
// unique, min/max_element. Each result is checked against the same
// computation on the host.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <numeric>
#include <thrust/host_vector.h>
#include <thrust/device_vector.h>
#include <thrust/sequence.h>
#include <thrust/fill.h>
#include <thrust/transform.h>
#include <thrust/reduce.h>
#include <thrust/transform_reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/unique.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>

struct Saxpy {
    int a;
    __host__ __device__ int operator()(int x, int y) const { return a * x + y; }
};

struct Square {
    __host__ __device__ long long operator()(int x) const { return (long long)x * x; }
};

struct IsMultipleOf {
    int m;
    __host__ __device__ bool operator()(int x) const { return x % m == 0; }
};

// Orders by the last decimal digit, then descending: not a plain less/greater,
// so thrust::sort takes its merge sort, not the radix sort.
struct ByLastDigit {
    __host__ __device__ bool operator()(int a, int b) const {
        int da = a % 10, db = b % 10;
        return da != db ? da < db : a > b;
    }
};

// A deterministic stream of pseudo-random numbers (the same on every machine).
static unsigned next_rand(unsigned *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

static bool report(const char *what, bool ok) {
    printf("%-34s %s\n", what, ok ? "ok" : "WRONG");
    return ok;
}

int main(void) {
    bool ok = true;
    unsigned seed = 12345;

    // host_vector -> device_vector -> host_vector
    const int n = 1 << 18;
    thrust::host_vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = (int)(next_rand(&seed) % 2001) - 1000;
    thrust::device_vector<int> d = h;
    thrust::host_vector<int> back = d;
    ok &= report("copies host -> device -> host", back == h);

    // reduce over 2^18 ints
    long long ref_sum = 0;
    for (int i = 0; i < n; i++) ref_sum += h[i];
    int sum = thrust::reduce(d.begin(), d.end());
    printf("reduce: %d (host %lld)\n", sum, ref_sum);
    ok &= report("reduce", sum == ref_sum);

    // transform_reduce: sum of squares in 64 bits
    long long sq = thrust::transform_reduce(d.begin(), d.end(), Square(), 0LL, thrust::plus<long long>());
    long long ref_sq = 0;
    for (int i = 0; i < n; i++) ref_sq += (long long)h[i] * h[i];
    printf("transform_reduce (squares): %lld (host %lld)\n", sq, ref_sq);
    ok &= report("transform_reduce", sq == ref_sq);

    // min/max_element
    int mn = *thrust::min_element(d.begin(), d.end()), mx = *thrust::max_element(d.begin(), d.end());
    int hmn = *std::min_element(h.begin(), h.end()), hmx = *std::max_element(h.begin(), h.end());
    printf("min %d max %d\n", mn, mx);
    ok &= report("min_element, max_element", mn == hmn && mx == hmx);

    // sequence, fill, transform with a functor
    const int m = 100000;
    thrust::device_vector<int> x(m), y(m), z(m);
    thrust::sequence(x.begin(), x.end(), 7, 3);  // 7, 10, 13, ...
    thrust::fill(y.begin(), y.end(), -5);
    thrust::transform(x.begin(), x.end(), y.begin(), z.begin(), Saxpy{2});
    thrust::host_vector<int> hz = z;
    bool tr = true;
    for (int i = 0; i < m; i++) tr &= hz[i] == 2 * (7 + 3 * i) - 5;
    printf("transform: z[0] %d z[%d] %d\n", (int)hz[0], m - 1, (int)hz[m - 1]);
    ok &= report("sequence, fill, transform", tr);
    thrust::transform(z.begin(), z.end(), z.begin(), thrust::negate<int>());
    long long neg_sum = thrust::reduce(z.begin(), z.end(), 0LL, thrust::plus<long long>());
    long long ref_neg = 0;
    for (int i = 0; i < m; i++) ref_neg -= 2 * (7 + 3 * i) - 5;
    printf("transform negate, reduce in 64 bits: %lld\n", neg_sum);
    ok &= report("transform with negate", neg_sum == ref_neg);

    // scans
    thrust::device_vector<int> s(n);
    thrust::inclusive_scan(d.begin(), d.end(), s.begin());
    thrust::host_vector<int> hs = s;
    std::vector<int> ref_scan(n);
    int run = 0;
    bool inc = true;
    for (int i = 0; i < n; i++) { run += h[i]; inc &= hs[i] == run; }
    printf("inclusive_scan: last %d\n", (int)hs[n - 1]);
    ok &= report("inclusive_scan", inc);
    thrust::exclusive_scan(d.begin(), d.end(), s.begin(), 100);
    hs = s;
    bool exc = true;
    run = 100;
    for (int i = 0; i < n; i++) { exc &= hs[i] == run; run += h[i]; }
    printf("exclusive_scan (init 100): last %d\n", (int)hs[n - 1]);
    ok &= report("exclusive_scan", exc);

    // radix sorts: int, float, 64-bit keys
    const int ns = 20000;
    std::vector<int> ki(ns);
    std::vector<float> kf(ns);
    std::vector<unsigned long long> kl(ns);
    for (int i = 0; i < ns; i++) {
        ki[i] = (int)next_rand(&seed);
        kf[i] = (float)((int)(next_rand(&seed) % 200001) - 100000) / 64.0f;
        kl[i] = ((unsigned long long)next_rand(&seed) << 32) | next_rand(&seed);
    }
    thrust::device_vector<int> di(ki.begin(), ki.end());
    thrust::device_vector<float> df(kf.begin(), kf.end());
    thrust::device_vector<unsigned long long> dl(kl.begin(), kl.end());
    thrust::sort(di.begin(), di.end());
    thrust::sort(df.begin(), df.end());
    thrust::sort(dl.begin(), dl.end(), thrust::greater<unsigned long long>());
    std::sort(ki.begin(), ki.end());
    std::sort(kf.begin(), kf.end());
    std::sort(kl.begin(), kl.end(), std::greater<unsigned long long>());
    thrust::host_vector<int> hi = di;
    thrust::host_vector<float> hf = df;
    thrust::host_vector<unsigned long long> hl = dl;
    ok &= report("sort int", std::equal(ki.begin(), ki.end(), hi.begin()));
    ok &= report("sort float", std::equal(kf.begin(), kf.end(), hf.begin()));
    ok &= report("sort 64-bit keys, greater", std::equal(kl.begin(), kl.end(), hl.begin()));
    printf("is_sorted on the device: %s\n",
           thrust::is_sorted(di.begin(), di.end()) && thrust::is_sorted(df.begin(), df.end()) ? "yes" : "no");

    // merge sort with a comparator of its own
    const int nm = 5000;
    std::vector<int> km(nm);
    for (int i = 0; i < nm; i++) km[i] = (int)(next_rand(&seed) % 100000);
    thrust::device_vector<int> dm(km.begin(), km.end());
    thrust::sort(dm.begin(), dm.end(), ByLastDigit());
    std::sort(km.begin(), km.end(), ByLastDigit());
    thrust::host_vector<int> hm = dm;
    ok &= report("sort with a comparator (merge)", std::equal(km.begin(), km.end(), hm.begin()));

    // sort_by_key: stable, values follow their keys
    std::vector<int> keys(ns), vals(ns);
    for (int i = 0; i < ns; i++) { keys[i] = (int)(next_rand(&seed) % 1000); vals[i] = i; }
    thrust::device_vector<int> dk(keys.begin(), keys.end()), dv(vals.begin(), vals.end());
    thrust::sort_by_key(dk.begin(), dk.end(), dv.begin());
    std::vector<int> order(ns);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    thrust::host_vector<int> hk = dk, hv = dv;
    bool sbk = true;
    for (int i = 0; i < ns; i++) sbk &= hk[i] == keys[order[i]] && hv[i] == vals[order[i]];
    ok &= report("sort_by_key (stable)", sbk);

    // copy_if, count_if
    int cnt = thrust::count_if(d.begin(), d.end(), IsMultipleOf{7});
    thrust::device_vector<int> sel(n);
    auto end = thrust::copy_if(d.begin(), d.end(), sel.begin(), IsMultipleOf{7});
    int nsel = (int)(end - sel.begin());
    std::vector<int> ref_sel;
    for (int i = 0; i < n; i++) if (h[i] % 7 == 0) ref_sel.push_back(h[i]);
    thrust::host_vector<int> hsel(sel.begin(), sel.begin() + nsel);
    printf("count_if multiple of 7: %d, copy_if kept %d (host %d)\n", cnt, nsel, (int)ref_sel.size());
    ok &= report("count_if", cnt == (int)ref_sel.size());
    ok &= report("copy_if (order kept)", nsel == (int)ref_sel.size() && std::equal(ref_sel.begin(), ref_sel.end(), hsel.begin()));

    // unique after a sort
    thrust::device_vector<int> u = d;
    thrust::sort(u.begin(), u.end());
    int nu = (int)(thrust::unique(u.begin(), u.end()) - u.begin());
    std::vector<int> hu(h.begin(), h.end());
    std::sort(hu.begin(), hu.end());
    int ref_nu = (int)(std::unique(hu.begin(), hu.end()) - hu.begin());
    thrust::host_vector<int> hun(u.begin(), u.begin() + nu);
    printf("unique values: %d (host %d)\n", nu, ref_nu);
    ok &= report("unique", nu == ref_nu && std::equal(hu.begin(), hu.begin() + ref_nu, hun.begin()));

    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
