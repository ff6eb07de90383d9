/* kernels/emurt/emurt_copy.c: copies and memsets in every direction —
 * cudaMemcpy(Async), cudaMemcpyDefault inferred from the runtime's table,
 * symbols (__device__/__constant__), peers — validated like CUDA
 * (a pointer outside every allocation, a range past its end or the wrong
 * direction is cudaErrorInvalidValue, never a crash), done at once in
 * program order and put on the device's modeled timeline. A synchronous
 * copy is a synchronisation point (kernel printf output, sticky faults). */
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "kernels/emurt/emurt_internal.h"
#include "kernels/progwire.h"

/* ---- copies ------------------------------------------------------------------------------------ */

static int stream_id_for(RtStream *s) { return s ? s->id : 0; }

/* A synchronous call from pinned memory still waits for its copy. */
static void host_waits(int dev, RtStream *s) {
    Backend *b = rt_backend(dev);
    Diag *d = b->ops->stream_synchronize(b, stream_id_for(s));
    diag_free(&d);
}

/* A copy or memset that waited in s's queue, when its turn comes (emurt_queue.c). */
static void run_queued_copy(RtStream *s, RtQOp *op) { rt_memcpy(op->dst, op->src, op->n, op->copy_kind, s, false); }
static void run_queued_memset(RtStream *s, RtQOp *op) { rt_memset(op->dst, op->value, op->n, s, false); }

