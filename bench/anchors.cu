// bench/anchors.cu: the course's reference solutions beside what a user would
// pick instead, in one process on one GPU (issue 15 part 3). Each lesson
// solution is compiled from lessons/ at run time with NVRTC, as cudojo does
// (--std=c++17 -lineinfo, a cubin for this GPU), loaded with
// cudaLibraryLoadData and launched as the exercise's Lua launches it:
//
//   reduce-peak (11)             vs cub::DeviceReduce::Sum         2^29 floats
//   scan-array (10, one pass)    vs cub::DeviceScan::InclusiveSum  2^28 ints
//   transpose-tiled (04)         vs cudaMemcpyAsync device to device, 8192 x 8192 floats
//   histogram (10, shared)       vs cub::DeviceHistogram::HistogramEven, 2^28 + 7 bytes
//   (these three also as "variant" rows: other defines and launch shapes of the
//   same solution, to choose the .lua's next default from; the first row of
//   each is the shape the .lua launches on a GPU)
//   sgemm-tiled (11) and every step of chapter 18
//                                vs cublasSgemm (FP32, CUBLAS_DEFAULT_MATH: no TF32), 4096^3
//   chapter 18 experiments (bench/sgemm/*.cu, rows marked "experiment"): kernels
//                                a step might take, timed in the same run
//   scan-array experiments (bench/scan/scan-pipe.cu, rows marked "experiment"):
//                                the look-back without fences or tickets, a blocked
//                                layout through shared memory, persistent blocks with
//                                the next tiles in flight
//
// Every result is checked against the anchor's result (or, for the
// transpose, a plain transpose kernel) before it is timed. Times are medians
// of REPS launches (default 30) after 3 warm-up launches, each bracketed by
// CUDA events, with the L2 cache flushed before each (as cudojo's k:time
// does). One table: name, ours (ms and GB/s or TFLOP/s), the anchor's, and
// ours as a percentage of the anchor's rate.
//
// Build (no GPU needed): make BUILD=build anchors
// Run (from the repository root):  build/bench/anchors [--lessons DIR] [--reps N] [--only TEXT]
// --only TEXT keeps the rows whose name contains TEXT ("scan": every scan
// row; "scan-array experiment": the experiments alone; "pers": the persistent ones).
#include <cublas_v2.h>
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#ifndef ANCHORS_CUDA_INCLUDE
#define ANCHORS_CUDA_INCLUDE "/usr/local/cuda/include"
#endif

#define CHECK(call)                                                                           \
    do {                                                                                      \
        cudaError_t err_ = (call);                                                            \
        if (err_ != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

#define CHECK_CUBLAS(call)                                                                    \
    do {                                                                                      \
        cublasStatus_t st_ = (call);                                                          \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                   \
            fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, (int)st_); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

// ---- settings and the table ---------------------------------------------------

static std::string g_lessons = "lessons";
static int g_reps = 30;
static const char *g_only = NULL;
static int g_cc = 90, g_sms = 132;
static void *g_flush = NULL;                 // written before each timed launch: evicts the L2
static size_t g_flush_bytes = 0;
static int g_failures = 0;

struct Row {
    std::string name, anchor, unit;
    double ours_ms, anchor_ms, ours_rate, anchor_rate;
    bool ok;
};
static std::vector<Row> g_rows;

static bool wanted(const char *name) { return !g_only || strstr(name, g_only); }

// ---- lesson solutions through NVRTC ------------------------------------------

// The whole text of a file, or exit with a message naming it.
static std::string read_text(const std::string &path)
{
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) {
        fprintf(stderr, "anchors: cannot read %s (run from the repository root or pass --lessons DIR)\n",
                path.c_str());
        exit(1);
    }
    std::string s;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    fclose(f);
    return s;
}

// Compiles the CUDA file at PATH with NVRTC (cudojo's options, a cubin for
// this GPU) and loads it; defines are "NAME=VALUE".
static cudaLibrary_t source_load(const std::string &path, const std::vector<std::string> &defines = {})
{
    std::string src = read_text(path);
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, src.c_str(), path.c_str(), 0, NULL, NULL) != NVRTC_SUCCESS) {
        fprintf(stderr, "anchors: nvrtcCreateProgram failed for %s\n", path.c_str());
        exit(1);
    }
    std::vector<std::string> opts = { "-lineinfo", "--std=c++17", "-I" ANCHORS_CUDA_INCLUDE,
                                      "-I" ANCHORS_CUDA_INCLUDE "/cccl",
                                      "-arch=sm_" + std::to_string(g_cc) };
    for (const std::string &d : defines) opts.push_back("-D" + d);
    std::vector<const char *> argv;
    for (const std::string &o : opts) argv.push_back(o.c_str());
    nvrtcResult rc = nvrtcCompileProgram(prog, (int)argv.size(), argv.data());
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    if (rc != NVRTC_SUCCESS) {
        std::string log(log_size, '\0');
        nvrtcGetProgramLog(prog, &log[0]);
        fprintf(stderr, "anchors: %s does not compile:\n%s\n", path.c_str(), log.c_str());
        exit(1);
    }
    size_t cubin_size = 0;
    nvrtcGetCUBINSize(prog, &cubin_size);
    std::vector<char> cubin(cubin_size);
    nvrtcGetCUBIN(prog, cubin.data());
    nvrtcDestroyProgram(&prog);
    cudaLibrary_t lib;
    CHECK(cudaLibraryLoadData(&lib, cubin.data(), NULL, NULL, 0, NULL, NULL, 0));
    return lib;
}

