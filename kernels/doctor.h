/* kernels/doctor.h: what this machine has for running CUDA, as JSON, for
 * `cudojo doctor`: toolkit, NVRTC (and whether a trivial compile works),
 * cudart, driver, GPUs, whether the GPU backend works and why not, and the
 * device's measured peaks. */
#ifndef CUDOJO_KERNELS_DOCTOR_H
#define CUDOJO_KERNELS_DOCTOR_H

#include <jansson.h>

/* Returns a new object (caller decrefs):
 * {
 *   "toolkit": {"path": "/usr/local/cuda", "found": true, "version": "13.0.88" | null,
 *               "include_dir": "/usr/local/cuda/include" | null},
 *   "nvrtc":   {"version": "13.0" | null, "works": true, "compile_ms": 41.5,
 *               "error": "..." (only when it does not work)},
 *   "nvcc":    {"path": "/usr/local/cuda/bin/nvcc" | null, "version": "13.0" | null,
 *               "works": true, "compile_ms": 900.5 (an uncached test program),
 *               "error": "..." (only when it does not work)},
 *   "emurt":   {"found": true, "dir": ".../emurt" | null, "library": "libcudart.so.13"},
 *   "inject":  {"found": false, "path": ".../libcudojo_inject.so" | null},
 *   "cudart":  {"version": "13.0", "raw": 13000},
 *   "driver":  {"version": "13.0" | null, "raw": 13000 (0 when there is no driver)},
 *   "gpus":    [{"index": 0, "name": "NVIDIA H200", "cc": "9.0", "sms": 132,
 *                "memory_bytes": 150..., "memory_gib": 139.8}],
 *   "gpu_error": "CUDA driver version is insufficient ..." (only when no GPU is usable),
 *   "driver_installed": true,
 *   "backends": {"cuda": {"works": false, "why": "no GPU: ..."}, "emu": null}
 * }
 * With a working GPU, backends.cuda also has "timeline" ("cupti" | "events"),
 * "cupti_why", and "peaks": {"copy_gbs": 4270.1, "copy_from": "copy kernel" |
 * "cudaMemcpy", "kernel_gbs", "memcpy_gbs", "kernel_spread", "memcpy_spread",
 * "kernel_config", "fp32_gflops", "fp64_gflops", "bytes", "reps",
 * "fingerprint", "device", "measured_at", "measure_ms", "cached": true when
 * read from the cache, "cache": its path} (or {"error", "cache"}); a first
 * doctor on a device measures them (a second or two).
 * "backends.emu" is left null for the caller to fill. Opening the GPU backend
 * creates a CUDA context in this process (run it in the worker when that
 * matters). Takes about a second without a GPU, most of it the test
 * compile with nvcc. */
json_t *kernels_doctor(void);

#endif
