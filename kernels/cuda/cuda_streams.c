/* kernels/cuda/cuda_streams.c: CUDA streams, events, pinned host memory and
 * asynchronous copies, and the GPU's timeline.
 *
 * Every operation that goes on the timeline is bracketed (mark_begin/end).
 * Where the times come from (cuda_streams_source):
 *   "cupti"   CUPTI activity records (kernels/cuda/cupti.h), matched to the
 *             entry by the correlation ids of the CUDA calls in its bracket:
 *             exact device start/end, bytes, pinned or pageable; waits get
 *             CUPTI's synchronization records. Nothing is added to the
 *             streams, so the overlap learners see is the one they made.
 *   "events"  when CUPTI is unavailable (or CUDOJO_TIMELINE=events): two
 *             CUDA events around each operation, read back when the timeline
 *             is asked for, relative to a base event.
 *   "off"     CUDOJO_TIMELINE=off: entries without times (the baseline
 *             `make bench` measures CUPTI's overhead against).
 * Host rows (host work, waits) use the host's monotonic clock from the
 * moment the base was taken; CUPTI's clock and the events' base are read at
 * that same moment, so the clocks agree to within a few microseconds.
 * Recorded events have no activity record: with CUPTI an event sits where
 * the work before it on its stream ended (when CUDA marks it complete).
 *
 * Ids: stream 0 is the legacy default stream (the NULL stream); created
 * streams and events are numbered from 1 and never reused in a process. */
#include "kernels/cuda/cuda_streams.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xalloc.h"
#include "kernels/cuda/cupti.h"
#include "kernels/cuda/cuda_state.h"

typedef enum TlMode { TL_MODE_EVENTS, TL_MODE_CUPTI, TL_MODE_OFF } TlMode;

typedef struct Pending {
    int entry;                      /* index in tl->v */
    cudaEvent_t a, b;               /* events mode */
    CuptiBracket br;                /* cupti mode */
    bool host;                      /* a host row: its host-clock times stand unless CUPTI has better */
} Pending;

struct CudaStreams {
    cudaStream_t *streams;          /* index = id; [0] = NULL (legacy default) */
    bool *stream_live;
    int n_streams;
    cudaEvent_t *events;            /* index = id; [0] unused */
    int n_events;
    Timeline *tl;
    TlMode mode;
    cudaEvent_t base;
    bool have_base;
    double host_base_us;
    uint64_t cupti_base_ns;
    Pending *pend;
    int n_pend, cap_pend;
    cudaEvent_t *pool;              /* spare timing events */
    int n_pool, cap_pool;
    char *host_name;
    double host_start_us;
};

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

CudaStreams *cuda_streams_new(const char *device) {
    CudaStreams *s = xcalloc(1, sizeof *s);
    s->streams = xcalloc(1, sizeof *s->streams);
    s->stream_live = xcalloc(1, sizeof *s->stream_live);
    s->stream_live[0] = true;
    s->n_streams = 1;
    s->events = xcalloc(1, sizeof *s->events);
    s->n_events = 1;
    const char *env = getenv("CUDOJO_TIMELINE");
    if (env && !strcmp(env, "off")) s->mode = TL_MODE_OFF;
    else if (env && !strcmp(env, "events")) s->mode = TL_MODE_EVENTS;
    else s->mode = cupti_active() ? TL_MODE_CUPTI : TL_MODE_EVENTS;
    s->tl = timeline_new(false, cuda_streams_source(s), device);
    return s;
}

void cuda_streams_free(CudaStreams **sp, bool broken) {
    CudaStreams *s = *sp;
    if (!s) return;
    if (!broken) {
        for (int i = 1; i < s->n_streams; i++)
            if (s->stream_live[i]) cudaStreamDestroy(s->streams[i]);
        for (int i = 1; i < s->n_events; i++)
            if (s->events[i]) cudaEventDestroy(s->events[i]);
        for (int i = 0; i < s->n_pend; i++) {
            if (s->pend[i].a) cudaEventDestroy(s->pend[i].a);
            if (s->pend[i].b) cudaEventDestroy(s->pend[i].b);
        }
        for (int i = 0; i < s->n_pool; i++) cudaEventDestroy(s->pool[i]);
        if (s->have_base) cudaEventDestroy(s->base);
    }
    free(s->streams);
    free(s->stream_live);
    free(s->events);
    free(s->pend);
    free(s->pool);
    free(s->host_name);
    timeline_free(&s->tl);
    free(s);
    *sp = NULL;
}