// Compiles lessons/REL (see source_load).
static cudaLibrary_t solution_load(const char *rel, const std::vector<std::string> &defines = {})
{
    return source_load(g_lessons + "/" + rel, defines);
}

// The kernel NAME of a loaded solution.
static cudaKernel_t solution_kernel(cudaLibrary_t lib, const char *name)
{
    cudaKernel_t k;
    CHECK(cudaLibraryGetKernel(&k, lib, name));
    return k;
}

// Launches a solution's kernel on the default stream (errors surface at the next check).
static void launch(cudaKernel_t k, dim3 grid, dim3 block, void **args)
{
    CHECK(cudaLaunchKernel((const void *)k, grid, block, args, 0, 0));
}

// ---- helpers of our own (compiled by nvcc) -----------------------------------

__device__ unsigned int hash_u32(unsigned long long i, unsigned int seed)
{
    unsigned long long z = i * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (unsigned int)((z ^ (z >> 31)) >> 32);
}

__global__ void fill_f32(float *x, size_t n, unsigned int seed, float lo, float hi)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = lo + (hi - lo) * (hash_u32(i, seed) >> 8) * (1.0f / 16777216.0f);
}

__global__ void fill_i32(int *x, size_t n, unsigned int seed, int lo, int hi)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = lo + (int)(hash_u32(i, seed) % (unsigned int)(hi - lo + 1));
}

__global__ void fill_u8(unsigned char *x, size_t n, unsigned int seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (unsigned char)(hash_u32(i, seed) >> 24);
}

// How many elements of a and b differ (32-bit words compared exactly).
__global__ void count_diff_u32(const unsigned int *a, const unsigned int *b, size_t n, unsigned long long *count)
{
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        c += a[i] != b[i];
    if (c) atomicAdd(count, c);
}

// The largest |a - b| (NaN counts as larger than any number), as float bits.
__global__ void max_abs_diff_f32(const float *a, const float *b, size_t n, unsigned int *max_bits)
{
    unsigned int m = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float d = fabsf(a[i] - b[i]);
        unsigned int bits = d != d ? 0x7fffffffu : __float_as_uint(d);
        m = max(m, bits);
    }
    atomicMax(max_bits, m);
}

