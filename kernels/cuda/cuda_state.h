/* kernels/cuda/cuda_state.h: the GPU backend's state, which cuda_backend.c
 * (memory, modules, launches), cuda_streams.c (streams, events, the
 * timeline) and cuda_peaks.c (the device's measured peaks) share: the
 * device, its allocation table and the sticky-error flag. cuda_state.c owns
 * the functions on it, so neither file calls back into the other. Internal
 * to kernels/cuda/. */
#ifndef CUDOJO_KERNELS_CUDA_STATE_H
#define CUDOJO_KERNELS_CUDA_STATE_H

#include <cuda_runtime_api.h>
#include <stdbool.h>

#include "kernels/backend.h"

typedef struct CudaStreams CudaStreams;

typedef struct CudaAlloc {
    DevPtr ptr;
    size_t bytes;
    size_t elem_size;
    char *label;
} CudaAlloc;

/* Timed repetitions queued behind one host gate (cuda_backend.c timed_runs). */
#define CUDA_TIMED_BATCH 32

typedef struct CudaBackend {
    Backend base;
    int device;
    DeviceInfo info;
    bool broken;                    /* a sticky error happened: the context is lost */
    char *broken_why;
    CudaAlloc *allocs;
    int n_allocs, cap_allocs;
    cudaEvent_t timed_ev[2 * CUDA_TIMED_BATCH];    /* start/stop pairs of one batch of timed runs */
    void *flush_buf;                /* a buffer larger than L2, memset between timed runs */
    size_t flush_bytes;
    double peak_gbs;                /* 0 = not looked up yet (cuda_peaks.c) */
    CudaStreams *streams;           /* streams, events, the event-timed timeline */
    struct HostPool *host_pool;     /* the Lua arrays' big host buffers, page-locked (kernels/host_pool.h);
                                       made on first use */
} CudaBackend;

static inline CudaBackend *cuda_state_of(Backend *b) { return (CudaBackend *)b; }

/* A failed cudart call as a Diag: what it means for the learner (kernel, file,
 * cfg and regs may be NULL / -1); marks the backend broken on sticky errors
 * and clears a non-sticky one so the next call starts clean. */
Diag *cuda_state_fail_at(CudaBackend *c, int err, const char *what, const char *kernel, const char *file,
                         const LaunchConfig *cfg, int regs);
/* The same outside a launch. */
Diag *cuda_state_fail(Backend *b, int err, const char *what);
/* NULL while the GPU is usable, else a CUDA_DIAG_STICKY error. */
Diag *cuda_state_check(Backend *b);
CudaStreams *cuda_state_streams(Backend *b);
/* The allocation holding [p, p+bytes), or NULL. */
CudaAlloc *cuda_state_alloc_find(CudaBackend *c, DevPtr p, size_t bytes);
/* NULL when [p, p+bytes) lies inside one allocation, else why not ("copy
 * into a of 40 bytes at offset 8, but a has 32 bytes"). */
Diag *cuda_state_check_range(Backend *b, DevPtr p, size_t bytes, const char *dir);
/* The label of the allocation holding p ("memory" when none). */
const char *cuda_state_label(Backend *b, DevPtr p);

#endif
