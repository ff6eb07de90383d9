/* kernels/emurt/emurt_stream.c: streams, events, host callbacks and
 * synchronisation.
 *
 * The work itself is always done at once, in program order (so results
 * are exact); the emulator's scheduler (kernels/emu/emu_streams.c) keeps
 * when it would have run on the modeled GPU. So a query or an event's
 * elapsed time answers from the model: cudaEventQuery is cudaErrorNotReady
 * while the event lies ahead of the modeled host clock, and every query
 * moves that clock on, so a polling loop ends. cudaEventElapsedTime is the
 * model's figure, never a measurement. A host function (cudaLaunchHostFunc,
 * cudaStreamAddCallback) runs when it is enqueued: everything before it in
 * the stream is already done. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"

static RtStream g_legacy[RT_MAX_DEVICES];

RtStream *rt_stream_legacy(int dev) {
    RtStream *s = &g_legacy[dev];
    s->magic = RT_STREAM_MAGIC;
    s->dev = dev;
    s->id = 0;
    return s;
}

static RtStream *per_thread(int dev) {
    RtDevice *d = &g_rt.dev[dev];
    if (d->per_thread) return d->per_thread;
    StreamOptions o = {0, false, "per-thread default stream"};
    int id = 0;
    Diag *e = d->b->ops->stream_create(d->b, &o, &id);
    if (e) {
        diag_free(&e);
        return rt_stream_legacy(dev);
    }
    RtStream *s = xcalloc(1, sizeof *s);
    s->magic = RT_STREAM_MAGIC;
    s->dev = dev;
    s->id = id;
    d->per_thread = s;
    return s;
}

RtStream *rt_stream(cudaStream_t st, bool ptsz) {
    int dev = rt_current_device();
    if (!st) return ptsz ? per_thread(dev) : rt_stream_legacy(dev);
    if (st == cudaStreamLegacy) return rt_stream_legacy(dev);
    if (st == cudaStreamPerThread) return per_thread(dev);
    for (int i = 0; i < g_rt.n_streams; i++)
        if ((cudaStream_t)g_rt.streams[i] == st) return g_rt.streams[i];
    for (int i = 0; i < g_rt.n_dev; i++)
        if ((cudaStream_t)g_rt.dev[i].per_thread == st && st) return g_rt.dev[i].per_thread;
    return NULL;
}

const char *rt_stream_name(const RtStream *s) {
    static __thread char buf[4][32];
    static __thread int next;
    char *b = buf[next++ & 3];
    if (!s->id) snprintf(b, 32, "stream 0");
    else if (s == g_rt.dev[s->dev].per_thread) snprintf(b, 32, "cudaStreamPerThread");
    else snprintf(b, 32, "stream %d", s->id);
    return b;
}

static Backend *backend_of(const RtStream *s) { return g_rt.dev[s->dev].b; }

/* ---- streams --------------------------------------------------------------------------------------- */
static cudaError_t stream_new(cudaStream_t *out, unsigned flags, int priority) {
    if (!out || flags > cudaStreamNonBlocking) return cudaErrorInvalidValue;
    int dev = rt_current_device();
    Backend *b = g_rt.dev[dev].b;
    if (priority > 0) priority = 0;
    if (priority < -5) priority = -5;
    char name[32];
    snprintf(name, sizeof name, "stream %d", g_rt.n_streams + 1);
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
    if (!s || !s->id || s == g_rt.dev[s->dev].per_thread) rc = cudaErrorInvalidResourceHandle;
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
    if (!rc) {
        rt_wait_stream(s);
        rc = rt_sticky(s->dev, true);
    }
    if (!rc) {
        Diag *d = backend_of(s)->ops->stream_synchronize(backend_of(s), s->id);
        if (d) rc = rt_error_from_diag(d, cudaErrorInvalidResourceHandle);
        diag_free(&d);
        rt_flush_output();
    }
    return rt_leave(fn, rc, s ? s->id : 0, "%s", s ? rt_stream_name(s) : "?");
}

cudaError_t cudaStreamSynchronize(cudaStream_t st) { return stream_sync("cudaStreamSynchronize", st, false); }
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t st);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t st) { return stream_sync("cudaStreamSynchronize", st, true); }