// out (cols x rows) = in (rows x cols) transposed, one element per thread: the check for ours.
__global__ void transpose_plain(float *out, const float *in, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

static dim3 fill_grid(void) { return dim3(g_sms * 8); }

static size_t count_diff(const void *a, const void *b, size_t words)
{
    unsigned long long *d, h = 0;
    CHECK(cudaMalloc(&d, sizeof *d));
    CHECK(cudaMemset(d, 0, sizeof *d));
    count_diff_u32<<<fill_grid(), 256>>>((const unsigned int *)a, (const unsigned int *)b, words, d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    return (size_t)h;
}

static float max_diff(const float *a, const float *b, size_t n)
{
    unsigned int *d, h = 0;
    CHECK(cudaMalloc(&d, sizeof *d));
    CHECK(cudaMemset(d, 0, sizeof *d));
    max_abs_diff_f32<<<fill_grid(), 256>>>(a, b, n, d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    float f;
    memcpy(&f, &h, sizeof f);
    return f;
}

// ---- timing ------------------------------------------------------------------

// Median milliseconds of g_reps runs of work() after 3 warm-up runs; prep()
// (e.g. zeroing an accumulator) and an L2 flush run before each, outside the events.
static double time_ms(const std::function<void()> &prep, const std::function<void()> &work)
{
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    for (int w = 0; w < 3; w++) {
        prep();
        work();
    }
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int r = 0; r < g_reps; r++) {
        prep();
        CHECK(cudaMemsetAsync(g_flush, r & 0xff, g_flush_bytes, 0));
        CHECK(cudaEventRecord(e0, 0));
        work();
        CHECK(cudaEventRecord(e1, 0));
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaGetLastError());
        float t = 0;
        CHECK(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
    }
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    std::sort(ms.begin(), ms.end());
    return ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
}

static void nothing(void) {}

// Records a row; amount / ms is the rate (bytes -> GB/s with 1e-6, flops -> TFLOP/s with 1e-9).
static void add_row(const std::string &name, const std::string &anchor, const char *unit, double amount,
                    double scale, double ours_ms, double anchor_ms, bool ok)
{
    Row r = { name, anchor, unit, ours_ms, anchor_ms, amount / ours_ms * scale, amount / anchor_ms * scale, ok };
    g_rows.push_back(r);
    if (!ok) g_failures++;
    printf("  %-52s %9.3f ms   %s %9.3f ms\n", name.c_str(), ours_ms, anchor.c_str(), anchor_ms);
    fflush(stdout);
}

// ---- the pairs ---------------------------------------------------------------

// reduce-peak vs cub::DeviceReduce::Sum over 2^29 floats in [0, 1).
static void bench_reduce(void)
{
    if (!wanted("reduce-peak")) return;
    const int n = 1 << 29;
    float *x, *sum_ours, *sum_cub;
    CHECK(cudaMalloc(&x, (size_t)n * 4));
    CHECK(cudaMalloc(&sum_ours, 4));
    CHECK(cudaMalloc(&sum_cub, 4));
    fill_f32<<<fill_grid(), 256>>>(x, n, 162, 0.0f, 1.0f);
    cudaKernel_t k = solution_kernel(solution_load("11-roofline/solutions/reduce-peak.cu"), "reduce_sum");
    int nn = n;
    void *args[] = { &x, &sum_ours, &nn };
    dim3 grid(g_sms * 8), block(256);                   // as reduce-peak.lua launches it
    void *temp = NULL;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, x, sum_cub, n));
    CHECK(cudaMalloc(&temp, temp_bytes));

    auto zero = [&] { CHECK(cudaMemsetAsync(sum_ours, 0, 4, 0)); };
    auto ours = [&] { launch(k, grid, block, args); };
    auto cub_sum = [&] { CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, x, sum_cub, n)); };
    zero();
    ours();
    cub_sum();
    float a = 0, b = 0;
    CHECK(cudaMemcpy(&a, sum_ours, 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&b, sum_cub, 4, cudaMemcpyDeviceToHost));
    bool ok = fabs(a - b) <= 1e-4 * fabs(b);
    if (!ok) fprintf(stderr, "reduce-peak: sum %.1f, CUB %.1f\n", a, b);
    double t_ours = time_ms(zero, ours), t_cub = time_ms(nothing, cub_sum);
    add_row("reduce-peak (2^29 f32)", "cub::DeviceReduce::Sum", "GB/s", 4.0 * n, 1e-6, t_ours, t_cub, ok);
    CHECK(cudaFree(temp));
    CHECK(cudaFree(x));
    CHECK(cudaFree(sum_ours));
    CHECK(cudaFree(sum_cub));
}

// One variant of a solution: a label for the table and its defines; the
// first of each list is the shape the exercise's .lua launches on a GPU, the
// others are rows marked "variant" to pick the next default from.
struct Variant {
    const char *label;
    std::vector<std::string> defines;
    int a, b;                                // launch parameters, per bench (below)
};

// Experiments for scan-array (bench/scan/scan-pipe.cu, rows marked
// "experiment"): the same look-back with a blocked layout through shared
// memory, without fences, tickets or with persistent blocks that keep the
// next tiles' copies in flight. block and items must match the defines
// (a LOOKAHEAD=1 kernel is launched with block + 32 threads: its look-back warp);
// per_sm: 0 = one tile per block (grid = tiles), > 0 = persistent blocks per
// SM, -1 = persistent, as many per SM as fit (the occupancy calculator).
// Labels: BLOCKxITEMS; idx = tile blockIdx.x (CUB's way), ticket = the
// course's atomic ticket; ahead = a warp of its own looks back from the start;
// pers = persistent, Nst = N tiles in shared memory;
// CUB sleeps = its sm90 tuning's 1245 ns before looking back, 648 between polls.
struct ScanExperiment {
    const char *label;
    std::vector<std::string> defines;
    int block, items, per_sm;
};

