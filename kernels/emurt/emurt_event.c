/* kernels/emurt/emurt_event.c: events — create, record (in a stream's
 * queue when the stream is busy), synchronize, query, elapsed time, and
 * cudaStreamWaitEvent.
 *
 * The times are the emulator's model (kernels/emu/emu_streams.c), never a
 * measurement: cudaEventQuery is cudaErrorNotReady while the event lies
 * ahead of the modeled host clock, and every query moves that clock on, so
 * a polling loop ends; cudaEventElapsedTime's call record says "modeled". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"
#include "kernels/progwire.h"

static Backend *backend_of(const RtStream *s) { return g_rt.dev[s->dev].b; }

/* ---- events ---------------------------------------------------------------------------------------- */
RtEvent *rt_event_find(const void *e) {
    for (int i = 0; e && i < g_rt.n_events; i++)
        if ((const void *)g_rt.events[i] == e) return g_rt.events[i];
    return NULL;
}

static RtEvent *event_find(cudaEvent_t e) { return rt_event_find(e); }

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
        free(e->cap_deps);
        free(e);
    }
    return rt_leave("cudaEventDestroy", rc, 0, "event %d", id);
}

cudaError_t rt_event_record(RtEvent *e, RtStream *s, unsigned flags) {
    if (e->dev != s->dev) return cudaErrorInvalidResourceHandle;
    cudaError_t rc = rt_sticky(s->dev, false);
    if (!rc && s->capture) rt_capture_event_record(s, e, flags);
    else if (!rc && rt_queue_needed(s)) rt_queue_event(s, e, false);
    else if (!rc) {
        e->capture = NULL;
        Diag *d = backend_of(s)->ops->event_record(backend_of(s), e->id, s->id);
        if (d) rc = rt_error_from_diag(d, cudaErrorInvalidResourceHandle);
        diag_free(&d);
    }
    return rc;
}

static cudaError_t event_record(const char *fn, cudaEvent_t ev, cudaStream_t st, unsigned flags, bool ptsz) {
    progwire_turn();
    rt_enter_pure();
    RtEvent *e = event_find(ev);
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !e || !s ? cudaErrorInvalidResourceHandle : flags & ~cudaEventRecordExternal ? cudaErrorInvalidValue
                                                                                                : rt_event_record(e, s, flags);
    return rt_leave(fn, rc, s ? s->id : 0, "event %d, %s%s", e ? e->id : 0, s ? rt_stream_name(s) : "?",
                    flags ? ", cudaEventRecordExternal" : "");
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

/* Querying or waiting for an event while a capture runs: refused when it
 * was last recorded inside a capture still going on, in any mode
 * (cudaErrorCapturedEvent, rt_capture_event_use), and when the thread's
 * capture mode forbids unsafe calls (rt_capture_unsafe_call). */
static cudaError_t event_capture_check(RtEvent *e) {
    cudaError_t rc = rt_capture_event_use(e);
    return rc ? rc : rt_capture_unsafe_call();
}

cudaError_t cudaEventSynchronize(cudaEvent_t ev) {
    rt_enter();
    RtEvent *e = event_find(ev);
    cudaError_t rc = e ? rt_sticky(e->dev, true) : cudaErrorInvalidResourceHandle;
    if (!rc) rc = event_capture_check(e);
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
        rt_pool_sync(e->dev);
    }
    return rt_leave("cudaEventSynchronize", rc, 0, "event %d", e ? e->id : 0);
}

cudaError_t cudaEventQuery(cudaEvent_t ev) {
    rt_enter_pure();
    RtEvent *e = event_find(ev);
    cudaError_t rc = e ? rt_sticky(e->dev, true) : cudaErrorInvalidResourceHandle;
    if (!rc) rc = event_capture_check(e);
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
    rt_enter_pure();
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

cudaError_t rt_stream_wait_event(RtStream *s, RtEvent *e, unsigned flags) {
    bool captured = false;
    cudaError_t rc = rt_capture_wait_event(s, e, flags, &captured);
    if (rc || captured) return rc;
    if (e->pending || rt_queue_needed(s)) {
        rt_queue_event(s, e, true);
    } else if (s->dev == e->dev) {
        Diag *d = emu_stream_wait_event(backend_of(s), s->id, e->id);
        if (d) rc = rt_error_from_diag(d, cudaErrorInvalidResourceHandle);
        diag_free(&d);
    }
    return rc;
}

static cudaError_t wait_event(cudaStream_t st, cudaEvent_t ev, unsigned flags, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    RtEvent *e = event_find(ev);
    cudaError_t rc = !s || !e ? cudaErrorInvalidResourceHandle : flags & ~cudaEventWaitExternal ? cudaErrorInvalidValue
                                                                                               : rt_stream_wait_event(s, e, flags);
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