cudaError_t rt_memcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, RtStream *s, bool sync) {
    if (!n) return cudaSuccess;
    if (!dst || !src) return cudaErrorInvalidValue;
    if ((unsigned)kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    RtAlloc *da, *sa;
    bool dd = rt_device_range(dst, n, &da), sd = rt_device_range(src, n, &sa);
    if (kind == cudaMemcpyDefault) {
        bool dk = rt_device_side(da), sk = rt_device_side(sa);
        kind = sk ? (dk ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                  : (dk ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    }
    bool need_d = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool need_s = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    /* As NVIDIA's driver (UVA) answers, on an H200 (tests/programs/memcpy_wrong_kind.cu):
     * where the kind wants device memory, device, managed or pinned memory will
     * do, pageable host memory is cudaErrorInvalidValue; where it wants host
     * memory anything will do. The copy goes the way the pointers say. */
    bool dpin = da && da->kind == RT_MEM_PINNED && rt_in_alloc(da, dst, n);
    bool spin = sa && sa->kind == RT_MEM_PINNED && rt_in_alloc(sa, src, n);
    if ((need_d && !dd && !dpin) || (need_s && !sd && !spin)) return cudaErrorInvalidValue;
    {
        bool dk = rt_device_side(da), sk = rt_device_side(sa);
        kind = sk ? (dk ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                  : (dk ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
        need_d = dk;
        need_s = sk;
    }
    int dev = need_d ? da->dev : need_s ? sa->dev : (s ? s->dev : rt_current_device());
    if (s && s->capture) return rt_capture_copy(s, dst, src, n, kind);
    if (!s || s->dev != dev) s = rt_default_stream(dev);
    RtStream *eff = s;
    /* An asynchronous copy to or from pageable memory behind queued work
     * waits for it: to pageable memory it returns only once the copy is
     * done, from it the driver stages the bytes now (CUDA's documented
     * synchronization behaviour). */
    bool pageable = (kind == cudaMemcpyDeviceToHost && !da) || (kind == cudaMemcpyHostToDevice && !sa);
    if (sync || pageable) rt_wait_stream(eff);
    else if (rt_queue_needed(eff)) {
        rt_queue_copy(eff, dst, src, n, kind, run_queued_copy);
        return cudaSuccess;
    }
    rt_mem_copy(dst, src, n);
    if (kind == cudaMemcpyHostToHost) return cudaSuccess;
    CopyDir dir = kind == cudaMemcpyHostToDevice ? COPY_H2D : kind == cudaMemcpyDeviceToHost ? COPY_D2H : COPY_D2D;
    RtAlloc *host = dir == COPY_H2D ? sa : dir == COPY_D2H ? da : NULL;
    bool pinned = host && host->kind == RT_MEM_PINNED;
    RtAlloc *dv = dir == COPY_H2D ? da : sa;
    char name[160];
    snprintf(name, sizeof name, dir == COPY_H2D ? "copy %s -> device" : dir == COPY_D2H ? "copy %s -> host"
                                                                                        : "copy %s on device",
             dv->name);
    if (s && s->dev != dev) s = NULL;
    emu_model_copy(rt_backend(dev), dir, stream_id_for(s), n, pinned, name);
    if (sync && (pinned || dir == COPY_D2D)) host_waits(dev, s);
    return cudaSuccess;
}

cudaError_t rt_memset(void *dst, int value, size_t n, RtStream *s, bool sync) {
    (void)sync;
    if (!n) return cudaSuccess;
    RtAlloc *a;
    if (!dst || !rt_device_range(dst, n, &a)) return cudaErrorInvalidValue;
    if (s && s->capture) return rt_capture_memset(s, dst, value, n);
    if (!s || s->dev != a->dev) s = rt_default_stream(a->dev);
    RtStream *eff = s;
    if (rt_queue_needed(eff)) {
        rt_queue_memset(eff, dst, value, n, run_queued_memset);
        return cudaSuccess;
    }
    rt_mem_fill(dst, (unsigned)value, 1, n);
    char name[160];
    snprintf(name, sizeof name, "memset %s", a->name);
    if (s && s->dev != a->dev) s = NULL;
    /* cudaMemset is asynchronous to the host too (device memory) */
    emu_model_memset(rt_backend(a->dev), stream_id_for(s), n, true, name);
    return cudaSuccess;
}

/* ---- copies and memsets --------------------------------------------------------------------------- */
/* "d_x+0" for device memory; for host memory the program's own words for
 * it ("h_x", "&result") where its source can be read, else the address. */
static void host_arg_names(const char *fn, const void *dst, const void *src, char dn[96], char sn[96]) {
    snprintf(dn, 96, "%s", rt_ptr(dst));
    snprintf(sn, 96, "%s", rt_ptr(src));
    if ((!dst || rt_alloc_find(dst)) && (!src || rt_alloc_find(src))) return;
    char args[2][RT_ARG_TEXT];
    if (rt_call_args(fn, args, 2) < 2) return;
    if (dst && !rt_alloc_find(dst)) snprintf(dn, 96, "%s", args[0]);
    if (src && !rt_alloc_find(src)) snprintf(sn, 96, "%s", args[1]);
}

static cudaError_t copy_call(const char *fn, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                             cudaStream_t stream, bool async, bool ptsz) {
    progwire_turn();
    rt_enter();
    char dn[96], sn[96];
    host_arg_names(fn, dst, src, dn, sn);
    RtStream *s = async || ptsz ? rt_stream(stream, ptsz) : NULL;
    cudaError_t rc = (async || ptsz) && !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    int sid = s ? s->id : 0;
    if (!rc) rc = rt_sticky(s ? s->dev : rt_current_device(), !async);
    /* a synchronous copy is work on the legacy stream, not a "potentially unsafe" call:
       the H200 runs it during a global capture of a non-blocking stream; it is refused
       (cudaErrorStreamCaptureImplicit) while a blocking stream captures */
    if (!rc && !async && (!s || !s->id)) rc = rt_capture_legacy_use(s ? s->dev : rt_current_device());
    if (!rc) {
        if (!async) rt_flush_output();
        rc = rt_memcpy(dst, src, n, kind, s, !async);
    }
    if (async) return rt_leave(fn, rc, sid, "%s, %s, %zu, %s, %s", dn, sn, n, rt_kind_name(kind), s ? rt_stream_name(s) : "?");
    return rt_leave(fn, rc, sid, "%s, %s, %zu, %s", dn, sn, n, rt_kind_name(kind));
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) {
    return copy_call("cudaMemcpy", dst, src, n, kind, NULL, false, false);
}
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) {
    return copy_call("cudaMemcpy", dst, src, n, kind, cudaStreamPerThread, false, true);
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t st) {
    return copy_call("cudaMemcpyAsync", dst, src, n, kind, st, true, false);
}
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t st);
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t st) {
    return copy_call("cudaMemcpyAsync", dst, src, n, kind, st, true, true);
}

static cudaError_t memset_call(const char *fn, void *dst, int value, size_t n, cudaStream_t stream, bool async,
                               bool ptsz) {
    progwire_turn();
    rt_enter();
    char dn[96];
    snprintf(dn, sizeof dn, "%s", rt_ptr(dst));
    RtStream *s = async || ptsz ? rt_stream(stream, ptsz) : NULL;
    cudaError_t rc = (async || ptsz) && !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc) rc = rt_sticky(s ? s->dev : rt_current_device(), false);
    if (!rc && !async && (!s || !s->id)) rc = rt_capture_legacy_use(s ? s->dev : rt_current_device());
    if (!rc) rc = rt_memset(dst, value, n, s, !async);
    if (async) return rt_leave(fn, rc, s ? s->id : 0, "%s, %d, %zu, %s", dn, value, n, s ? rt_stream_name(s) : "?");
    return rt_leave(fn, rc, 0, "%s, %d, %zu", dn, value, n);
}

cudaError_t cudaMemset(void *dst, int value, size_t n) { return memset_call("cudaMemset", dst, value, n, NULL, false, false); }
cudaError_t cudaMemset_ptds(void *dst, int value, size_t n);
cudaError_t cudaMemset_ptds(void *dst, int value, size_t n) {
    return memset_call("cudaMemset", dst, value, n, cudaStreamPerThread, false, true);
}
cudaError_t cudaMemsetAsync(void *dst, int value, size_t n, cudaStream_t st) {
    return memset_call("cudaMemsetAsync", dst, value, n, st, true, false);
}
cudaError_t cudaMemsetAsync_ptsz(void *dst, int value, size_t n, cudaStream_t st);
cudaError_t cudaMemsetAsync_ptsz(void *dst, int value, size_t n, cudaStream_t st) {
    return memset_call("cudaMemsetAsync", dst, value, n, st, true, true);
}

/* ---- symbols ------------------------------------------------------------------------------------------- */
static cudaError_t symbol_copy(const char *fn, const void *symbol, void *host, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, bool to_symbol, cudaStream_t stream, bool async) {
    rt_enter();
    RtVar *v = rt_var_find(symbol);
    RtStream *s = async ? rt_stream(stream, false) : NULL;
    uintptr_t addr = 0;
    size_t size = 0;
    cudaError_t rc = async && !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc) rc = rt_sticky(s ? s->dev : rt_current_device(), !async);
    if (!rc) rc = rt_symbol_address(symbol, &addr, &size);
    if (!rc && (offset > size || count > size - offset)) rc = cudaErrorInvalidValue;
    if (!rc) {
        if (to_symbol && kind == cudaMemcpyDeviceToHost) rc = cudaErrorInvalidMemcpyDirection;
        else if (!to_symbol && kind == cudaMemcpyHostToDevice) rc = cudaErrorInvalidMemcpyDirection;
    }
    if (!rc) {
        if (!async) rt_flush_output();
        void *dev = (void *)(addr + offset);
        rc = to_symbol ? rt_memcpy(dev, host, count, kind, s, !async) : rt_memcpy(host, dev, count, kind, s, !async);
    }
    return rt_leave(fn, rc, s ? s->id : 0, "%s, %s, %zu, %zu, %s", v ? v->name : "(not a symbol)", rt_ptr(host), count,
                    offset, rt_kind_name(kind));
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
    return symbol_copy("cudaMemcpyToSymbol", symbol, (void *)src, count, offset, kind, true, NULL, false);
}
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
    return symbol_copy("cudaMemcpyFromSymbol", symbol, dst, count, offset, kind, false, NULL, false);
}
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
    return symbol_copy("cudaMemcpyToSymbolAsync", symbol, (void *)src, count, offset, kind, true, stream, true);
}
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
    return symbol_copy("cudaMemcpyFromSymbolAsync", symbol, dst, count, offset, kind, false, stream, true);
}