static const ScanExperiment SCAN_EXPERIMENTS[] = {
    // one tile per block. Session 8 on the H200 (CUB 0.684 ms = 100%): CUB
    // sleeps 102.6%, the same without them 88.3%, the course's solution 92.3%:
    // the sleeps are what count, so they are tried with the course's ticket and
    // at other lengths. (The persistent rows, pers ..., ran at 0.5-49% of CUB
    // there: their spinning blocks starve the tiles they wait for; left out,
    // the PERSIST code stays in scan-pipe.cu.) Session 9 (CUB 0.683 ms): CUB
    // sleeps 102.4%, double 104.4%, 128x28 with CUB sleeps 105.7%, delay only
    // 100.2%, spin sleep only 88.7%: the course's solution took CUB's sleeps
    // and moved from 92.3% to 103.0% of CUB (double sleeps 106.2%).
    { "128x24 idx, CUB sleeps", { "BLOCK=128", "ITEMS=24", "DELAY_NS=1245", "SPIN_NS=648" }, 128, 24, 0 },
    { "128x24 idx", { "BLOCK=128", "ITEMS=24" }, 128, 24, 0 },
    { "128x24 idx, half sleeps", { "BLOCK=128", "ITEMS=24", "DELAY_NS=620", "SPIN_NS=320" }, 128, 24, 0 },
    { "128x24 idx, double sleeps", { "BLOCK=128", "ITEMS=24", "DELAY_NS=2500", "SPIN_NS=1300" }, 128, 24, 0 },
    { "128x24 idx, spin sleep only", { "BLOCK=128", "ITEMS=24", "SPIN_NS=648" }, 128, 24, 0 },
    { "128x24 idx, delay only", { "BLOCK=128", "ITEMS=24", "DELAY_NS=1245" }, 128, 24, 0 },
    { "128x24 ticket, CUB sleeps", { "BLOCK=128", "ITEMS=24", "TICKET=1", "DELAY_NS=1245", "SPIN_NS=648" }, 128, 24, 0 },
    { "256x32 ticket, fence, CUB sleeps",
      { "BLOCK=256", "ITEMS=32", "TICKET=1", "FENCE=1", "DELAY_NS=1245", "SPIN_NS=648" }, 256, 32, 0 },
    { "128x28 idx, CUB sleeps", { "BLOCK=128", "ITEMS=28", "DELAY_NS=1245", "SPIN_NS=648" }, 128, 28, 0 },
    { "256x32 ticket, fence", { "BLOCK=256", "ITEMS=32", "TICKET=1", "FENCE=1" }, 256, 32, 0 },
    { "256x32 idx", { "BLOCK=256", "ITEMS=32" }, 256, 32, 0 },
    { "128x28 idx", { "BLOCK=128", "ITEMS=28" }, 128, 28, 0 },
    { "128x24 idx ahead", { "BLOCK=128", "ITEMS=24", "LOOKAHEAD=1" }, 128, 24, 0 },
};

