// tests/programs/cub_primitives.cu: CUB as the CUDA samples use it. The
// device-wide algorithms with their two-call temporary-storage protocol
// (a first call with no storage asks how much; cudaMalloc; the real call):
// DeviceReduce::Sum and ::Max over 2^18 ints, DeviceScan::ExclusiveSum and
// ::InclusiveSum, DeviceRadixSort::SortPairs of 20,000 unsigned keys with
// their values, SortKeys of 64-bit keys and of floats descending,
// DeviceSelect::If, and DeviceTransform::Transform of two arrays (on sm_90
// its tiles come into shared memory by cp.async.bulk, counted by an
// mbarrier, one elected thread copying). Then the block-level collectives inside a kernel of our
// own: BlockLoad/BlockReduce/BlockScan over 256 threads of 4 items each,
// WarpReduce and WarpScan per warp, BlockRadixSort of one tile. Every result
// is checked against the host.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <functional>
#include <cub/cub.cuh>
#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>
#include <cuda/functional>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

const int BLOCK = 256, ITEMS = 4, TILE = BLOCK * ITEMS;

// Per block: the tile's sum (BlockReduce), the exclusive prefix sums of its
// items (BlockScan), and per warp the sum of each thread's first item
// (WarpReduce) and their inclusive prefix max (WarpScan).
__global__ void block_collectives(const int *in, int *block_sum, int *scan, int *warp_sum, int *warp_max) {
    typedef cub::BlockLoad<int, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE> Load;
    typedef cub::BlockReduce<int, BLOCK> Reduce;
    typedef cub::BlockScan<int, BLOCK> Scan;
    typedef cub::WarpReduce<int> WReduce;
    typedef cub::WarpScan<int> WScan;
    __shared__ union {
        typename Load::TempStorage load;
        typename Reduce::TempStorage reduce;
        typename Scan::TempStorage scan;
    } tmp;
    __shared__ typename WReduce::TempStorage wreduce[BLOCK / 32];
    __shared__ typename WScan::TempStorage wscan[BLOCK / 32];

    int items[ITEMS];
    Load(tmp.load).Load(in + blockIdx.x * TILE, items);
    __syncthreads();
    int total = Reduce(tmp.reduce).Sum(items);
    if (threadIdx.x == 0) block_sum[blockIdx.x] = total;
    __syncthreads();
    int out[ITEMS];
    Scan(tmp.scan).ExclusiveSum(items, out);
    for (int k = 0; k < ITEMS; k++) scan[blockIdx.x * TILE + threadIdx.x * ITEMS + k] = out[k];

    int warp = threadIdx.x / 32;
    int ws = WReduce(wreduce[warp]).Sum(items[0]);
    if (threadIdx.x % 32 == 0) warp_sum[blockIdx.x * (BLOCK / 32) + warp] = ws;
    int wm;
    WScan(wscan[warp]).InclusiveScan(items[0], wm, cuda::maximum<int>());
    warp_max[blockIdx.x * BLOCK + threadIdx.x] = wm;
}

// One tile of 1024 keys sorted by a block of 256 threads.
__global__ void block_sort(unsigned *keys) {
    typedef cub::BlockRadixSort<unsigned, BLOCK, ITEMS> Sort;
    __shared__ typename Sort::TempStorage tmp;
    unsigned k[ITEMS];
    for (int i = 0; i < ITEMS; i++) k[i] = keys[threadIdx.x * ITEMS + i];
    Sort(tmp).Sort(k);
    for (int i = 0; i < ITEMS; i++) keys[threadIdx.x * ITEMS + i] = k[i];
}

struct Axpy {
    __host__ __device__ float operator()(float x, float y) const { return 2.0f * x + y; }
};

struct Even {
    __host__ __device__ bool operator()(int x) const { return (x & 1) == 0; }
};