cudaError_t cudaGetSymbolAddress(void **dev, const void *symbol) {
    rt_enter();
    uintptr_t addr = 0;
    size_t size = 0;
    cudaError_t rc = dev ? rt_symbol_address(symbol, &addr, &size) : cudaErrorInvalidValue;
    if (!rc) *dev = (void *)addr;
    RtVar *v = rt_var_find(symbol);
    return rt_leave("cudaGetSymbolAddress", rc, 0, "&devptr, %s", v ? v->name : "(not a symbol)");
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
    rt_enter();
    uintptr_t addr = 0;
    size_t sz = 0;
    cudaError_t rc = size ? rt_symbol_address(symbol, &addr, &sz) : cudaErrorInvalidValue;
    if (!rc) *size = sz;
    RtVar *v = rt_var_find(symbol);
    return rt_leave("cudaGetSymbolSize", rc, 0, "&size, %s", v ? v->name : "(not a symbol)");
}

/* ---- peers ------------------------------------------------------------------------------------------ */
typedef struct PeerCopy {
    void *dst;
    const void *src;
    int ddev, sdev;
    size_t n;
} PeerCopy;

/* The copy itself, on s (NULL: the source device's stream 0), validated already. */
static void peer_do(const PeerCopy *c, RtStream *s) {
    RtAlloc *da = rt_alloc_find(c->dst), *sa = rt_alloc_find(c->src);
    int sdev = c->sdev, ddev = c->ddev;
    size_t n = c->n;
    if (!da || !sa) return; /* freed while it waited */
    rt_mem_copy(c->dst, c->src, n);
    char name[200];
    /* with peer access enabled (either way) the devices copy directly;
       without it the driver stages the copy through host memory */
    if (sdev == ddev || g_rt.dev[ddev].peer[sdev] || g_rt.dev[sdev].peer[ddev]) {
        snprintf(name, sizeof name, N_("peer copy %s (device %d) -> %s (device %d)"), sa->name, sdev, da->name, ddev);
        emu_model_copy(rt_backend(sdev), COPY_D2D, s && s->dev == sdev ? s->id : 0, n, true, name);
    } else {
        snprintf(name, sizeof name, N_("peer copy %s (device %d) -> host, staged: no peer access"), sa->name, sdev);
        emu_model_copy(rt_backend(sdev), COPY_D2H, s && s->dev == sdev ? s->id : 0, n, false, name);
        rt_host_clocks_sync();
        snprintf(name, sizeof name, N_("peer copy host -> %s (device %d), staged: no peer access"), da->name, ddev);
        emu_model_copy(rt_backend(ddev), COPY_H2D, s && s->dev == ddev ? s->id : 0, n, false, name);
    }
}