// scan-array (one pass, decoupled look-back) vs cub::DeviceScan::InclusiveSum, 2^28 ints.
// a = threads per block; ROUNDS int4 per thread. The status array (one word
// per tile and the ticket counter) is zeroed once: every launch is a new epoch.
// Then the experiments (above), each checked the same way: against CUB's
// output after one launch and again after the timed ones, and a look-back
// that gave up waiting (status[tiles + 3], instead of a hang) makes it WRONG.
static void bench_scan(void)
{
    bool any = wanted("scan-array (2^28 i32)");
    for (const ScanExperiment &x : SCAN_EXPERIMENTS)
        any = any || wanted((std::string("scan-array experiment ") + x.label).c_str());
    if (!any) return;
    static const Variant variants[] = {
        { "", { "ROUNDS=8" }, 256, 0 },            // as scan-array.lua launches it on a GPU
        { "ROUNDS=4", { "ROUNDS=4" }, 256, 0 },
        { "block 128 ROUNDS=8", { "ROUNDS=8" }, 128, 0 },
        { "block 128 ROUNDS=16", { "ROUNDS=16" }, 128, 0 },
        { "no sleeps", { "ROUNDS=8", "DELAY_NS=0", "SPIN_NS=0" }, 256, 0 },   // as before session 9
        { "double sleeps", { "ROUNDS=8", "DELAY_NS=2500", "SPIN_NS=1300" }, 256, 0 },
    };
    const int n = 1 << 28;
    const size_t status_words = (size_t)n / 256 + 4;          // the most tiles: 256 ints, and 4 counters
    int *in, *out_ours, *out_cub;
    unsigned long long *status;
    CHECK(cudaMalloc(&in, (size_t)n * 4));
    CHECK(cudaMalloc(&out_ours, (size_t)n * 4));
    CHECK(cudaMalloc(&out_cub, (size_t)n * 4));
    CHECK(cudaMalloc(&status, status_words * 8));
    fill_i32<<<fill_grid(), 256>>>(in, n, 111, -50, 50);
    void *temp = NULL;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out_cub, n));
    CHECK(cudaMalloc(&temp, temp_bytes));
    auto cub_scan = [&] { CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out_cub, n)); };
    cub_scan();
    double t_cub = time_ms(nothing, cub_scan);
    for (const Variant &v : variants) {
        std::string name = std::string("scan-array (2^28 i32)") + (*v.label ? std::string(" variant ") + v.label : "");
        if (!wanted(name.c_str())) continue;
        int rounds = atoi(v.defines[0].c_str() + strlen("ROUNDS="));
        int block = v.a, tile = block * 4 * rounds, tiles = (n + tile - 1) / tile;
        cudaKernel_t k = solution_kernel(solution_load("10-warp-level/solutions/scan-array.cu", v.defines), "scan");
        int nn = n;
        void *args[] = { &in, &out_ours, &status, &nn };
        CHECK(cudaMemset(status, 0, ((size_t)tiles + 1) * 8));
        CHECK(cudaMemset(out_ours, 0, (size_t)n * 4));
        auto ours = [&] { launch(k, dim3(tiles), dim3(block), args); };
        ours();
        size_t bad = count_diff(out_ours, out_cub, n);
        if (bad) fprintf(stderr, "scan-array %s: %zu of %d elements differ from CUB's\n", v.label, bad, n);
        double t_ours = time_ms(nothing, ours);
        bad += count_diff(out_ours, out_cub, n);    // still right after many launches on one status array
        add_row(name, "cub::DeviceScan::InclusiveSum", "GB/s", 8.0 * n, 1e-6, t_ours, t_cub, bad == 0);
    }
    for (const ScanExperiment &x : SCAN_EXPERIMENTS) {
        std::string name = std::string("scan-array experiment ") + x.label;
        if (!wanted(name.c_str())) continue;
        int tile = x.block * x.items, tiles = (n + tile - 1) / tile;
        int threads = x.block;
        for (const std::string &d : x.defines)
            if (d == "LOOKAHEAD=1") threads += 32;
        cudaKernel_t k = solution_kernel(source_load("bench/scan/scan-pipe.cu", x.defines), "scan");
        // Prefer shared memory over L1 (the tiles are staged there); a refusal only costs occupancy.
        if (cudaFuncSetAttribute((const void *)k, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared) != cudaSuccess)
            (void)cudaGetLastError();
        cudaFuncAttributes fa;
        memset(&fa, 0, sizeof fa);
        if (cudaFuncGetAttributes(&fa, (const void *)k) != cudaSuccess) (void)cudaGetLastError();
        int fit = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, (const void *)k, threads, 0) != cudaSuccess) {
            (void)cudaGetLastError();
            fit = 0;
        }
        int per_sm = x.per_sm < 0 ? std::max(fit, 1) : x.per_sm;
        int grid = x.per_sm == 0 ? tiles : per_sm * g_sms;
        printf("    (%s: %d registers, %zu B shared, %d blocks fit per SM, grid %d)\n", x.label, fa.numRegs,
               fa.sharedSizeBytes, fit, grid);
        int nn = n;
        void *args[] = { &in, &out_ours, &status, &nn };
        CHECK(cudaMemset(status, 0, ((size_t)tiles + 4) * 8));
        CHECK(cudaMemset(out_ours, 0, (size_t)n * 4));
        auto ours = [&] { launch(k, dim3(grid), dim3(threads), args); };
        auto gave_up = [&] {
            unsigned long long g = 0;
            CHECK(cudaMemcpy(&g, status + tiles + 3, 8, cudaMemcpyDeviceToHost));
            if (g) fprintf(stderr, "scan-array experiment %s: a look-back gave up waiting\n", x.label);
            return g != 0;
        };
        ours();
        size_t bad = count_diff(out_ours, out_cub, n);
        if (bad) fprintf(stderr, "scan-array experiment %s: %zu of %d elements differ from CUB's\n", x.label, bad, n);
        bool stuck = gave_up();
        double t_ours = stuck ? 0.0 : time_ms(nothing, ours);     // one that got stuck once is not timed
        if (!stuck) {
            bad += count_diff(out_ours, out_cub, n);
            stuck = gave_up();
        }
        add_row(name, "cub::DeviceScan::InclusiveSum", "GB/s", 8.0 * n, 1e-6, stuck ? 1e9 : t_ours, t_cub,
                bad == 0 && !stuck);
    }
    CHECK(cudaFree(temp));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out_ours));
    CHECK(cudaFree(out_cub));
    CHECK(cudaFree(status));
}

