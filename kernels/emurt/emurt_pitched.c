/* kernels/emurt/emurt_pitched.c: copies and memsets of pitched memory —
 * cudaMemcpy2D(Async), cudaMemset2D, cudaMalloc3D, cudaMemcpy3D(Async),
 * cudaMemset2D/3D(Async) (pitched pointers only: no CUDA arrays). Each
 * side's rows lie `pitch` bytes apart; both whole extents are validated
 * before a byte moves, the rows are copied at once and the copy is modeled
 * as one. On a capturing stream each becomes one graph node. Each keeps
 * stream order: behind a running host function or an event wait it waits
 * in the stream's queue (emurt_queue.c) like a 1D copy; an asynchronous
 * copy to or from pageable memory waits for the stream instead (it is done
 * when the call returns). */
#include <stdlib.h>
#include <string.h>

#include "kernels/emurt/emurt_internal.h"

static int stream_id_for(RtStream *s) { return s ? s->id : 0; }

/* A synchronous call from pinned memory still waits for its copy. */
static void host_waits(int dev, RtStream *s) {
    Backend *b = rt_backend(dev);
    Diag *d = b->ops->stream_synchronize(b, stream_id_for(s));
    diag_free(&d);
}

/* A 2D copy or memset waiting in a stream's queue (its arguments, for rt_queue_call). */
typedef struct Copy2D {
    void *dst;
    const void *src;
    size_t dpitch, spitch, width, height;
    enum cudaMemcpyKind kind;
} Copy2D;

typedef struct Memset3D {
    struct cudaPitchedPtr pp;
    int value;
    struct cudaExtent ext;
    bool is3d;
} Memset3D;

static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                          enum cudaMemcpyKind kind, RtStream *s, bool sync);
static cudaError_t memset2d(void *dst, size_t pitch, int value, size_t width, size_t height, RtStream *s);
static cudaError_t memset3d(struct cudaPitchedPtr pp, int value, struct cudaExtent ext, RtStream *s);

static void run_queued_copy2d(RtStream *s, RtQOp *op) {
    const Copy2D *c = op->blob;
    copy2d(c->dst, c->dpitch, c->src, c->spitch, c->width, c->height, c->kind, s, false);
}

static void run_queued_memset(RtStream *s, RtQOp *op) {
    const Memset3D *m = op->blob;
    if (m->is3d) memset3d(m->pp, m->value, m->ext, s);
    else memset2d(m->pp.ptr, m->pp.pitch, m->value, m->ext.width, m->ext.height, s);
}

/* In *span the bytes from the first row's start to the last row's end:
 * pitch * (rows - 1) + width; false when that does not fit a size_t (the
 * wrapped sum would pass validation and the rows land anywhere). */
static bool rows_span(size_t pitch, size_t width, size_t rows, size_t *span) {
    return !__builtin_mul_overflow(pitch, rows - 1, span) && !__builtin_add_overflow(*span, width, span);
}