static cudaError_t stream_query(cudaStream_t st, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = s ? rt_sticky(s->dev, true) : cudaErrorInvalidResourceHandle;
    if (!rc && s->capture) {
        rt_capture_invalidate(s);
        rc = cudaErrorStreamCaptureUnsupported;
    }
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

/* ---- events ---------------------------------------------------------------------------------------- */
static RtEvent *event_find(cudaEvent_t e) {
    for (int i = 0; e && i < g_rt.n_events; i++)
        if ((cudaEvent_t)g_rt.events[i] == e) return g_rt.events[i];
    return NULL;
}

static cudaError_t event_new(cudaEvent_t *out, unsigned flags) {
    if (!out || flags > (cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess))
        return cudaErrorInvalidValue;
    int dev = rt_current_device();
    Backend *b = g_rt.dev[dev].b;
    int id = 0;
    Diag *d = b->ops->event_create(b, &id);
    if (d) {
        diag_free(&d);
        return cudaErrorMemoryAllocation;
    }
    RtEvent *e = xcalloc(1, sizeof *e);
    e->magic = RT_EVENT_MAGIC;
    e->dev = dev;
    e->id = id;
    e->flags = flags;
    g_rt.events = xrealloc(g_rt.events, sizeof *g_rt.events * (size_t)(g_rt.n_events + 1));
    g_rt.events[g_rt.n_events++] = e;
    *out = (cudaEvent_t)e;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *e) {
    rt_enter();
    cudaError_t rc = event_new(e, 0);
    return rt_leave("cudaEventCreate", rc, 0, "&event %d", rc ? 0 : ((RtEvent *)*e)->id);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags) {
    rt_enter();
    cudaError_t rc = event_new(e, flags);
    return rt_leave("cudaEventCreateWithFlags", rc, 0, "&event %d, %u", rc ? 0 : ((RtEvent *)*e)->id, flags);
}

cudaError_t cudaEventDestroy(cudaEvent_t ev) {
    rt_enter();
    RtEvent *e = event_find(ev);
    int id = e ? e->id : 0;
    cudaError_t rc = cudaSuccess;
    if (!e) rc = cudaErrorInvalidResourceHandle;
    else {
        Backend *b = g_rt.dev[e->dev].b;
        Diag *d = b->ops->event_destroy(b, e->id);
        diag_free(&d);
        for (int i = 0; i < g_rt.n_events; i++)
            if (g_rt.events[i] == e) {
                g_rt.events[i] = g_rt.events[--g_rt.n_events];
                break;
            }
        free(e);
    }
    return rt_leave("cudaEventDestroy", rc, 0, "event %d", id);
}

static cudaError_t event_record(const char *fn, cudaEvent_t ev, cudaStream_t st, unsigned flags, bool ptsz) {
    rt_enter();
    RtEvent *e = event_find(ev);
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !e || !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc && e->dev != s->dev) rc = cudaErrorInvalidResourceHandle;
    if (!rc) rc = rt_sticky(s->dev, false);
    if (!rc && s->capture) rt_capture_event_record(s, e);
    else if (!rc && rt_queue_needed(s)) rt_queue_event(s, e, false);
    else if (!rc) {
        e->capture = NULL;
        Diag *d = backend_of(s)->ops->event_record(backend_of(s), e->id, s->id);
        if (d) rc = rt_error_from_diag(d, cudaErrorInvalidResourceHandle);
        diag_free(&d);
    }
    return rt_leave(fn, rc, s ? s->id : 0, "event %d, %s%s", e ? e->id : 0, s ? rt_stream_name(s) : "?",
                    flags ? ", flags" : "");
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { return event_record("cudaEventRecord", e, s, 0, false); }
cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) { return event_record("cudaEventRecord", e, s, 0, true); }
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int flags) {
    return event_record("cudaEventRecordWithFlags", e, s, flags, false);
}
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s, unsigned int flags);
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s, unsigned int flags) {
    return event_record("cudaEventRecordWithFlags", e, s, flags, true);
}

