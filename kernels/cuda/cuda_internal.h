/* kernels/cuda/cuda_internal.h: the parts of the GPU backend that need no
 * GPU (error wording, launch-configuration checks, PTX parameter layout), so
 * CI can test them on a machine without one. */
#ifndef CUDOJO_KERNELS_CUDA_INTERNAL_H
#define CUDOJO_KERNELS_CUDA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "kernels/backend.h"

/* What a cudaError_t means for the learner. `err` is the cudaError_t value,
 * `err_text` cudaGetErrorString's text, `kernel` the exercise's kernel name
 * (NULL outside a launch), `file` the learner's .cu (may be NULL), `regs` the
 * kernel's registers per thread (-1 unknown). *sticky is set when the CUDA
 * context is lost. Caller frees. */
Diag *cuda_error_diag(int err, const char *err_text, const char *what, const char *kernel,
                      const char *file, const LaunchConfig *cfg, int regs, const DeviceInfo *dev,
                      bool *sticky);

/* Checks a launch against the device's limits before CUDA sees it, so the
 * message can say which number is too big. NULL when fine. */
Diag *cuda_check_launch(const DeviceInfo *dev, const LaunchConfig *cfg, const char *kernel,
                        const char *file, int regs);

/* Byte sizes of the parameters of `.entry entry(...)` in `ptx`: returns the
 * count (at most max stored in sizes) or -1 when the entry is absent. */
int cuda_ptx_params(const char *ptx, const char *entry, size_t *sizes, int max);

/* Checks that args match the kernel's parameters (count and sizes). */
Diag *cuda_check_args(const char *ptx, const char *lowered, const char *kernel, const char *file,
                      const KernelArg *args, int nargs);

#endif
