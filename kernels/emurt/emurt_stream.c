/* kernels/emurt/emurt_stream.c: streams — create (with flags and
 * priorities), destroy, synchronize, query — the legacy and per-thread
 * default streams, host functions and callbacks, cudaDeviceSynchronize.
 *
 * The work itself is done at once, in program order (so results are
 * exact); the emulator's scheduler (kernels/emu/emu_streams.c) keeps when
 * it would have run on the modeled GPU. A host function runs on a thread of
 * its own and may hold its stream (emurt_queue.c); a query answers from the
 * queues and the model, and moves the modeled host clock on, so a polling
 * loop ends. Which RtStream a cudaStream_t is (the legacy and per-thread
 * default streams among them) is emurt_stream_lookup.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"

#include <cuda_profiler_api.h>

static Backend *backend_of(const RtStream *s) { return g_rt.dev[s->dev].b; }

/* ---- streams --------------------------------------------------------------------------------------- */
static cudaError_t stream_new(cudaStream_t *out, unsigned flags, int priority) {
    if (!out || flags > cudaStreamNonBlocking) return cudaErrorInvalidValue;
    int dev = rt_current_device();
    Backend *b = g_rt.dev[dev].b;
    if (priority > 0) priority = 0;
    if (priority < -5) priority = -5;
    StreamOptions o = {priority, flags == cudaStreamNonBlocking, NULL};
    int id = 0;
    Diag *d = b->ops->stream_create(b, &o, &id);
    if (d) {
        diag_free(&d);
        return cudaErrorMemoryAllocation;
    }
    RtStream *s = xcalloc(1, sizeof *s);
    s->magic = RT_STREAM_MAGIC;
    s->dev = dev;
    s->id = id;
    s->flags = flags;
    s->priority = priority;
    g_rt.streams = xrealloc(g_rt.streams, sizeof *g_rt.streams * (size_t)(g_rt.n_streams + 1));
    g_rt.streams[g_rt.n_streams++] = s;
    *out = (cudaStream_t)s;
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *p) {
    rt_enter();
    cudaError_t rc = stream_new(p, cudaStreamDefault, 0);
    return rt_leave("cudaStreamCreate", rc, rc ? 0 : ((RtStream *)*p)->id, "&%s", rc ? "?" : rt_stream_name((RtStream *)*p));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *p, unsigned int flags) {
    rt_enter();
    cudaError_t rc = stream_new(p, flags, 0);
    return rt_leave("cudaStreamCreateWithFlags", rc, rc ? 0 : ((RtStream *)*p)->id, "&%s, %s",
                    rc ? "?" : rt_stream_name((RtStream *)*p), flags ? "cudaStreamNonBlocking" : "cudaStreamDefault");
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *p, unsigned int flags, int priority) {
    rt_enter();
    cudaError_t rc = stream_new(p, flags, priority);
    return rt_leave("cudaStreamCreateWithPriority", rc, rc ? 0 : ((RtStream *)*p)->id, "&%s, %u, %d",
                    rc ? "?" : rt_stream_name((RtStream *)*p), flags, priority);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
    rt_enter();
    if (least) *least = 0;
    if (greatest) *greatest = -5;
    return rt_leave("cudaDeviceGetStreamPriorityRange", cudaSuccess, 0, "&least, &greatest");
}

cudaError_t cudaStreamGetPriority(cudaStream_t st, int *priority) {
    rt_enter();
    RtStream *s = rt_stream(st, false);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !priority ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) *priority = s->priority;
    return rt_leave("cudaStreamGetPriority", rc, s ? s->id : 0, "%s", s ? rt_stream_name(s) : "?");
}

cudaError_t cudaStreamGetFlags(cudaStream_t st, unsigned int *flags) {
    rt_enter();
    RtStream *s = rt_stream(st, false);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !flags ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) *flags = s->flags;
    return rt_leave("cudaStreamGetFlags", rc, s ? s->id : 0, "%s", s ? rt_stream_name(s) : "?");
}

cudaError_t cudaStreamDestroy(cudaStream_t st) {
    rt_enter();
    RtStream *s = rt_stream(st, false);
    cudaError_t rc = cudaSuccess;
    int id = s ? s->id : 0;
    if (!s || !s->id || s->per_thread) rc = cudaErrorInvalidResourceHandle;
    else {
        rt_wait_stream(s); /* its pending work finishes first (CUDA destroys it after that) */
        Diag *d = backend_of(s)->ops->stream_destroy(backend_of(s), s->id);
        diag_free(&d);
        for (int i = 0; i < g_rt.n_streams; i++)
            if (g_rt.streams[i] == s) {
                g_rt.streams[i] = g_rt.streams[--g_rt.n_streams];
                break;
            }
        s->magic = 0;
        free(s->cap_deps);
        free(s);
    }
    return rt_leave("cudaStreamDestroy", rc, id, "stream %d", id);
}

static cudaError_t stream_sync(const char *fn, cudaStream_t st, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = s ? rt_sticky(s->dev, true) : cudaErrorInvalidResourceHandle;
    if (!rc && s->capture) {
        rt_capture_invalidate(s);
        rc = cudaErrorStreamCaptureUnsupported;
    }
    if (!rc) rc = rt_capture_unsafe_call();
    if (!rc) {
        rt_wait_stream(s);
        rc = rt_sticky(s->dev, true);
    }
    if (!rc) {
        Diag *d = backend_of(s)->ops->stream_synchronize(backend_of(s), s->id);
        if (d) rc = rt_error_from_diag(d, cudaErrorInvalidResourceHandle);
        diag_free(&d);
        rt_flush_output();
        rt_pool_sync(s->dev);
    }
    return rt_leave(fn, rc, s ? s->id : 0, "%s", s ? rt_stream_name(s) : "?");
}