// transpose-tiled vs a device-to-device copy of the same bytes, 8192 x 8192 floats.
// a = TILE (blockDim.x, the tile's side), b = ROWS (blockDim.y).
static void bench_transpose(void)
{
    if (!wanted("transpose-tiled")) return;
    static const Variant variants[] = {
        { "", { "TILE=64", "ROWS=4" }, 64, 4 },    // as transpose-tiled.lua launches it on a GPU
        { "32x8 (before)", { "TILE=32", "ROWS=8" }, 32, 8 },
        { "32x4", { "TILE=32", "ROWS=4" }, 32, 4 },
        { "64x8", { "TILE=64", "ROWS=8" }, 64, 8 },
        { "64x2", { "TILE=64", "ROWS=2" }, 64, 2 },
    };
    const int rows = 8192, cols = 8192;
    const size_t n = (size_t)rows * cols;
    float *in, *out, *want, *copy;
    CHECK(cudaMalloc(&in, n * 4));
    CHECK(cudaMalloc(&out, n * 4));
    CHECK(cudaMalloc(&want, n * 4));
    CHECK(cudaMalloc(&copy, n * 4));
    fill_f32<<<fill_grid(), 256>>>(in, n, 41, -100.0f, 100.0f);
    transpose_plain<<<dim3((cols + 31) / 32, (rows + 7) / 8), dim3(32, 8)>>>(want, in, rows, cols);
    CHECK(cudaGetLastError());
    auto memcpy_d2d = [&] { CHECK(cudaMemcpyAsync(copy, in, n * 4, cudaMemcpyDeviceToDevice, 0)); };
    double t_copy = time_ms(nothing, memcpy_d2d);
    for (const Variant &v : variants) {
        cudaKernel_t k = solution_kernel(solution_load("04-shared-memory/solutions/transpose-tiled.cu", v.defines),
                                         "transpose");
        int r = rows, c = cols, tile = v.a;
        void *args[] = { &out, &in, &r, &c };
        dim3 grid((cols + tile - 1) / tile, (rows + tile - 1) / tile), block(v.a, v.b);
        auto ours = [&] { launch(k, grid, block, args); };
        CHECK(cudaMemset(out, 0, n * 4));
        ours();
        size_t bad = count_diff(out, want, n);
        if (bad) fprintf(stderr, "transpose-tiled %s: %zu of %zu elements wrong\n", v.label, bad, n);
        double t_ours = time_ms(nothing, ours);
        std::string name = std::string("transpose-tiled (8192^2 f32)") + (*v.label ? std::string(" variant ") + v.label : "");
        add_row(name, "cudaMemcpy D2D", "GB/s", 8.0 * n, 1e-6, t_ours, t_copy, bad == 0);
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(want));
    CHECK(cudaFree(copy));
}