static unsigned next_rand(unsigned *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

static bool report(const char *what, bool ok) {
    printf("%-36s %s\n", what, ok ? "ok" : "WRONG");
    return ok;
}

template <typename T> static T *to_device(const std::vector<T> &h) {
    T *d;
    cudaCheck(cudaMalloc(&d, h.size() * sizeof(T)));
    cudaCheck(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <typename T> static std::vector<T> to_host(const T *d, size_t n) {
    std::vector<T> h(n);
    cudaCheck(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

int main(void) {
    bool ok = true;
    unsigned seed = 2024;
    const int n = 1 << 18;
    std::vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = (int)(next_rand(&seed) % 2001) - 1000;
    int *d_in = to_device(h);
    int *d_out;
    cudaCheck(cudaMalloc(&d_out, n * sizeof(int)));
    void *tmp = nullptr;
    size_t tmp_bytes = 0;

    // DeviceReduce::Sum and ::Max
    int *d_res;
    cudaCheck(cudaMalloc(&d_res, sizeof(int)));
    cudaCheck(cub::DeviceReduce::Sum(nullptr, tmp_bytes, d_in, d_res, n));
    printf("DeviceReduce::Sum asks for temporary storage: %s\n", tmp_bytes > 0 ? "yes" : "no");
    cudaCheck(cudaMalloc(&tmp, tmp_bytes));
    cudaCheck(cub::DeviceReduce::Sum(tmp, tmp_bytes, d_in, d_res, n));
    cudaCheck(cudaFree(tmp));
    int sum = to_host(d_res, 1)[0];
    long long ref_sum = 0;
    for (int v : h) ref_sum += v;
    printf("DeviceReduce::Sum: %d (host %lld)\n", sum, ref_sum);
    ok &= report("DeviceReduce::Sum", sum == ref_sum);
    tmp_bytes = 0;
    cudaCheck(cub::DeviceReduce::Max(nullptr, tmp_bytes, d_in, d_res, n));
    cudaCheck(cudaMalloc(&tmp, tmp_bytes));
    cudaCheck(cub::DeviceReduce::Max(tmp, tmp_bytes, d_in, d_res, n));
    cudaCheck(cudaFree(tmp));
    int mx = to_host(d_res, 1)[0];
    printf("DeviceReduce::Max: %d\n", mx);
    ok &= report("DeviceReduce::Max", mx == *std::max_element(h.begin(), h.end()));

    // DeviceScan::ExclusiveSum and ::InclusiveSum
    tmp_bytes = 0;
    cudaCheck(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, d_in, d_out, n));
    cudaCheck(cudaMalloc(&tmp, tmp_bytes));
    cudaCheck(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, d_in, d_out, n));
    cudaCheck(cudaFree(tmp));
    std::vector<int> hs = to_host(d_out, n);
    bool exc = true;
    int run = 0;
    for (int i = 0; i < n; i++) { exc &= hs[i] == run; run += h[i]; }
    printf("DeviceScan::ExclusiveSum: last %d\n", hs[n - 1]);
    ok &= report("DeviceScan::ExclusiveSum", exc);
    tmp_bytes = 0;
    cudaCheck(cub::DeviceScan::InclusiveSum(nullptr, tmp_bytes, d_in, d_out, n));
    cudaCheck(cudaMalloc(&tmp, tmp_bytes));
    cudaCheck(cub::DeviceScan::InclusiveSum(tmp, tmp_bytes, d_in, d_out, n));
    cudaCheck(cudaFree(tmp));
    hs = to_host(d_out, n);
    bool inc = true;
    run = 0;
    for (int i = 0; i < n; i++) { run += h[i]; inc &= hs[i] == run; }
    ok &= report("DeviceScan::InclusiveSum", inc);

    // DeviceRadixSort::SortPairs: unsigned keys, int values (stable)
    const int ns = 20000;
    std::vector<unsigned> keys(ns);
    std::vector<int> vals(ns);
    for (int i = 0; i < ns; i++) { keys[i] = next_rand(&seed); vals[i] = i; }
    unsigned *dk_in = to_device(keys), *dk_out;
    int *dv_in = to_device(vals), *dv_out;
    cudaCheck(cudaMalloc(&dk_out, ns * sizeof(unsigned)));
    cudaCheck(cudaMalloc(&dv_out, ns * sizeof(int)));
    tmp_bytes = 0;
    cudaCheck(cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, dk_in, dk_out, dv_in, dv_out, ns));
    cudaCheck(cudaMalloc(&tmp, tmp_bytes));
    cudaCheck(cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, dk_in, dk_out, dv_in, dv_out, ns));
    cudaCheck(cudaFree(tmp));
    std::vector<unsigned> hk = to_host(dk_out, ns);
    std::vector<int> hv = to_host(dv_out, ns);
    std::vector<int> order(ns);
    for (int i = 0; i < ns; i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    bool pairs = true;
    for (int i = 0; i < ns; i++) pairs &= hk[i] == keys[order[i]] && hv[i] == order[i];
    ok &= report("DeviceRadixSort::SortPairs", pairs);

    // SortKeys: 64-bit keys, then floats descending
    std::vector<unsigned long long> kl(ns);
    std::vector<float> kf(ns);
    for (int i = 0; i < ns; i++) {
        kl[i] = ((unsigned long long)next_rand(&seed) << 32) | next_rand(&seed);
        kf[i] = (float)((int)(next_rand(&seed) % 200001) - 100000) / 16.0f;
    }
    unsigned long long *dl_in = to_device(kl), *dl_out;
    float *df_in = to_device(kf), *df_out;
    cudaCheck(cudaMalloc(&dl_out, ns * sizeof(unsigned long long)));
    cudaCheck(cudaMalloc(&df_out, ns * sizeof(float)));
    tmp_bytes = 0;
    cudaCheck(cub::DeviceRadixSort::SortKeys(nullptr, tmp_bytes, dl_in, dl_out, ns));
    cudaCheck(cudaMalloc(&tmp, tmp_bytes));
    cudaCheck(cub::DeviceRadixSort::SortKeys(tmp, tmp_bytes, dl_in, dl_out, ns));
    cudaCheck(cudaFree(tmp));
    tmp_bytes = 0;
    cudaCheck(cub::DeviceRadixSort::SortKeysDescending(nullptr, tmp_bytes, df_in, df_out, ns));
    cudaCheck(cudaMalloc(&tmp, tmp_bytes));
    cudaCheck(cub::DeviceRadixSort::SortKeysDescending(tmp, tmp_bytes, df_in, df_out, ns));
    cudaCheck(cudaFree(tmp));
    std::sort(kl.begin(), kl.end());
    std::sort(kf.begin(), kf.end(), std::greater<float>());
    ok &= report("DeviceRadixSort::SortKeys 64-bit", to_host(dl_out, ns) == kl);
    ok &= report("DeviceRadixSort::SortKeysDescending f", to_host(df_out, ns) == kf);

    // DeviceSelect::If
    int *d_nsel;
    cudaCheck(cudaMalloc(&d_nsel, sizeof(int)));
    tmp_bytes = 0;
    cudaCheck(cub::DeviceSelect::If(nullptr, tmp_bytes, d_in, d_out, d_nsel, n, Even()));
    cudaCheck(cudaMalloc(&tmp, tmp_bytes));
    cudaCheck(cub::DeviceSelect::If(tmp, tmp_bytes, d_in, d_out, d_nsel, n, Even()));
    cudaCheck(cudaFree(tmp));
    int nsel = to_host(d_nsel, 1)[0];
    std::vector<int> ref_sel;
    for (int v : h) if ((v & 1) == 0) ref_sel.push_back(v);
    std::vector<int> hsel = to_host(d_out, nsel);
    printf("DeviceSelect::If even: %d of %d\n", nsel, n);
    ok &= report("DeviceSelect::If", hsel == ref_sel);

    // DeviceTransform: z = 2x + y over 2^18 floats, exact in float
    float *dx, *dy, *dz;
    std::vector<float> hx(n), hy(n);
    for (int i = 0; i < n; i++) { hx[i] = (float)(i % 1000); hy[i] = (float)h[i]; }
    dx = to_device(hx);
    dy = to_device(hy);
    cudaCheck(cudaMalloc(&dz, n * sizeof(float)));
    cudaCheck(cub::DeviceTransform::Transform(cuda::std::make_tuple(dx, dy), dz, n, Axpy()));
    std::vector<float> hz = to_host(dz, n);
    bool tr = true;
    for (int i = 0; i < n; i++) tr &= hz[i] == 2.0f * hx[i] + hy[i];
    ok &= report("DeviceTransform::Transform", tr);
    cudaCheck(cudaFree(dx));
    cudaCheck(cudaFree(dy));
    cudaCheck(cudaFree(dz));

    // block-level collectives in a kernel of our own
    const int blocks = 8;
    int *d_bsum, *d_scan, *d_wsum, *d_wmax;
    cudaCheck(cudaMalloc(&d_bsum, blocks * sizeof(int)));
    cudaCheck(cudaMalloc(&d_scan, blocks * TILE * sizeof(int)));
    cudaCheck(cudaMalloc(&d_wsum, blocks * (BLOCK / 32) * sizeof(int)));
    cudaCheck(cudaMalloc(&d_wmax, blocks * BLOCK * sizeof(int)));
    block_collectives<<<blocks, BLOCK>>>(d_in, d_bsum, d_scan, d_wsum, d_wmax);
    cudaCheck(cudaGetLastError());
    std::vector<int> bsum = to_host(d_bsum, blocks), bscan = to_host(d_scan, blocks * TILE);
    std::vector<int> wsum = to_host(d_wsum, blocks * (BLOCK / 32)), wmax = to_host(d_wmax, blocks * BLOCK);
    bool br = true, bs = true, wr = true, wsc = true;
    for (int b = 0; b < blocks; b++) {
        int s = 0;
        for (int i = 0; i < TILE; i++) {
            bs &= bscan[b * TILE + i] == s;
            s += h[b * TILE + i];
        }
        br &= bsum[b] == s;
        // BLOCK_LOAD_TRANSPOSE: thread t holds items t*ITEMS .. t*ITEMS+3
        for (int w = 0; w < BLOCK / 32; w++) {
            int ws = 0, m = -1000000;
            for (int l = 0; l < 32; l++) {
                int t = w * 32 + l, v = h[b * TILE + t * ITEMS];
                ws += v;
                m = std::max(m, v);
                wsc &= wmax[b * BLOCK + t] == m;
            }
            wr &= wsum[b * (BLOCK / 32) + w] == ws;
        }
    }
    printf("BlockReduce sums: %d %d ... %d\n", bsum[0], bsum[1], bsum[blocks - 1]);
    ok &= report("BlockReduce::Sum", br);
    ok &= report("BlockScan::ExclusiveSum", bs);
    ok &= report("WarpReduce::Sum", wr);
    ok &= report("WarpScan::InclusiveScan (max)", wsc);

    std::vector<unsigned> tile(TILE);
    for (int i = 0; i < TILE; i++) tile[i] = next_rand(&seed) >> 7;
    unsigned *d_tile = to_device(tile);
    block_sort<<<1, BLOCK>>>(d_tile);
    cudaCheck(cudaGetLastError());
    std::sort(tile.begin(), tile.end());
    ok &= report("BlockRadixSort", to_host(d_tile, TILE) == tile);

    cudaCheck(cudaFree(d_in));
    cudaCheck(cudaFree(d_out));
    cudaCheck(cudaFree(d_res));
    cudaCheck(cudaFree(dk_in));
    cudaCheck(cudaFree(dk_out));
    cudaCheck(cudaFree(dv_in));
    cudaCheck(cudaFree(dv_out));
    cudaCheck(cudaFree(dl_in));
    cudaCheck(cudaFree(dl_out));
    cudaCheck(cudaFree(df_in));
    cudaCheck(cudaFree(df_out));
    cudaCheck(cudaFree(d_nsel));
    cudaCheck(cudaFree(d_bsum));
    cudaCheck(cudaFree(d_scan));
    cudaCheck(cudaFree(d_wsum));
    cudaCheck(cudaFree(d_wmax));
    cudaCheck(cudaFree(d_tile));
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