/* 2D copies: each side's rows `pitch` apart; done row by row, modeled as one copy. */
static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                          enum cudaMemcpyKind kind, RtStream *s, bool sync) {
    if (!width || !height) return cudaSuccess;
    if (width > dpitch || width > spitch) return cudaErrorInvalidValue; /* not InvalidPitchValue (H200) */
    if (!dst || !src) return cudaErrorInvalidValue;
    /* validate both whole extents first, as one copy of each side's span */
    size_t dspan, sspan;
    if (!rows_span(dpitch, width, height, &dspan) || !rows_span(spitch, width, height, &sspan))
        return cudaErrorInvalidValue;
    RtAlloc *da, *sa;
    bool dd = rt_device_range(dst, dspan, &da), sd = rt_device_range(src, sspan, &sa);
    if (kind == cudaMemcpyDefault)
        kind = rt_device_side(sa) ? (rt_device_side(da) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                               : (rt_device_side(da) ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    if ((unsigned)kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    if (((kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice) && !dd) ||
        ((kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice) && !sd))
        return cudaErrorInvalidValue;
    CopyDir dir = kind == cudaMemcpyHostToDevice ? COPY_H2D : kind == cudaMemcpyDeviceToHost ? COPY_D2H : COPY_D2D;
    RtAlloc *dv = kind == cudaMemcpyHostToHost ? NULL : dir == COPY_H2D || dir == COPY_D2D ? da : sa;
    RtAlloc *host = dir == COPY_H2D ? sa : dir == COPY_D2H ? da : NULL;
    bool pinned = host && host->kind == RT_MEM_PINNED;
    int dev = dv ? dv->dev : s ? s->dev : rt_current_device();
    if (!s || s->dev != dev) s = rt_default_stream(dev);
    if (!sync) {
        /* stream order: behind queued work it waits its turn; to or from
           pageable memory the call returns only when the copy is done */
        bool pageable = kind == cudaMemcpyHostToHost || (kind != cudaMemcpyDeviceToDevice && !pinned);
        if (pageable) rt_wait_stream(s);
        else if (rt_queue_needed(s)) {
            Copy2D c = {dst, src, dpitch, spitch, width, height, kind};
            rt_queue_call(s, &c, sizeof c, run_queued_copy2d);
            return cudaSuccess;
        }
    }
    for (size_t r = 0; r < height; r++) {
        rt_mem_copy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    }
    if (kind == cudaMemcpyHostToHost) return cudaSuccess;
    char name[160];
    snprintf(name, sizeof name, "copy2D %s (%zu x %zu)", dv->name, width, height);
    emu_model_copy(rt_backend(dv->dev), dir, stream_id_for(s), width * height, pinned, name);
    if (sync && (pinned || dir == COPY_D2D)) host_waits(dv->dev, s);
    return cudaSuccess;
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
    rt_enter();
    char dn[96];
    snprintf(dn, sizeof dn, "%s", rt_ptr(dst));
    cudaError_t rc = rt_sticky(rt_current_device(), true);
    if (!rc) {
        rt_wait_stream(rt_default_stream(rt_current_device()));
        rt_flush_output();
        rc = copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, true);
    }
    return rt_leave("cudaMemcpy2D", rc, 0, "%s, %zu, %s, %zu, %zu, %zu, %s", dn, dpitch, rt_ptr(src), spitch, width,
                    height, rt_kind_name(kind));
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t stream) {
    rt_enter();
    char dn[96];
    snprintf(dn, sizeof dn, "%s", rt_ptr(dst));
    RtStream *s = rt_stream(stream, false);
    cudaError_t rc = s ? rt_sticky(s->dev, false) : cudaErrorInvalidResourceHandle;
    if (!rc && s->capture) {
        struct cudaMemcpy3DParms p = {0};
        p.srcPtr = (struct cudaPitchedPtr){(void *)src, spitch, width, height};
        p.dstPtr = (struct cudaPitchedPtr){dst, dpitch, width, height};
        p.extent = (struct cudaExtent){width, height, 1};
        p.kind = kind;
        rc = width > dpitch || width > spitch || !dst || !src ? cudaErrorInvalidValue : rt_capture_copy3d(s, &p);
    } else if (!rc) rc = copy2d(dst, dpitch, src, spitch, width, height, kind, s, false);
    return rt_leave("cudaMemcpy2DAsync", rc, s ? s->id : 0, "%s, %zu, %s, %zu, %zu, %zu, %s, %s", dn, dpitch,
                    rt_ptr(src), spitch, width, height, rt_kind_name(kind), s ? rt_stream_name(s) : "?");
}

/* Rows of `width` bytes `pitch` apart set to value, on s (NULL: the
 * current device's default stream), modeled as one memset; in the
 * stream's queue while it is held. */
static cudaError_t memset2d(void *dst, size_t pitch, int value, size_t width, size_t height, RtStream *s) {
    RtAlloc *a;
    if (width > pitch) return cudaErrorInvalidValue;
    if (!width || !height) return cudaSuccess;
    size_t span;
    if (!rows_span(pitch, width, height, &span) || !rt_device_range(dst, span, &a)) return cudaErrorInvalidValue;
    if (s && s->capture) return rt_capture_memset2d(s, dst, pitch, value, width, height);
    if (!s || s->dev != a->dev) s = rt_default_stream(a->dev);
    if (rt_queue_needed(s)) {
        Memset3D m = {{dst, pitch, width, height}, value, {width, height, 1}, false};
        rt_queue_call(s, &m, sizeof m, run_queued_memset);
        return cudaSuccess;
    }
    for (size_t r = 0; r < height; r++) {
        rt_mem_fill((char *)dst + r * pitch, (unsigned)value, 1, width);
    }
    emu_model_memset(rt_backend(a->dev), s->id, width * height, true, "memset2D");
    return cudaSuccess;
}

cudaError_t cudaMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height) {
    rt_enter();
    cudaError_t rc = rt_sticky(rt_current_device(), false);
    if (!rc) rc = memset2d(dst, pitch, value, width, height, NULL);
    return rt_leave("cudaMemset2D", rc, 0, "%s, %zu, %d, %zu, %zu", rt_ptr(dst), pitch, value, width, height);
}

static cudaError_t memset2d_async(void *dst, size_t pitch, int value, size_t width, size_t height,
                                  cudaStream_t stream, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(stream, ptsz);
    cudaError_t rc = s ? rt_sticky(s->dev, false) : cudaErrorInvalidResourceHandle;
    if (!rc) rc = memset2d(dst, pitch, value, width, height, s);
    return rt_leave("cudaMemset2DAsync", rc, s ? s->id : 0, "%s, %zu, %d, %zu, %zu, %s", rt_ptr(dst), pitch, value,
                    width, height, s ? rt_stream_name(s) : "?");
}

cudaError_t cudaMemset2DAsync(void *dst, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream) {
    return memset2d_async(dst, pitch, value, width, height, stream, false);
}
cudaError_t cudaMemset2DAsync_ptsz(void *dst, size_t pitch, int value, size_t width, size_t height,
                                   cudaStream_t stream);
cudaError_t cudaMemset2DAsync_ptsz(void *dst, size_t pitch, int value, size_t width, size_t height,
                                   cudaStream_t stream) {
    return memset2d_async(dst, pitch, value, width, height, stream, true);
}

/* ---- 3D (pitched memory, no arrays) ------------------------------------------------------------------- */
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pp, struct cudaExtent ext) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!pp) rc = cudaErrorInvalidValue;
    else {
        size_t pitch = (ext.width + 511) / 512 * 512;
        void *p = NULL;
        size_t bytes;
        if (pitch < ext.width || __builtin_mul_overflow(pitch, ext.height, &bytes) ||
            __builtin_mul_overflow(bytes, ext.depth, &bytes))
            rc = cudaErrorMemoryAllocation;     /* no machine has that much */
        else if (bytes) rc = rt_device_alloc(&p, bytes, RT_MEM_DEVICE, "cudaMalloc3D", NULL);
        if (!rc && p && rt_poison()) memset(p, 0xff, bytes);
        if (!rc) *pp = (struct cudaPitchedPtr){p, pitch, ext.width, ext.height};
    }
    return rt_leave("cudaMalloc3D", rc, 0, "&%s, {%zu, %zu, %zu}", rc || !pp ? "?" : rt_out_name(pp->ptr), ext.width,
                    ext.height, ext.depth);
}

