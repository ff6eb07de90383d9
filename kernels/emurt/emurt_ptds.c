/* kernels/emurt/emurt_ptds.c: the entry points a program built with
 * `nvcc --default-stream per-thread` calls instead of the usual ones
 * (cuda_runtime_api.h renames cudaMemcpy2D to cudaMemcpy2D_ptds,
 * cudaMemcpy2DAsync to cudaMemcpy2DAsync_ptsz, ...): the same call, with
 * stream 0 and the synchronous calls' stream meaning the calling thread's
 * per-thread default stream. The most used ones (cudaMemcpy, cudaMemset,
 * launches, stream and event calls) have their own _ptsz paths in their
 * files; these are the rest, through rt_ptsz. */
#include "kernels/emurt/emurt_internal.h"

#define PTSZ(call)                                                                         \
    do {                                                                                   \
        rt_ptsz(true);                                                                     \
        cudaError_t rc_ = (call);                                                          \
        rt_ptsz(false);                                                                    \
        return rc_;                                                                        \
    } while (0)

cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind) {
    PTSZ(cudaMemcpyToSymbol(symbol, src, count, offset, kind));
}

cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind) {
    PTSZ(cudaMemcpyFromSymbol(dst, symbol, count, offset, kind));
}

cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count, size_t offset,
                                         enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count, size_t offset,
                                         enum cudaMemcpyKind kind, cudaStream_t stream) {
    PTSZ(cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, stream));
}

cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind, cudaStream_t stream) {
    PTSZ(cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream));
}

cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind) {
    PTSZ(cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind));
}

cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                   size_t height, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                   size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
    PTSZ(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream));
}

cudaError_t cudaMemset2D_ptds(void *dst, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2D_ptds(void *dst, size_t pitch, int value, size_t width, size_t height) {
    PTSZ(cudaMemset2D(dst, pitch, value, width, height));
}

cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p) { PTSZ(cudaMemcpy3D(p)); }

cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream);
cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream) {
    PTSZ(cudaMemcpy3DAsync(p, stream));
}

cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pp, int value, struct cudaExtent ext);
cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pp, int value, struct cudaExtent ext) {
    PTSZ(cudaMemset3D(pp, value, ext));
}

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t st, unsigned int *flags);
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t st, unsigned int *flags) { PTSZ(cudaStreamGetFlags(st, flags)); }

cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t st, int *priority);
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t st, int *priority) { PTSZ(cudaStreamGetPriority(st, priority)); }

cudaError_t cudaMemPrefetchAsync_ptsz(const void *p, size_t count, struct cudaMemLocation loc, unsigned int flags,
                                      cudaStream_t stream);
cudaError_t cudaMemPrefetchAsync_ptsz(const void *p, size_t count, struct cudaMemLocation loc, unsigned int flags,
                                      cudaStream_t stream) {
    PTSZ(cudaMemPrefetchAsync(p, count, loc, flags, stream));
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func, void **args);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func, void **args) {
    PTSZ(cudaLaunchKernelExC(config, func, args));
}