// histogram_shared (chapter 10) vs cub::DeviceHistogram::HistogramEven, 256 bins of 2^28 + 7 bytes.
// a = threads per block, b = blocks per SM (grid = b x SMs, grid-stride).
static void bench_histogram(void)
{
    if (!wanted("histogram")) return;
    static const Variant variants[] = {
        { "", { "COPIES=32", "UNROLL=2" }, 256, 6 },     // as histogram.lua launches it on a GPU
        { "UNROLL=1", { "COPIES=32", "UNROLL=1" }, 256, 6 },
        { "UNROLL=4", { "COPIES=32", "UNROLL=4" }, 256, 6 },
        { "4 blocks/SM", { "COPIES=32", "UNROLL=2" }, 256, 4 },
        { "block 512 x 3/SM", { "COPIES=32", "UNROLL=2" }, 512, 3 },
        { "block 192 x 6/SM", { "COPIES=32", "UNROLL=2" }, 192, 6 },
        { "COPIES=16 8/SM", { "COPIES=16", "UNROLL=2" }, 256, 8 },
        { "COPIES=8 8/SM", { "COPIES=8", "UNROLL=2" }, 256, 8 },
    };
    const int n = (1 << 28) + 7;
    unsigned char *data;
    unsigned int *hist_ours, *hist_cub;
    CHECK(cudaMalloc(&data, n));
    CHECK(cudaMalloc(&hist_ours, 256 * 4));
    CHECK(cudaMalloc(&hist_cub, 256 * 4));
    fill_u8<<<fill_grid(), 256>>>(data, n, 71);
    void *temp = NULL;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, data, hist_cub, 257, 0, 256, n));
    CHECK(cudaMalloc(&temp, temp_bytes));
    auto cub_hist = [&] {
        CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, data, hist_cub, 257, 0, 256, n));
    };
    cub_hist();
    double t_cub = time_ms(nothing, cub_hist);
    auto zero = [&] { CHECK(cudaMemsetAsync(hist_ours, 0, 256 * 4, 0)); };
    for (const Variant &v : variants) {
        cudaKernel_t k = solution_kernel(solution_load("10-warp-level/solutions/histogram.cu", v.defines),
                                         "histogram_shared");
        int nn = n;
        void *args[] = { &data, &nn, &hist_ours };
        dim3 grid(g_sms * v.b), block(v.a);
        auto ours = [&] { launch(k, grid, block, args); };
        zero();
        ours();
        size_t bad = count_diff(hist_ours, hist_cub, 256);
        if (bad) fprintf(stderr, "histogram %s: %zu of 256 bins differ from CUB's\n", v.label, bad);
        double t_ours = time_ms(zero, ours);
        std::string name = std::string("histogram (2^28+7 u8)") + (*v.label ? std::string(" variant ") + v.label : "");
        add_row(name, "cub::DeviceHistogram::HistogramEven", "GB/s", (double)n, 1e-6, t_ours, t_cub, bad == 0);
    }
    CHECK(cudaFree(temp));
    CHECK(cudaFree(data));
    CHECK(cudaFree(hist_ours));
    CHECK(cudaFree(hist_cub));
}

// One SGEMM solution: its file, kernel, and launch shape (as its .lua launches it).
struct Sgemm {
    const char *name, *file;
    int tile_m, tile_n;                      // C tile per block
    int bx, by;                              // block
    bool rows_on_x;                          // grid.x over row tiles (chapter 18's first three steps)
    bool experiment = false;                 // file is relative to the repository root, not lessons/
};

static const Sgemm SGEMMS[] = {
    { "sgemm-tiled (11)", "11-roofline/solutions/sgemm-tiled.cu", 64, 64, 16, 16, false },
    { "matmul-naive", "18-matmul/solutions/matmul-naive.cu", 32, 32, 32, 32, true },
    { "matmul-coalesced", "18-matmul/solutions/matmul-coalesced.cu", 32, 32, 32, 32, true },
    { "matmul-smem", "18-matmul/solutions/matmul-smem.cu", 32, 32, 32, 32, true },
    { "matmul-regs-1d", "18-matmul/solutions/matmul-regs-1d.cu", 64, 64, 64, 8, false },
    { "matmul-regs-2d", "18-matmul/solutions/matmul-regs-2d.cu", 128, 128, 16, 16, false },
    { "matmul-float4", "18-matmul/solutions/matmul-float4.cu", 128, 128, 16, 16, false },
    { "matmul-warptile", "18-matmul/solutions/matmul-warptile.cu", 128, 128, 16, 16, false },
    { "matmul-double-buffer", "18-matmul/solutions/matmul-double-buffer.cu", 128, 128, 16, 16, false },
    { "matmul-warptile BK=16 (experiment)", "bench/sgemm/warptile-bk16.cu", 128, 128, 16, 16, false, true },
};