cudaError_t cudaStreamSynchronize(cudaStream_t st) { return stream_sync("cudaStreamSynchronize", st, false); }
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t st);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t st) { return stream_sync("cudaStreamSynchronize", st, true); }

static cudaError_t stream_query(cudaStream_t st, bool ptsz) {
    rt_enter_pure();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = s ? rt_sticky(s->dev, true) : cudaErrorInvalidResourceHandle;
    if (!rc && s->capture) {
        rt_capture_invalidate(s);
        rc = cudaErrorStreamCaptureUnsupported;
    }
    if (!rc) rc = rt_capture_unsafe_call();
    if (!rc && rt_stream_busy(s)) rc = cudaErrorNotReady;
    if (!rc) {
        bool done = true;
        Diag *d = emu_stream_query(backend_of(s), s->id, &done);
        if (d) rc = rt_error_from_diag(d, cudaErrorInvalidResourceHandle);
        else if (!done) rc = cudaErrorNotReady;
        diag_free(&d);
    }
    return rt_leave("cudaStreamQuery", rc, s ? s->id : 0, "%s", s ? rt_stream_name(s) : "?");
}

cudaError_t cudaStreamQuery(cudaStream_t st) { return stream_query(st, false); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t st);
cudaError_t cudaStreamQuery_ptsz(cudaStream_t st) { return stream_query(st, true); }

/* ---- host functions ----------------------------------------------------------------------------------- */
static cudaError_t host_func(const char *fn, cudaStream_t st, cudaHostFn_t hfn, void *data, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !hfn ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) rc = rt_sticky(s->dev, false);
    if (!rc && s->capture) rc = rt_capture_host(s, hfn, data);
    else if (!rc) rt_host_func(s, hfn, NULL, NULL, data);
    return rt_leave(fn, rc, s ? s->id : 0, "%s, fn, data", s ? rt_stream_name(s) : "?");
}

cudaError_t cudaLaunchHostFunc(cudaStream_t st, cudaHostFn_t fn, void *data) {
    return host_func("cudaLaunchHostFunc", st, fn, data, false);
}
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t st, cudaHostFn_t fn, void *data);
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t st, cudaHostFn_t fn, void *data) {
    return host_func("cudaLaunchHostFunc", st, fn, data, true);
}

static cudaError_t add_callback(cudaStream_t st, cudaStreamCallback_t cb, void *data, unsigned flags, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !cb || flags ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc && s->capture) rc = cudaErrorStreamCaptureUnsupported;
    if (!rc) rt_host_func(s, NULL, cb, st, data);
    return rt_leave("cudaStreamAddCallback", rc, s ? s->id : 0, "%s, callback, data, %u", s ? rt_stream_name(s) : "?",
                    flags);
}

cudaError_t cudaStreamAddCallback(cudaStream_t st, cudaStreamCallback_t cb, void *data, unsigned int flags) {
    return add_callback(st, cb, data, flags, false);
}
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t st, cudaStreamCallback_t cb, void *data, unsigned int flags);
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t st, cudaStreamCallback_t cb, void *data, unsigned int flags) {
    return add_callback(st, cb, data, flags, true);
}

/* ---- the device ------------------------------------------------------------------------------------------ */
cudaError_t cudaDeviceSynchronize(void) {
    rt_enter();
    int dev = rt_current_device();
    cudaError_t rc = rt_sticky(dev, true);
    if (!rc) rc = rt_capture_unsafe_call();
    if (!rc) {
        rt_wait_device(dev);
        rc = rt_sticky(dev, true);
    }
    if (!rc) {
        Backend *b = g_rt.dev[dev].b;
        Diag *d = b->ops->device_synchronize(b);
        diag_free(&d);
        rt_flush_output();
        rt_pool_sync(dev);
    }
    return rt_leave("cudaDeviceSynchronize", rc, 0, "%s", "");
}

/* ---- small queries ---------------------------------------------------------------------------------------- */
static cudaError_t stream_get_id(cudaStream_t st, unsigned long long *id, bool ptsz) {
    rt_enter_pure();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !id ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) *id = (unsigned long long)s->dev << 32 | (unsigned)s->id;
    return rt_leave("cudaStreamGetId", rc, s ? s->id : 0, "%s", s ? rt_stream_name(s) : "?");
}

cudaError_t cudaStreamGetId(cudaStream_t st, unsigned long long *id) { return stream_get_id(st, id, false); }
cudaError_t cudaStreamGetId_ptsz(cudaStream_t st, unsigned long long *id);
cudaError_t cudaStreamGetId_ptsz(cudaStream_t st, unsigned long long *id) { return stream_get_id(st, id, true); }

static cudaError_t stream_get_device(cudaStream_t st, int *dev, bool ptsz) {
    rt_enter_pure();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !dev ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) *dev = s->dev;
    return rt_leave("cudaStreamGetDevice", rc, s ? s->id : 0, "%s", s ? rt_stream_name(s) : "?");
}

cudaError_t cudaStreamGetDevice(cudaStream_t st, int *dev) { return stream_get_device(st, dev, false); }
cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t st, int *dev);
cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t st, int *dev) { return stream_get_device(st, dev, true); }

/* The profiler's range: nothing to start on the emulator (the metrics are always on). */
cudaError_t cudaProfilerStart(void) {
    rt_enter_pure();
    return rt_leave("cudaProfilerStart", cudaSuccess, 0, "%s", "");
}

cudaError_t cudaProfilerStop(void) {
    rt_enter_pure();
    return rt_leave("cudaProfilerStop", cudaSuccess, 0, "%s", "");
}