const char *cuda_streams_source(const CudaStreams *s) {
    return s->mode == TL_MODE_CUPTI ? "cupti" : s->mode == TL_MODE_OFF ? "off" : "events";
}

Diag *cuda_streams_get(CudaStreams *s, int id, cudaStream_t *out) {
    *out = NULL;
    if (id == 0) return NULL;
    if (id > 0 && id < s->n_streams && s->stream_live[id]) {
        *out = s->streams[id];
        return NULL;
    }
    return diag_error("gpu", "invalid resource handle: stream %d does not exist (or was destroyed)", id);
}

/* ---- timing marks ---- */

static cudaEvent_t pool_take(CudaStreams *s) {
    if (s->n_pool) return s->pool[--s->n_pool];
    cudaEvent_t e = NULL;
    if (cudaEventCreate(&e) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return e;
}

static void pool_give(CudaStreams *s, cudaEvent_t e) {
    if (!e) return;
    if (s->n_pool == s->cap_pool) {
        s->cap_pool = s->cap_pool ? s->cap_pool * 2 : 32;
        s->pool = xrealloc(s->pool, (size_t)s->cap_pool * sizeof *s->pool);
    }
    s->pool[s->n_pool++] = e;
}

/* The zero of the timeline: an event on the legacy stream, waited for, and
 * the host clock (and CUPTI's) at that moment. */
static bool ensure_base(CudaStreams *s) {
    if (s->have_base) return true;
    if (s->mode != TL_MODE_EVENTS) {
        s->cupti_base_ns = cupti_now_ns();
        s->host_base_us = now_us();
        s->have_base = true;
        return true;
    }
    if (cudaEventCreate(&s->base) != cudaSuccess) goto fail;
    if (cudaEventRecord(s->base, 0) != cudaSuccess || cudaEventSynchronize(s->base) != cudaSuccess) {
        cudaEventDestroy(s->base);
        goto fail;
    }
    s->host_base_us = now_us();
    s->have_base = true;
    return true;
fail:
    (void)cudaGetLastError();
    return false;
}

TlMark cuda_streams_mark_begin(CudaStreams *s, cudaStream_t st) {
    TlMark m = {0};
    if (!s || !ensure_base(s)) return m;
    m.issue_us = now_us() - s->host_base_us;
    if (s->mode == TL_MODE_OFF) return m;
    if (s->mode == TL_MODE_CUPTI) {
        cupti_bracket_open();
        m.on = true;
        return m;
    }
    cudaEvent_t a = pool_take(s);
    if (a && cudaEventRecord(a, st) != cudaSuccess) {
        (void)cudaGetLastError();
        pool_give(s, a);
        return m;
    }
    m.ev = a;
    m.on = a != NULL;
    return m;
}

static Pending *pending_add(CudaStreams *s, int entry) {
    if (s->n_pend == s->cap_pend) {
        s->cap_pend = s->cap_pend ? s->cap_pend * 2 : 32;
        s->pend = xrealloc(s->pend, (size_t)s->cap_pend * sizeof *s->pend);
    }
    Pending *p = &s->pend[s->n_pend++];
    memset(p, 0, sizeof *p);
    p->entry = entry;
    return p;
}

void cuda_streams_mark_end(CudaStreams *s, TlMark m, cudaStream_t st, TimelineKind kind, int stream,
                           const char *name, size_t bytes, bool pinned, const LaunchConfig *cfg) {
    if (!s) return;
    CuptiBracket br = {0};
    cudaEvent_t b = NULL;
    if (m.on && s->mode == TL_MODE_CUPTI) {
        cupti_bracket_close(&br);
    } else if (m.on) {
        b = pool_take(s);
        if (!b || cudaEventRecord(b, st) != cudaSuccess) {
            (void)cudaGetLastError();
            pool_give(s, m.ev);
            pool_give(s, b);
            m.on = false;
        }
    }
    if (!s->have_base) return;
    TimelineEntry *e = timeline_add(s->tl, kind, stream, name, m.issue_us, 0);
    if (!e) {
        if (m.ev) pool_give(s, m.ev);
        pool_give(s, b);
        return;
    }
    e->bytes = bytes;
    e->pinned = pinned;
    if (cfg) {
        e->grid[0] = cfg->grid.x, e->grid[1] = cfg->grid.y, e->grid[2] = cfg->grid.z;
        e->block[0] = cfg->block.x, e->block[1] = cfg->block.y, e->block[2] = cfg->block.z;
    }
    if (!m.on) return;
    Pending *p = pending_add(s, s->tl->n - 1);
    p->a = m.ev, p->b = b, p->br = br;
}

/* A host row (host work, waits) from the host clock; with CUPTI a wait's
 * bracket `br` may bring CUPTI's synchronization record instead. */
static void host_entry(CudaStreams *s, TimelineKind kind, const char *name, double t0, double t1,
                       const CuptiBracket *br) {
    if (!s->have_base) return;
    if (!timeline_add(s->tl, kind, TIMELINE_HOST, name, t0 - s->host_base_us, t1 - t0)) return;
    if (br && br->n && s->mode == TL_MODE_CUPTI) {
        Pending *p = pending_add(s, s->tl->n - 1);
        p->br = *br;
        p->host = true;
    }
}

/* A wait, bracketed for CUPTI. */
typedef struct Wait {
    double t0;
    CuptiBracket br;
} Wait;

static Wait wait_begin(CudaStreams *s) {
    Wait w = {now_us(), {{0}, 0}};
    if (s->mode == TL_MODE_CUPTI && s->have_base) cupti_bracket_open();
    return w;
}

static void wait_end(CudaStreams *s, Wait *w, const char *what) {
    if (s->mode == TL_MODE_CUPTI && s->have_base) cupti_bracket_close(&w->br);
    host_entry(s, TL_SYNC, what, w->t0, now_us(), &w->br);
}

/* ---- streams ---- */

Diag *cuda_stream_create(Backend *b, const StreamOptions *o, int *out) {
    Diag *d = cuda_state_check(b);
    if (d) return d;
    CudaStreams *s = cuda_state_streams(b);
    cudaStream_t st = NULL;
    cudaError_t e = cudaStreamCreateWithPriority(&st, o && o->non_blocking ? cudaStreamNonBlocking : cudaStreamDefault,
                                                 o ? o->priority : 0);
    if (e != cudaSuccess) return cuda_state_fail(b, e, "cudaStreamCreateWithPriority");
    s->streams = xrealloc(s->streams, (size_t)(s->n_streams + 1) * sizeof *s->streams);
    s->stream_live = xrealloc(s->stream_live, (size_t)(s->n_streams + 1) * sizeof *s->stream_live);
    int id = s->n_streams++;
    s->streams[id] = st;
    s->stream_live[id] = true;
    char buf[32];
    snprintf(buf, sizeof buf, "stream %d", id);
    int prio = o ? o->priority : 0;
    if (cudaStreamGetPriority(st, &prio) != cudaSuccess) (void)cudaGetLastError();  /* clamped to the range */
    timeline_set_stream(s->tl, id, o && o->name ? o->name : buf, prio);
    *out = id;
    return NULL;
}

Diag *cuda_stream_destroy(Backend *b, int id) {
    CudaStreams *s = cuda_state_streams(b);
    if (id == 0) return diag_error("gpu", "invalid resource handle: the default stream cannot be destroyed");
    cudaStream_t st;
    Diag *d = cuda_streams_get(s, id, &st);
    if (d) return d;
    s->stream_live[id] = false;
    if (cuda_state_check(b)) return NULL;     /* context lost: nothing to destroy */
    cudaError_t e = cudaStreamDestroy(st);
    return e == cudaSuccess ? NULL : cuda_state_fail(b, e, "cudaStreamDestroy");
}

Diag *cuda_stream_synchronize(Backend *b, int id) {
    Diag *d = cuda_state_check(b);
    if (d) return d;
    CudaStreams *s = cuda_state_streams(b);
    cudaStream_t st;
    if ((d = cuda_streams_get(s, id, &st))) return d;
    Wait w = wait_begin(s);
    cudaError_t e = cudaStreamSynchronize(st);
    char what[64];
    snprintf(what, sizeof what, "wait for stream %d", id);
    wait_end(s, &w, what);
    return e == cudaSuccess ? NULL : cuda_state_fail(b, e, "cudaStreamSynchronize");
}

Diag *cuda_device_synchronize(Backend *b) {
    Diag *d = cuda_state_check(b);
    if (d) return d;
    CudaStreams *s = cuda_state_streams(b);
    Wait w = wait_begin(s);
    cudaError_t e = cudaDeviceSynchronize();
    wait_end(s, &w, "wait for the device");
    return e == cudaSuccess ? NULL : cuda_state_fail(b, e, "cudaDeviceSynchronize");
}

/* ---- events ---- */

static Diag *event_get(CudaStreams *s, int id, cudaEvent_t *out) {
    if (id > 0 && id < s->n_events && s->events[id]) {
        *out = s->events[id];
        return NULL;
    }
    return diag_error("gpu", "invalid resource handle: event %d does not exist (or was destroyed)", id);
}

Diag *cuda_event_create(Backend *b, int *out) {
    Diag *d = cuda_state_check(b);
    if (d) return d;
    CudaStreams *s = cuda_state_streams(b);
    cudaEvent_t ev = NULL;
    cudaError_t e = cudaEventCreate(&ev);
    if (e != cudaSuccess) return cuda_state_fail(b, e, "cudaEventCreate");
    s->events = xrealloc(s->events, (size_t)(s->n_events + 1) * sizeof *s->events);
    *out = s->n_events;
    s->events[s->n_events++] = ev;
    return NULL;
}

Diag *cuda_event_destroy(Backend *b, int id) {
    CudaStreams *s = cuda_state_streams(b);
    cudaEvent_t ev = NULL;
    Diag *d = event_get(s, id, &ev);
    if (d) return d;
    s->events[id] = NULL;
    if (cuda_state_check(b)) return NULL;
    cudaError_t e = cudaEventDestroy(ev);
    return e == cudaSuccess ? NULL : cuda_state_fail(b, e, "cudaEventDestroy");
}

Diag *cuda_event_record(Backend *b, int id, int stream) {
    Diag *d = cuda_state_check(b);
    if (d) return d;
    CudaStreams *s = cuda_state_streams(b);
    cudaEvent_t ev = NULL;
    cudaStream_t st;
    if ((d = event_get(s, id, &ev)) || (d = cuda_streams_get(s, stream, &st))) return d;
    TlMark a = cuda_streams_mark_begin(s, st);
    cudaError_t e = cudaEventRecord(ev, st);
    char name[32];
    snprintf(name, sizeof name, "event %d", id);
    cuda_streams_mark_end(s, a, st, TL_EVENT, stream, name, 0, false, NULL);
    return e == cudaSuccess ? NULL : cuda_state_fail(b, e, "cudaEventRecord");
}

Diag *cuda_event_synchronize(Backend *b, int id) {
    Diag *d = cuda_state_check(b);
    if (d) return d;
    CudaStreams *s = cuda_state_streams(b);
    cudaEvent_t ev = NULL;
    if ((d = event_get(s, id, &ev))) return d;
    Wait w = wait_begin(s);
    cudaError_t e = cudaEventSynchronize(ev);
    char what[48];
    snprintf(what, sizeof what, "wait for event %d", id);
    wait_end(s, &w, what);
    return e == cudaSuccess ? NULL : cuda_state_fail(b, e, "cudaEventSynchronize");
}

Diag *cuda_event_query(Backend *b, int id, bool *done) {
    *done = true;
    Diag *d = cuda_state_check(b);
    if (d) return d;
    cudaEvent_t ev = NULL;
    if ((d = event_get(cuda_state_streams(b), id, &ev))) return d;
    cudaError_t e = cudaEventQuery(ev);
    if (e == cudaErrorNotReady) {
        (void)cudaGetLastError();
        *done = false;
        return NULL;
    }
    return e == cudaSuccess ? NULL : cuda_state_fail(b, e, "cudaEventQuery");
}

Diag *cuda_event_elapsed_ms(Backend *b, int ev0, int ev1, double *ms, bool *modeled) {
    *ms = 0;
    *modeled = false;
    Diag *d = cuda_state_check(b);
    if (d) return d;
    CudaStreams *s = cuda_state_streams(b);
    cudaEvent_t a = NULL, z = NULL;
    if ((d = event_get(s, ev0, &a)) || (d = event_get(s, ev1, &z))) return d;
    float f = 0;
    cudaError_t e = cudaEventElapsedTime(&f, a, z);
    if (e != cudaSuccess) return cuda_state_fail(b, e, "cudaEventElapsedTime");
    *ms = f;
    return NULL;
}

/* ---- memory and copies ---- */

Diag *cuda_host_alloc(Backend *b, size_t bytes, void **out) {
    *out = NULL;
    Diag *d = cuda_state_check(b);
    if (d) return d;
    cudaError_t e = cudaMallocHost(out, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        *out = NULL;
        return cuda_state_fail(b, e, "cudaMallocHost");
    }
    memset(*out, 0, bytes ? bytes : 1);
    return NULL;
}

void cuda_host_free(Backend *b, void *p) {
    if (!p) return;
    if (cuda_state_check(b)) return;  /* lost context: the process restarts anyway */
    if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
}

Diag *cuda_copy_async(Backend *b, const CopyRequest *rq) {
    Diag *d = cuda_state_check(b);
    if (d) return d;
    CudaStreams *s = cuda_state_streams(b);
    cudaStream_t st;
    if ((d = cuda_streams_get(s, rq->stream, &st))) return d;
    if (!rq->bytes) return NULL;
    char name[160];
    void *dst;
    const void *src;
    enum cudaMemcpyKind kind;
    TimelineKind tk;
    if (rq->dir == COPY_H2D) {
        if ((d = cuda_state_check_range(b, rq->dev, rq->bytes, "into"))) return d;
        dst = (void *)(uintptr_t)rq->dev, src = rq->host, kind = cudaMemcpyHostToDevice, tk = TL_H2D;
        snprintf(name, sizeof name, "copy %.120s -> device", cuda_state_label(b, rq->dev));
    } else if (rq->dir == COPY_D2H) {
        if ((d = cuda_state_check_range(b, rq->dev, rq->bytes, "out of"))) return d;
        dst = rq->host, src = (const void *)(uintptr_t)rq->dev, kind = cudaMemcpyDeviceToHost, tk = TL_D2H;
        snprintf(name, sizeof name, "copy %.120s -> host", cuda_state_label(b, rq->dev));
    } else {
        if ((d = cuda_state_check_range(b, rq->dev, rq->bytes, "into")) ||
            (d = cuda_state_check_range(b, rq->dev_src, rq->bytes, "out of")))
            return d;
        dst = (void *)(uintptr_t)rq->dev, src = (const void *)(uintptr_t)rq->dev_src;
        kind = cudaMemcpyDeviceToDevice, tk = TL_D2D;
        snprintf(name, sizeof name, "copy %.120s on device", cuda_state_label(b, rq->dev_src));
    }
    TlMark a = cuda_streams_mark_begin(s, st);
    cudaError_t e = cudaMemcpyAsync(dst, src, rq->bytes, kind, st);
    cuda_streams_mark_end(s, a, st, tk, rq->stream, rq->name ? rq->name : name, rq->bytes, rq->pinned, NULL);
    /* From pageable memory CUDA makes the copy synchronous by itself; an
     * array that is not pinned may still sit in a page-locked buffer of the
     * arrays' pool (host_buffer_take), so wait here as CUDA would. */
    if (e == cudaSuccess && !rq->pinned && rq->dir != COPY_D2D) e = cudaStreamSynchronize(st);
    return e == cudaSuccess ? NULL : cuda_state_fail(b, e, "cudaMemcpyAsync");
}

Diag *cuda_memset_async(Backend *b, DevPtr dst, int value, size_t bytes, int stream, const char *label) {
    Diag *d = cuda_state_check(b);
    if (d) return d;
    CudaStreams *s = cuda_state_streams(b);
    cudaStream_t st;
    if ((d = cuda_streams_get(s, stream, &st))) return d;
    if (!bytes) return NULL;
    if ((d = cuda_state_check_range(b, dst, bytes, "(memset) into"))) return d;
    char name[160];
    snprintf(name, sizeof name, "memset %.120s", cuda_state_label(b, dst));
    TlMark a = cuda_streams_mark_begin(s, st);
    cudaError_t e = cudaMemsetAsync((void *)(uintptr_t)dst, value, bytes, st);
    cuda_streams_mark_end(s, a, st, TL_MEMSET, stream, label ? label : name, bytes, false, NULL);
    return e == cudaSuccess ? NULL : cuda_state_fail(b, e, "cudaMemsetAsync");
}

/* ---- host work and the timeline ---- */

void cuda_host_work_begin(Backend *b, const char *name) {
    CudaStreams *s = cuda_state_streams(b);
    if (!cuda_state_check(b)) ensure_base(s);
    free(s->host_name);
    s->host_name = xstrdup(name ? name : "host work");
    s->host_start_us = now_us();
}

void cuda_host_work_end(Backend *b, double us) {
    CudaStreams *s = cuda_state_streams(b);
    if (!s->host_name) return;
    host_entry(s, TL_HOST, s->host_name, s->host_start_us, s->host_start_us + (us >= 0 ? us : 0), NULL);
    XFREE(s->host_name);
}

void cuda_timeline_reset(Backend *b) {
    CudaStreams *s = cuda_state_streams(b);
    bool ok = !cuda_state_check(b);
    if (ok && cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
    for (int i = 0; i < s->n_pend; i++) {
        pool_give(s, s->pend[i].a);
        pool_give(s, s->pend[i].b);
    }
    s->n_pend = 0;
    if (s->mode == TL_MODE_CUPTI) {     /* the records of the last run are not this one's */
        CuptiRecord *r = NULL;
        cupti_take(&r, NULL);
        free(r);
    }
    timeline_clear(s->tl);
    if (s->have_base && ok && s->base) cudaEventDestroy(s->base);
    s->base = NULL;
    s->have_base = false;
}

static void resolve_events(CudaStreams *s) {
    for (int i = 0; i < s->n_pend; i++) {
        Pending *p = &s->pend[i];
        float t0 = 0, dur = 0;
        if (cudaEventElapsedTime(&t0, s->base, p->a) != cudaSuccess ||
            cudaEventElapsedTime(&dur, p->a, p->b) != cudaSuccess) {
            (void)cudaGetLastError();
            continue;                   /* stays at its issue time: better than no entry */
        }
        s->tl->v[p->entry].start_us = (double)t0 * 1e3;
        s->tl->v[p->entry].dur_us = (double)dur * 1e3;
        pool_give(s, p->a);
        pool_give(s, p->b);
        p->a = p->b = NULL;
    }
    int w = 0;
    for (int i = 0; i < s->n_pend; i++)
        if (s->pend[i].a) s->pend[w++] = s->pend[i];
    s->n_pend = w;
}

/* Correlation id -> pending index, open addressing (ids are never 0). */
typedef struct CorrMap {
    uint32_t *key;
    int *val;
    size_t cap;
} CorrMap;

static void corr_put(CorrMap *m, uint32_t k, int v) {
    size_t i = (k * 2654435761u) & (m->cap - 1);
    while (m->key[i] && m->key[i] != k) i = (i + 1) & (m->cap - 1);
    m->key[i] = k;
    m->val[i] = v;
}

static int corr_get(const CorrMap *m, uint32_t k) {
    size_t i = (k * 2654435761u) & (m->cap - 1);
    while (m->key[i]) {
        if (m->key[i] == k) return m->val[i];
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

/* CUPTI's records onto the bracketed entries; events get the end of the
 * work before them on their stream. */
static void resolve_cupti(CudaStreams *s) {
    CuptiRecord *r = NULL;
    long lost = 0;
    int n = cupti_take(&r, &lost);
    s->tl->dropped += lost;
    size_t ids = 0;
    for (int i = 0; i < s->n_pend; i++) ids += (size_t)s->pend[i].br.n;
    CorrMap m = {0};
    m.cap = 16;
    while (m.cap < ids * 2) m.cap *= 2;
    m.key = xcalloc(m.cap, sizeof *m.key);
    m.val = xcalloc(m.cap, sizeof *m.val);
    for (int i = 0; i < s->n_pend; i++)
        for (int j = 0; j < s->pend[i].br.n; j++)
            if (s->pend[i].br.ids[j]) corr_put(&m, s->pend[i].br.ids[j], i);
    bool *hit = xcalloc((size_t)s->n_pend + 1, sizeof *hit);
    for (int k = 0; k < n; k++) {
        int i = corr_get(&m, r[k].corr);
        if (i < 0) continue;            /* not ours (cudart's own work), or a run that was reset */
        TimelineEntry *e = &s->tl->v[s->pend[i].entry];
        if (s->pend[i].host != (r[k].kind == TL_SYNC)) continue;
        double t0 = (double)(int64_t)(r[k].start_ns - s->cupti_base_ns) / 1e3;
        double t1 = (double)(int64_t)(r[k].end_ns - s->cupti_base_ns) / 1e3;
        if (hit[i]) {                   /* a call CUDA split into several (a large pageable copy) */
            double end = e->start_us + e->dur_us;
            if (t0 < e->start_us) e->start_us = t0;
            if (t1 > end) end = t1;
            e->dur_us = end - e->start_us;
            if (r[k].kind != TL_SYNC && r[k].kind != TL_KERNEL) e->bytes += r[k].bytes;
            continue;
        }
        hit[i] = true;
        e->start_us = t0;
        e->dur_us = t1 - t0;
        if (r[k].kind == TL_H2D || r[k].kind == TL_D2H || r[k].kind == TL_D2D || r[k].kind == TL_MEMSET) {
            e->bytes = r[k].bytes;
            if (r[k].kind != TL_MEMSET) e->pinned = r[k].pinned;
        }
    }
    /* Event records: complete when the work queued before them on their
     * stream has ended (the legacy stream also waits for blocking streams,
     * which this leaves out: an event there sits at least that late). */
    for (int i = 0; i < s->n_pend; i++) {
        TimelineEntry *e = &s->tl->v[s->pend[i].entry];
        if (e->kind != TL_EVENT) continue;
        double at = e->start_us;
        for (int j = s->pend[i].entry - 1; j >= 0; j--) {
            const TimelineEntry *q = &s->tl->v[j];
            if (q->stream != e->stream || q->kind == TL_EVENT) continue;
            if (q->start_us + q->dur_us > at) at = q->start_us + q->dur_us;
            break;
        }
        e->start_us = at;
        e->dur_us = 0;
    }
    s->n_pend = 0;                      /* after a synchronize and a forced flush nothing more comes */
    free(hit);
    free(m.key);
    free(m.val);
    free(r);
}

Diag *cuda_timeline_get(Backend *b, Timeline **out) {
    CudaStreams *s = cuda_state_streams(b);
    *out = NULL;
    Diag *d = cuda_state_check(b);
    if (!d) {
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) d = cuda_state_fail(b, e, "cudaDeviceSynchronize");
    }
    if (!d && s->mode == TL_MODE_EVENTS) resolve_events(s);
    if (!d && s->mode == TL_MODE_CUPTI) resolve_cupti(s);
    *out = timeline_copy(s->tl);
    return d;
}
