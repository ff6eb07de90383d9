/* kernels/cuda/cuda_state.c: the functions on the GPU backend's shared state
 * (cuda_state.h): sticky errors and the allocation table. */
#include "kernels/cuda/cuda_state.h"

#include <stdint.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/cuda_internal.h"

Diag *cuda_state_fail_at(CudaBackend *c, int err, const char *what, const char *kernel, const char *file,
                         const LaunchConfig *cfg, int regs) {
    bool sticky = false;
    cudaError_t e = (cudaError_t)err;
    Diag *d = cuda_error_diag(err, cudaGetErrorString(e), what, kernel, file, cfg, regs, &c->info, &sticky);
    if (sticky && !c->broken) {
        c->broken = true;
        c->broken_why = xstrdup(d->message);
    } else if (!sticky) {
        (void)cudaGetLastError();   /* clear a non-sticky error so the next call starts clean */
    }
    return d;
}

Diag *cuda_state_fail(Backend *b, int err, const char *what) {
    return cuda_state_fail_at(cuda_state_of(b), err, what, NULL, NULL, NULL, -1);
}

Diag *cuda_state_check(Backend *b) {
    const CudaBackend *c = cuda_state_of(b);
    if (!c->broken) return NULL;
    return diag_new(DIAG_ERROR, CUDA_DIAG_STICKY, NULL, 0, 0,
                    "the GPU is unusable after an earlier error in this process (%s)",
                    c->broken_why ? c->broken_why : "a sticky CUDA error");
}

CudaStreams *cuda_state_streams(Backend *b) { return cuda_state_of(b)->streams; }

CudaAlloc *cuda_state_alloc_find(CudaBackend *c, DevPtr p, size_t bytes) {
    for (int i = 0; i < c->n_allocs; i++) {
        CudaAlloc *a = &c->allocs[i];
        if (p >= a->ptr && p - a->ptr <= a->bytes && bytes <= a->bytes - (p - a->ptr)) return a;
    }
    return NULL;
}

Diag *cuda_state_check_range(Backend *b, DevPtr p, size_t bytes, const char *dir) {
    CudaBackend *c = cuda_state_of(b);
    if (cuda_state_alloc_find(c, p, bytes)) return NULL;
    for (int i = 0; i < c->n_allocs; i++) {
        CudaAlloc *a = &c->allocs[i];
        if (p >= a->ptr && p < a->ptr + (a->bytes ? a->bytes : 1))
            return diag_error("gpu", "copy %s %s of %zu bytes at offset %llu, but %s has %zu bytes",
                              dir, a->label, bytes, (unsigned long long)(p - a->ptr), a->label, a->bytes);
    }
    return diag_error("gpu", "copy %s a device address that is not allocated (0x%llx)", dir,
                      (unsigned long long)p);
}

const char *cuda_state_label(Backend *b, DevPtr p) {
    CudaAlloc *a = cuda_state_alloc_find(cuda_state_of(b), p, 0);
    return a ? a->label : "memory";
}
