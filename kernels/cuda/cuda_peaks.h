/* kernels/cuda/cuda_peaks.h: the device's honest peaks: device-to-device
 * copy bandwidth and FP32/FP64 FMA throughput, measured once per device and
 * driver and cached under the cache dir with a fingerprint of both.
 *
 * Every "% of the copy bandwidth" a learner sees is divided by copy_gbs, so
 * it must be what a good copy really reaches: the better of a tuned copy
 * kernel (float4 loads, one to four per thread per step, grid-stride, a
 * small search over block size, grid and unroll) and cudaMemcpy
 * device-to-device, each the median of many repetitions over 2 GiB buffers
 * (2^29 floats). Bandwidth counts every byte read and written (2 x bytes
 * per copy), as torch and cudaMemcpy benchmarks do. The fingerprint (device
 * name, UUID, driver and runtime versions, SM and memory clocks, ECC, the
 * method's version) changes when any of them does, and the figure is then
 * measured again. bench/peaks_check.cu compares cuda_peaks_measure with a
 * plain cudaMemcpy in one process.
 *
 * Includes no CUDA header; C++ may include it (bench/peaks_check.cu). */
#ifndef CUDOJO_KERNELS_CUDA_PEAKS_H
#define CUDOJO_KERNELS_CUDA_PEAKS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when the measurement changes, so cached figures of the old method
 * are measured again. */
#define CUDA_PEAKS_METHOD 1

typedef struct CudaPeaks {
    double copy_gbs;                /* the better of the two below (GB/s, read + written); < 0 unknown */
    char copy_from[32];             /* "copy kernel" or "cudaMemcpy" */
    double kernel_gbs;              /* the tuned copy kernel, median of `reps` */
    double memcpy_gbs;              /* cudaMemcpy device-to-device, median of `reps` */
    double kernel_spread;           /* (slowest - fastest) / median of its reps */
    double memcpy_spread;
    char kernel_config[96];         /* "512 threads x 4 blocks/SM, 2 float4 per thread per step" */
    double fp32_gflops;             /* FMA throughput, 2 flops each; < 0 unknown */
    double fp64_gflops;
    size_t bytes;                   /* per buffer of the copies */
    int reps;
    char device[256];
    char fingerprint[512];
    long long measured_at;          /* Unix time of the measurement */
    double measure_ms;              /* how long measuring took (compile included) */
    bool cached;                    /* read from the cache, not measured now */
} CudaPeaks;

typedef struct CudaPeaksOptions {
    size_t bytes;                   /* per buffer; 0 = 2^31 (2^29 floats), less when memory is short */
    int reps;                       /* timed repetitions of each method; 0 = 31 */
    bool skip_flops;                /* copy bandwidth only */
    const char *compile_cache_dir;  /* NVRTC's cache for the kernels (NULL default, "" none) */
} CudaPeaksOptions;

/* Measures device `device` now (the current CUDA device must be it); no
 * cache. Takes a second or two. */
Diag *cuda_peaks_measure(int device, const CudaPeaksOptions *o, CudaPeaks *out);

/* The fingerprint of `device` and this driver, as the cache stores it. */
Diag *cuda_peaks_fingerprint(int device, char *buf, size_t len);

/* The peaks of `device`: from cache_dir/peaks/gpu-<UUID>.json when its
 * fingerprint matches (out->cached), else measured now and written there.
 * cache_dir NULL = the XDG cache (~/.cache/cudojo). A cache that cannot be
 * written is not an error: the figure is still returned. */
Diag *cuda_peaks_get(int device, const char *cache_dir, CudaPeaks *out);

/* Where cuda_peaks_get keeps device's figure (caller frees). */
char *cuda_peaks_cache_path(int device, const char *cache_dir);

/* The CUDA source of the peak kernels (static): peak_copy1/2/4(const float4
 * *src, float4 *dst, unsigned long long n_float4) and peak_fma32/64(T *out,
 * T m, T c, int iters); tests run the copies on the emulator. */
const char *cuda_peaks_source(void);

/* CudaPeaks as JSON and back (the cache file; doctor's "peaks"). */
json_t *cuda_peaks_to_json(const CudaPeaks *p);
bool cuda_peaks_from_json(const json_t *j, CudaPeaks *out);

#ifdef __cplusplus
}
#endif

#endif
