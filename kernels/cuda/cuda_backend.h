/* kernels/cuda/cuda_backend.h: what the GPU backend offers beyond the
 * Backend interface (kernels/backend.h). Includes no CUDA header, so app/
 * may use it.
 *
 * Sticky errors: after an illegal address, misaligned access, failed assert,
 * trap or watchdog timeout the CUDA context is unusable until the process
 * exits. The backend then answers every call with a Diag of code
 * CUDA_DIAG_STICKY and cuda_backend_usable() returns false: the runner
 * worker must report the error and restart itself (DESIGN.md decision 3). */
#ifndef CUDOJO_KERNELS_CUDA_BACKEND_H
#define CUDOJO_KERNELS_CUDA_BACKEND_H

#include <stdbool.h>

#include "base/i18n.h"
#include "kernels/backend.h"

/* Diag code of an error after which the process must restart to use the GPU again. */
#define CUDA_DIAG_STICKY "gpu-fault"

/* False once a sticky error happened (or b is not a cuda backend). */
bool cuda_backend_usable(const Backend *b);
/* CUDA GPUs on this machine (cudaGetDeviceCount; 0 on any error). */
int cuda_gpu_count(void);
/* Whether an NVIDIA driver is installed: /dev/nvidiactl exists or libcuda.so.1 loads. */
bool cuda_driver_installed(void);
/* Why there is no GPU, for a learner: cudart's message for cuda_error,
 * except that with no driver installed its "CUDA driver version is
 * insufficient for CUDA runtime version" becomes CUDA_NO_DRIVER. Static,
 * English (translated where shown: base/i18n_zh.c has cudart's usual ones). */
#define CUDA_NO_DRIVER N_("no NVIDIA driver found on this machine (no /dev/nvidiactl, no libcuda.so.1)")
const char *cuda_no_gpu_reason(int cuda_error, bool driver_installed);

/* The GPU's part of `cudojo doctor` (cuda_doctor.c; caller decrefs):
 * {"driver_installed": true, "gpu_error": "..." (only when no GPU is usable),
 *  "gpus": [...] (as kernels/doctor.h describes),
 *  "cuda": {"works": true, "why": "..." (when not), "timeline": "cupti" | "events",
 *           "cupti_why": "...", "peaks": {cuda_peaks_to_json's fields, "cache": path}
 *                                         or {"error": "...", "cache": path}}}
 * Reached through the factory: backend_gpu_probe (kernels/backend.h). */
json_t *cuda_doctor_probe(void);

/* What cudaOccupancyMaxActiveBlocksPerMultiprocessor says for `kernel` of
 * module m with `block` threads and dyn_smem bytes of dynamic shared memory
 * (opting in above 48 KiB as a launch does); *registers (may be NULL) gets
 * the register count the runtime sees (cudaFuncGetAttributes). */
Diag *cuda_backend_occupancy(Backend *b, BackendModule *m, const char *kernel, int block, size_t dyn_smem,
                             int *blocks_per_sm, int *registers);

/* What the loaded function really uses (cudaFuncGetAttributes): registers per
 * thread, local memory per thread and static shared memory. On a GPU these are
 * the numbers of the code that runs (a cubin, or the driver's JIT of the PTX),
 * so they win over ptxas's log. */
Diag *cuda_backend_kernel_resources(Backend *b, BackendModule *m, const char *kernel, int *registers,
                                    int *local_bytes, int *shared_static);

#endif
