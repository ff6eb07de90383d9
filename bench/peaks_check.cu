// bench/peaks_check.cu: is cudojo's copy bandwidth honest and stable?
//
// In one process, 5 times: cudojo's figure (cuda_peaks_measure, exactly what
// `cudojo doctor` caches and every "% of the copy bandwidth" divides by,
// measured fresh each time) and a plain cudaMemcpy device-to-device of 2^29
// floats (warm-up, then the median of 31 event-timed copies), both counting
// bytes read + written; prints both, their ratio, and the spread of each
// across the 5 repetitions. Goal (issue 15 item 2): cudojo within 2% of
// cudaMemcpy, both varying < 2% between repetitions. Then the FP32/FP64 FMA
// peaks once.
//
// Build and run (needs a GPU; links the engine's archive, compiled with nvcc):
//   make BUILD=build peaks-check && build/bench/peaks_check
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "kernels/cuda/cuda_peaks.h"
}

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t err, const char *what, const char *file, int line) {
    if (err == cudaSuccess) return;
    std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, cudaGetErrorString(err));
    std::exit(1);
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double spread(const std::vector<double> &v) {
    auto mm = std::minmax_element(v.begin(), v.end());
    return (*mm.second - *mm.first) / median(v);
}

// A plain device-to-device cudaMemcpy of `floats` floats: GB/s read + written, median of `reps`.
static double plain_memcpy_gbs(size_t floats, int reps) {
    size_t bytes = floats * sizeof(float);
    float *src = nullptr, *dst = nullptr;
    cudaCheck(cudaMalloc(&src, bytes));
    cudaCheck(cudaMalloc(&dst, bytes));
    cudaCheck(cudaMemset(src, 0x3c, bytes));
    cudaEvent_t e0, e1;
    cudaCheck(cudaEventCreate(&e0));
    cudaCheck(cudaEventCreate(&e1));
    for (int w = 0; w < 5; w++) cudaCheck(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    // validate before timing: the last float arrived
    float last = 0;
    cudaCheck(cudaMemcpy(&last, dst + floats - 1, sizeof last, cudaMemcpyDeviceToHost));
    unsigned bits = 0x3c3c3c3c;
    if (std::memcmp(&last, &bits, 4) != 0) {
        std::fprintf(stderr, "peaks_check: the plain copy did not copy\n");
        std::exit(1);
    }
    std::vector<double> ms;
    for (int r = 0; r < reps; r++) {
        cudaCheck(cudaEventRecord(e0));
        cudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
        cudaCheck(cudaEventRecord(e1));
        cudaCheck(cudaEventSynchronize(e1));
        float t = 0;
        cudaCheck(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
    }
    cudaCheck(cudaEventDestroy(e0));
    cudaCheck(cudaEventDestroy(e1));
    cudaCheck(cudaFree(src));
    cudaCheck(cudaFree(dst));
    return 2.0 * (double)bytes / (median(ms) * 1e-3) / 1e9;
}

int main() {
    const int rounds = 5;
    const size_t floats = (size_t)1 << 29;
    cudaCheck(cudaSetDevice(0));
    cudaCheck(cudaFree(nullptr));
    cudaDeviceProp p;
    cudaCheck(cudaGetDeviceProperties(&p, 0));
    char fp[512];
    Diag *d = cuda_peaks_fingerprint(0, fp, sizeof fp);
    std::printf("device: %s\nfingerprint: %s\n\n", p.name, d ? "?" : fp);
    diag_free(&d);
    std::printf("%5s %12s %-12s %12s %12s %14s %8s\n", "round", "cudojo GB/s", "(from)", "kernel GB/s", "memcpy GB/s",
                "plain cudaMemcpy", "ratio");
    std::vector<double> ours, plain, ratio;
    CudaPeaks last = {};
    for (int r = 0; r < rounds; r++) {
        CudaPeaksOptions o = {};
        o.skip_flops = true;
        o.compile_cache_dir = "";      // every round compiles and measures from scratch, as a first run does
        CudaPeaks pk;
        d = cuda_peaks_measure(0, &o, &pk);
        if (d) {
            std::fprintf(stderr, "peaks_check: cuda_peaks_measure: %s\n", d->message);
            return 1;
        }
        double pl = plain_memcpy_gbs(floats, 31);
        ours.push_back(pk.copy_gbs);
        plain.push_back(pl);
        ratio.push_back(pk.copy_gbs / pl);
        std::printf("%5d %12.1f %-12s %12.1f %12.1f %14.1f %8.4f\n", r + 1, pk.copy_gbs, pk.copy_from, pk.kernel_gbs,
                    pk.memcpy_gbs, pl, pk.copy_gbs / pl);
        last = pk;
    }
    std::printf("\ncopy kernel: %s; %.2f GiB per buffer, %d reps\n", last.kernel_config,
                (double)last.bytes / (1u << 30), last.reps);
    double worst = 0;
    for (double x : ratio) worst = std::max(worst, std::abs(x - 1));
    std::printf("cudojo vs plain cudaMemcpy: median ratio %.4f, worst |ratio - 1| %.2f%%  (goal < 2%%: %s)\n",
                median(ratio), 100 * worst, worst < 0.02 ? "met" : "NOT met");
    std::printf("spread over %d rounds: cudojo %.2f%%, plain cudaMemcpy %.2f%%  (goal < 2%%: %s)\n", rounds,
                100 * spread(ours), 100 * spread(plain), spread(ours) < 0.02 ? "met" : "NOT met");

    CudaPeaks f;
    CudaPeaksOptions o = {};
    o.reps = 5;
    o.bytes = (size_t)64 << 20;
    d = cuda_peaks_measure(0, &o, &f);
    if (d) {
        std::fprintf(stderr, "peaks_check: FMA peaks: %s\n", d->message);
        return 1;
    }
    std::printf("FMA peaks: FP32 %.1f TFLOP/s, FP64 %.1f TFLOP/s\n", f.fp32_gflops / 1e3, f.fp64_gflops / 1e3);
    return 0;
}