/* Every row of the box, each side at its position; validated as 2D copies per slice. */
static cudaError_t copy3d(const struct cudaMemcpy3DParms *p, RtStream *s, bool sync) {
    if (!p || p->srcArray || p->dstArray) return p ? cudaErrorNotSupported : cudaErrorInvalidValue;
    const struct cudaPitchedPtr *sp = &p->srcPtr, *dp = &p->dstPtr;
    size_t w = p->extent.width, h = p->extent.height, d = p->extent.depth;
    if (!w || !h || !d) return cudaSuccess;
    if (!sp->ptr || !dp->ptr) return cudaErrorInvalidValue;
    size_t sslice = sp->pitch * (sp->ysize ? sp->ysize : h + p->srcPos.y);
    size_t dslice = dp->pitch * (dp->ysize ? dp->ysize : h + p->dstPos.y);
    for (size_t z = 0; z < d; z++) {
        const char *src = (const char *)sp->ptr + (p->srcPos.z + z) * sslice + p->srcPos.y * sp->pitch + p->srcPos.x;
        char *dst = (char *)dp->ptr + (p->dstPos.z + z) * dslice + p->dstPos.y * dp->pitch + p->dstPos.x;
        cudaError_t rc = copy2d(dst, dp->pitch, src, sp->pitch, w, h, p->kind, s, sync);
        if (rc) return rc;
    }
    return cudaSuccess;
}