static void run_queued_peer(RtStream *s, RtQOp *op) { peer_do(op->blob, s); }

static cudaError_t peer_copy(const char *fn, void *dst, int ddev, const void *src, int sdev, size_t n,
                             cudaStream_t stream, bool async) {
    rt_enter();
    RtStream *s = async ? rt_stream(stream, false) : NULL;
    cudaError_t rc = async && !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    RtAlloc *da, *sa;
    if (!rc && (ddev < 0 || ddev >= g_rt.n_dev || sdev < 0 || sdev >= g_rt.n_dev)) rc = cudaErrorInvalidDevice;
    if (!rc && n && (!rt_device_range(dst, n, &da) || !rt_device_range(src, n, &sa) || da->dev != ddev || sa->dev != sdev))
        rc = cudaErrorInvalidValue;
    if (!rc && n) {
        /* in stream order: behind a held stream (or legacy stream) it waits its turn */
        PeerCopy c = {dst, src, ddev, sdev, n};
        RtStream *q = s ? s : rt_default_stream(sdev);
        if (rt_queue_needed(q)) rt_queue_call(q, &c, sizeof c, run_queued_peer);
        else peer_do(&c, s);
    }
    return rt_leave(fn, rc, s ? s->id : 0, "%s, %d, %s, %d, %zu", rt_ptr(dst), ddev, rt_ptr(src), sdev, n);
}

cudaError_t cudaMemcpyPeer(void *dst, int ddev, const void *src, int sdev, size_t n) {
    return peer_copy("cudaMemcpyPeer", dst, ddev, src, sdev, n, NULL, false);
}
cudaError_t cudaMemcpyPeerAsync(void *dst, int ddev, const void *src, int sdev, size_t n, cudaStream_t stream) {
    return peer_copy("cudaMemcpyPeerAsync", dst, ddev, src, sdev, n, stream, true);
}