cudaError_t cudaEventSynchronize(cudaEvent_t ev) {
    rt_enter();
    RtEvent *e = event_find(ev);
    cudaError_t rc = e ? rt_sticky(e->dev, true) : cudaErrorInvalidResourceHandle;
    if (!rc) {
        rt_wait_event(e);
        rc = rt_sticky(e->dev, true);
    }
    if (!rc) {
        Backend *b = g_rt.dev[e->dev].b;
        Diag *d = b->ops->event_synchronize(b, e->id);
        if (d) rc = rt_error_from_diag(d, cudaErrorInvalidResourceHandle);
        diag_free(&d);
        rt_flush_output();
    }
    return rt_leave("cudaEventSynchronize", rc, 0, "event %d", e ? e->id : 0);
}

cudaError_t cudaEventQuery(cudaEvent_t ev) {
    rt_enter();
    RtEvent *e = event_find(ev);
    cudaError_t rc = e ? rt_sticky(e->dev, true) : cudaErrorInvalidResourceHandle;
    if (!rc && e->pending) rc = cudaErrorNotReady;
    if (!rc) {
        Backend *b = g_rt.dev[e->dev].b;
        bool done = true;
        Diag *d = b->ops->event_query(b, e->id, &done);
        if (d) rc = rt_error_from_diag(d, cudaErrorInvalidResourceHandle);
        else if (!done) rc = cudaErrorNotReady;
        diag_free(&d);
    }
    return rt_leave("cudaEventQuery", rc, 0, "event %d", e ? e->id : 0);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    rt_enter();
    RtEvent *a = event_find(start), *z = event_find(end);
    cudaError_t rc = !ms ? cudaErrorInvalidValue : !a || !z || a->dev != z->dev ? cudaErrorInvalidResourceHandle
                                                                                 : cudaSuccess;
    if (!rc && ((a->flags | z->flags) & cudaEventDisableTiming)) rc = cudaErrorInvalidResourceHandle;
    if (!rc && (a->pending || z->pending)) rc = cudaErrorNotReady;
    double v = 0;
    if (!rc) {
        Backend *b = g_rt.dev[a->dev].b;
        bool modeled = true;
        Diag *d = b->ops->event_elapsed_ms(b, a->id, z->id, &v, &modeled);
        if (d) rc = rt_error_from_diag(d, cudaErrorInvalidResourceHandle);
        diag_free(&d);
        if (!rc) *ms = (float)v;
    }
    return rt_leave("cudaEventElapsedTime", rc, 0, "&ms = %.6f (modeled), event %d, event %d", rc ? 0.0 : v,
                    a ? a->id : 0, z ? z->id : 0);
}

static cudaError_t wait_event(cudaStream_t st, cudaEvent_t ev, unsigned flags, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    RtEvent *e = event_find(ev);
    cudaError_t rc = !s || !e ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc && rt_capture_wait_event(s, e)) {
    } else if (!rc && (e->pending || rt_queue_needed(s))) {
        rt_queue_event(s, e, true);
    } else if (!rc && s->dev == e->dev) {
        Diag *d = emu_stream_wait_event(backend_of(s), s->id, e->id);
        if (d) rc = rt_error_from_diag(d, cudaErrorInvalidResourceHandle);
        diag_free(&d);
    }
    return rt_leave("cudaStreamWaitEvent", rc, s ? s->id : 0, "%s, event %d, %u", s ? rt_stream_name(s) : "?",
                    e ? e->id : 0, flags);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t st, cudaEvent_t ev, unsigned int flags) {
    return wait_event(st, ev, flags, false);
}
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t st, cudaEvent_t ev, unsigned int flags);
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t st, cudaEvent_t ev, unsigned int flags) {
    return wait_event(st, ev, flags, true);
}

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
    if (!rc) {
        rt_wait_device(dev);
        rc = rt_sticky(dev, true);
    }
    if (!rc) {
        Backend *b = g_rt.dev[dev].b;
        Diag *d = b->ops->device_synchronize(b);
        diag_free(&d);
        rt_flush_output();
    }
    return rt_leave("cudaDeviceSynchronize", rc, 0, "%s", "");
}