cudaError_t rt_memcpy3d(const struct cudaMemcpy3DParms *p, RtStream *s, bool sync) { return copy3d(p, s, sync); }

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) {
    rt_enter();
    cudaError_t rc = rt_sticky(rt_current_device(), true);
    if (!rc) {
        rt_wait_stream(rt_default_stream(rt_current_device()));
        rt_flush_output();
        rc = copy3d(p, NULL, true);
    }
    return rt_leave("cudaMemcpy3D", rc, 0, "{%s -> %s, extent {%zu, %zu, %zu}, %s}", p ? rt_ptr(p->srcPtr.ptr) : "?",
                    p ? rt_ptr(p->dstPtr.ptr) : "?", p ? p->extent.width : 0, p ? p->extent.height : 0,
                    p ? p->extent.depth : 0, p ? rt_kind_name(p->kind) : "?");
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream) {
    rt_enter();
    RtStream *s = rt_stream(stream, false);
    cudaError_t rc = s ? rt_sticky(s->dev, false) : cudaErrorInvalidResourceHandle;
    if (!rc && s->capture) rc = !p ? cudaErrorInvalidValue : rt_capture_copy3d(s, p);
    else if (!rc) rc = copy3d(p, s, false);
    return rt_leave("cudaMemcpy3DAsync", rc, s ? s->id : 0, "{%s -> %s}, %s", p ? rt_ptr(p->srcPtr.ptr) : "?",
                    p ? rt_ptr(p->dstPtr.ptr) : "?", s ? rt_stream_name(s) : "?");
}

/* A box of a pitched allocation set to value, validated whole first. */
static cudaError_t memset3d(struct cudaPitchedPtr pp, int value, struct cudaExtent ext, RtStream *s) {
    size_t slice = pp.pitch * (pp.ysize ? pp.ysize : ext.height);
    RtAlloc *a = NULL;
    if (ext.width > pp.pitch) return cudaErrorInvalidValue;
    if (!ext.width || !ext.height || !ext.depth) return cudaSuccess;
    size_t span;
    if (__builtin_mul_overflow(pp.pitch, pp.ysize ? pp.ysize : ext.height, &slice) ||
        !rows_span(pp.pitch, ext.width, ext.height, &span) || !rows_span(slice, span, ext.depth, &span) ||
        !rt_device_range(pp.ptr, span, &a))
        return cudaErrorInvalidValue;
    if (s && s->capture) {
        if (ext.depth > 1 && slice != pp.pitch * ext.height) return cudaErrorNotSupported;
        return rt_capture_memset2d(s, pp.ptr, pp.pitch, value, ext.width, ext.height * ext.depth);
    }
    if (!s || s->dev != a->dev) s = rt_default_stream(a->dev);
    if (rt_queue_needed(s)) {
        Memset3D m = {pp, value, ext, true};
        rt_queue_call(s, &m, sizeof m, run_queued_memset);
        return cudaSuccess;
    }
    for (size_t z = 0; z < ext.depth; z++)
        for (size_t y = 0; y < ext.height; y++) {
            rt_mem_fill((char *)pp.ptr + z * slice + y * pp.pitch, (unsigned)value, 1, ext.width);
        }
    emu_model_memset(rt_backend(a->dev), s->id, ext.width * ext.height * ext.depth, true, "memset3D");
    return cudaSuccess;
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr pp, int value, struct cudaExtent ext) {
    rt_enter();
    cudaError_t rc = rt_sticky(rt_current_device(), false);
    if (!rc) rc = memset3d(pp, value, ext, NULL);
    return rt_leave("cudaMemset3D", rc, 0, "%s, %d, {%zu, %zu, %zu}", rt_ptr(pp.ptr), value, ext.width, ext.height,
                    ext.depth);
}

static cudaError_t memset3d_async(struct cudaPitchedPtr pp, int value, struct cudaExtent ext, cudaStream_t stream,
                                  bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(stream, ptsz);
    cudaError_t rc = s ? rt_sticky(s->dev, false) : cudaErrorInvalidResourceHandle;
    if (!rc) rc = memset3d(pp, value, ext, s);
    return rt_leave("cudaMemset3DAsync", rc, s ? s->id : 0, "%s, %d, {%zu, %zu, %zu}, %s", rt_ptr(pp.ptr), value,
                    ext.width, ext.height, ext.depth, s ? rt_stream_name(s) : "?");
}

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pp, int value, struct cudaExtent ext, cudaStream_t stream) {
    return memset3d_async(pp, value, ext, stream, false);
}
cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pp, int value, struct cudaExtent ext, cudaStream_t stream);
cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pp, int value, struct cudaExtent ext, cudaStream_t stream) {
    return memset3d_async(pp, value, ext, stream, true);
}