// Every SGEMM of the course vs cublasSgemm (FP32, no TF32) at 4096^3, row-major C = A B.
static void bench_sgemm(void)
{
    bool any = false;
    for (const Sgemm &s : SGEMMS) any = any || wanted(s.name);
    if (!any) return;
    const int S = 4096;
    const size_t n = (size_t)S * S;
    float *A, *B, *C, *C_ref;
    CHECK(cudaMalloc(&A, n * 4));
    CHECK(cudaMalloc(&B, n * 4));
    CHECK(cudaMalloc(&C, n * 4));
    CHECK(cudaMalloc(&C_ref, n * 4));
    fill_f32<<<fill_grid(), 256>>>(A, n, 183, -1.0f, 1.0f);
    fill_f32<<<fill_grid(), 256>>>(B, n, 184, -1.0f, 1.0f);
    cublasHandle_t h;
    CHECK_CUBLAS(cublasCreate(&h));
    CHECK_CUBLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    if (getenv("NVIDIA_TF32_OVERRIDE"))
        printf("  (NVIDIA_TF32_OVERRIDE=%s is set)\n", getenv("NVIDIA_TF32_OVERRIDE"));
    const float one = 1.0f, zero = 0.0f;
    // Column-major cuBLAS computes C^T = B^T A^T: the row-major product.
    auto cublas = [&] { CHECK_CUBLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, S, S, S, &one, B, S, A, S, &zero, C_ref, S)); };
    cublas();
    double t_cublas = time_ms(nothing, cublas);
    double flops = 2.0 * S * S * S;
    printf("  %-30s %9.3f ms = %.2f TFLOP/s\n", "cublasSgemm (FP32)", t_cublas, flops / t_cublas * 1e-9);
    for (const Sgemm &s : SGEMMS) {
        if (!wanted(s.name)) continue;
        cudaKernel_t k = solution_kernel(s.experiment ? source_load(s.file) : solution_load(s.file), "sgemm");
        int m = S, nn = S, kk = S;
        void *args[] = { &A, &B, &C, &m, &nn, &kk };
        dim3 grid = s.rows_on_x ? dim3((S + s.tile_m - 1) / s.tile_m, (S + s.tile_n - 1) / s.tile_n)
                                : dim3((S + s.tile_n - 1) / s.tile_n, (S + s.tile_m - 1) / s.tile_m);
        dim3 block(s.bx, s.by);
        auto ours = [&] { launch(k, grid, block, args); };
        CHECK(cudaMemset(C, 0, n * 4));
        ours();
        CHECK(cudaDeviceSynchronize());
        float d = max_diff(C, C_ref, n);
        bool ok = d <= 1e-3f * sqrtf((float)S);
        if (!ok) fprintf(stderr, "%s: largest difference from cuBLAS %g\n", s.name, d);
        double t = time_ms(nothing, ours);
        add_row(std::string(s.name) + " (4096^3)", "cublasSgemm", "TFLOP/s", flops, 1e-9, t, t_cublas, ok);
    }
    CHECK_CUBLAS(cublasDestroy(h));
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(C));
    CHECK(cudaFree(C_ref));
}

static void print_table(void)
{
    printf("\n%-52s %10s %12s   %-36s %10s %12s %8s  %s\n", "ours", "ms", "rate", "anchor", "ms", "rate",
           "ours/anc", "check");
    for (const Row &r : g_rows)
        printf("%-52s %10.3f %8.1f %-5s  %-36s %10.3f %8.1f %-5s %7.1f%%  %s\n", r.name.c_str(), r.ours_ms,
               r.ours_rate, r.unit.c_str(), r.anchor.c_str(), r.anchor_ms, r.anchor_rate, r.unit.c_str(),
               100.0 * r.ours_rate / r.anchor_rate, r.ok ? "ok" : "WRONG");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--lessons") && i + 1 < argc) g_lessons = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) g_reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) g_only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--lessons DIR] [--reps N (>= 1, default 30)] [--only TEXT]\n", argv[0]);
            return 2;
        }
    }
    if (g_reps < 1) g_reps = 1;
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    g_cc = p.major * 10 + p.minor;
    g_sms = p.multiProcessorCount;
    g_flush_bytes = std::max<size_t>((size_t)p.l2CacheSize * 4, 64u << 20);
    CHECK(cudaMalloc(&g_flush, g_flush_bytes));
    int nvrtc_major = 0, nvrtc_minor = 0;
    nvrtcVersion(&nvrtc_major, &nvrtc_minor);
    printf("%s (sm_%d, %d SMs, L2 %d MiB); NVRTC %d.%d; cuBLAS %d; median of %d after 3 warm-ups, L2 "
           "flushed before each\n", p.name, g_cc, g_sms, p.l2CacheSize >> 20, nvrtc_major, nvrtc_minor,
           CUBLAS_VERSION, g_reps);
    bench_reduce();
    bench_scan();
    bench_transpose();
    bench_histogram();
    bench_sgemm();
    print_table();
    CHECK(cudaFree(g_flush));
    if (g_failures) fprintf(stderr, "%d result(s) differ from their anchor's\n", g_failures);
    return g_failures ? 1 : 0;
}
