/* kernels/cuda/inject_activity.c: the Injector's activity records
 * (injector_activity and injector_finish of kernels/cuda/inject.h) —
 * kernels, copies, memsets, host waits, events and managed-memory
 * migrations are kept as they come, and at exit become "kernel" records,
 * the "unified_memory" totals and one "timeline", each on the stream CUPTI
 * or the call it came from (inject_call.c) says. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "base/i18n.h"
#include "base/xalloc.h"
#include "kernels/cuda/inject.h"
#include "kernels/cuda/inject_trace.h"
#include "kernels/progwire.h"
#include "kernels/timeline.h"

#define MAX_KERNEL_RECORDS PROGWIRE_MAX_CALLS

/* ---- activity records ------------------------------------------------------------------- */

static TimelineKind copy_kind(uint8_t k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return TL_H2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return TL_D2H;
    default: return TL_D2D;
    }
}

/* Keeps a copy of *a (taking its name); false when full. */
static bool act_push(Injector *ij, const Act *a) {
    if (ij->n_acts >= MAX_ACTS) {
        ij->acts_dropped++;
        return false;
    }
    if (ij->n_acts == ij->cap_acts) {
        ij->cap_acts = ij->cap_acts ? ij->cap_acts * 2 : 256;
        ij->acts = xrealloc(ij->acts, ij->cap_acts * sizeof *ij->acts);
    }
    ij->acts[ij->n_acts++] = *a;
    return true;
}

#define MAX_UM_RECS (1 << 20)
/* Page migrations may take at most this many timeline rows, so that a flood
 * of them (fault-driven migration of a large managed buffer: tens of
 * thousands of records) never pushes the kernels out of the list. */
#define MAX_UM_ACTS (MAX_ACTS / 4)
/* Two migrations this close (ns) in the same direction and stream are one bar. */
#define UM_JOIN_NS 200

/* A migration for the timeline: joined to the last one when it continues
 * it, else a new row while fewer than MAX_UM_ACTS are kept. */
static void um_act(Injector *ij, const CUpti_ActivityUnifiedMemoryCounter3 *u, int sub) {
    if (ij->last_um_act > 0) {
        Act *p = &ij->acts[ij->last_um_act - 1];
        if (p->sub == sub && p->sid == u->streamId && u->start >= p->start && u->start <= p->end + UM_JOIN_NS) {
            if (u->end > p->end) p->end = u->end;
            p->bytes += u->value;
            return;
        }
    }
    if (ij->n_um_acts >= MAX_UM_ACTS) {
        ij->acts_dropped++;
        return;
    }
    if (act_push(ij, &(Act){.what = ACT_UM, .sub = sub, .sid = u->streamId,   /* no context */
                            .start = u->start, .end = u->end, .bytes = u->value}))
        ij->n_um_acts++, ij->last_um_act = ij->n_acts;
}

static void um_counter(Injector *ij, const CUpti_ActivityUnifiedMemoryCounter3 *u) {
    ij->um_seen = true;
    if (ij->n_um < MAX_UM_RECS) {
        if (ij->n_um == ij->cap_um) {
            ij->cap_um = ij->cap_um ? ij->cap_um * 2 : 256;
            ij->um_recs = xrealloc(ij->um_recs, ij->cap_um * sizeof *ij->um_recs);
        }
        bool transfer = u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD ||
                        u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH;
        ij->um_recs[ij->n_um++] = (UmRec){(int)u->counterKind,
                                          transfer && u->flags == CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER,
                                          u->start, u->value};
    }
    switch (u->counterKind) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH: {
        bool h2d = u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
        *(h2d ? &ij->um_h2d : &ij->um_d2h) += u->value;
        *(h2d ? &ij->um_h2d_n : &ij->um_d2h_n) += 1;
        if (u->start && u->end >= u->start) um_act(ij, u, h2d ? TL_H2D : TL_D2H);
        break;
    }
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT: ij->um_cpu_faults += u->value; break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT: ij->um_gpu_faults += u->value; break;
    default: break;
    }
}

void injector_activity(Injector *ij, const CUpti_Activity *rec) {
    Act a = {0};
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const void *)rec;
        a = (Act){.what = ACT_KERNEL, .corr = k->correlationId, .sid = STREAM_KEY(k->contextId, k->streamId),
                  .start = k->start, .end = k->end, .grid = {k->gridX, k->gridY, k->gridZ},
                  .block = {k->blockX, k->blockY, k->blockZ},
                  .shared_dyn = k->dynamicSharedMemory, .shared_static = k->staticSharedMemory,
                  .regs = k->registersPerThread, .local = k->localMemoryPerThread};
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const void *)rec;
        TimelineKind tk = copy_kind(m->copyKind);
        uint8_t host = tk == TL_H2D ? m->srcKind : m->dstKind;
        a = (Act){.what = ACT_COPY, .sub = tk, .corr = m->correlationId, .sid = STREAM_KEY(m->contextId, m->streamId),
                  .start = m->start, .end = m->end, .bytes = m->bytes,
                  .pinned = tk != TL_D2D && host == CUPTI_ACTIVITY_MEMORY_KIND_PINNED};
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const void *)rec;
        a = (Act){.what = ACT_MEMSET, .corr = m->correlationId, .sid = STREAM_KEY(m->contextId, m->streamId),
                  .start = m->start, .end = m->end, .bytes = m->bytes};
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const CUpti_ActivitySynchronization2 *s = (const void *)rec;
        if (s->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT) return;   /* the GPU waits */
        a = (Act){.what = ACT_SYNC, .sub = (int)s->type, .corr = s->correlationId,
                  .sid = STREAM_KEY(s->contextId, s->streamId), .start = s->start, .end = s->end};
        break;
    }
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        const CUpti_ActivityCudaEvent2 *e = (const void *)rec;
        if (!e->deviceTimestamp) return;
        a = (Act){.what = ACT_EVENT, .corr = e->correlationId, .sid = STREAM_KEY(e->contextId, e->streamId),
                  .start = e->deviceTimestamp, .end = e->deviceTimestamp};
        break;
    }
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
        pthread_mutex_lock(&ij->mu);
        if (!ij->finished) um_counter(ij, (const void *)rec);
        pthread_mutex_unlock(&ij->mu);
        return;
    default:
        return;
    }
    if (!a.start || a.end < a.start) return;
    pthread_mutex_lock(&ij->mu);
    if (!ij->finished) {
        if (a.what == ACT_KERNEL) a.name = xstrdup(((const CUpti_ActivityKernel10 *)rec)->name);
        if (!act_push(ij, &a)) free(a.name);
    }
    pthread_mutex_unlock(&ij->mu);
}

/* ---- at exit ----------------------------------------------------------------------------- */

/* The stream number of a record: CUPTI's stream id if known, else the
 * call it came from (and remember that for the id), else a new number. */
static int act_stream(Injector *ij, const Act *a) {
    if (a->what == ACT_UM) {   /* CUPTI gives no context: any stream with that id, else the legacy one */
        for (int i = 0; i < ij->n_sids; i++)
            if ((uint32_t)ij->sids[i].sid == (uint32_t)a->sid) return ij->sids[i].num;
        return 0;
    }
    const int *n = injector_find_sid(ij, a->sid);
    if (n) return *n;
    const CorrInfo *c = injector_get_corr(ij, a->corr);
    int num = c && c->stream >= 0 ? c->stream : ++ij->next_stream;
    injector_learn_sid(ij, a->sid, num);
    return num;
}

static int cmp_act(const void *x, const void *y) {
    const Act *a = x, *b = y;
    return (a->start > b->start) - (a->start < b->start);
}

static char *sync_name(const Injector *ij, const Act *a, int stream) {
    const CorrInfo *c = injector_get_corr(ij, a->corr);
    switch (a->sub) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
        if (c && c->event > 0) return xasprintf("cudaEventSynchronize(event %d)", c->event);
        return xstrdup("cudaEventSynchronize");
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
        return xasprintf("cudaStreamSynchronize(stream %d)", stream);
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return xstrdup("cudaDeviceSynchronize");
    default: return xstrdup(c && c->fn ? c->fn : "synchronize");
    }
}

static void add_streams(Injector *ij, Timeline *tl) {
    for (int i = 0; i < ij->n_streams; i++) {
        const Handle *s = &ij->streams[i];
        char name[64];
        snprintf(name, sizeof name, "stream %d%s", s->num, s->flags & cudaStreamNonBlocking ? " (non-blocking)" : "");
        timeline_set_stream(tl, s->num, name, s->priority);
    }
    if (ij->per_thread) timeline_set_stream(tl, ij->per_thread, "default (per-thread)", 0);
}

static json_t *dim_json(const int d[3]) {
    return json_pack("[iii]", d[0], d[1], d[2]);
}

static json_t *kernel_json(const Act *a, const char *name, int stream) {
    json_t *o = json_object();
    json_object_set_new(o, "name", progwire_string(name));
    json_object_set_new(o, "mangled", progwire_string(a->name ? a->name : ""));
    json_object_set_new(o, "grid", dim_json(a->grid));
    json_object_set_new(o, "block", dim_json(a->block));
    json_object_set_new(o, "shared", json_integer(a->shared_dyn));
    json_object_set_new(o, "stream", json_integer(stream));
    json_object_set_new(o, "registers", json_integer(a->regs));
    json_object_set_new(o, "local_bytes", json_integer(a->local));
    json_object_set_new(o, "shared_static", json_integer(a->shared_static));
    json_object_set_new(o, "ms", json_real((double)(a->end - a->start) / 1e6));
    json_object_set_new(o, "modeled", json_false());
    return o;
}

/* Builds the timeline and the kernel records (appended to `kernels`); under mu. */
static Timeline *build(Injector *ij, json_t *kernels, long dropped) {
    Timeline *tl = timeline_new(false, "cupti", ij->device);
    if (ij->n_acts) qsort(ij->acts, ij->n_acts, sizeof *ij->acts, cmp_act);
    uint64_t base = ij->n_acts ? ij->acts[0].start : 0;
    tl->origin_us = (double)base / 1e3;   /* CUPTI's clock: shared by processes (t:program{processes}) */
    for (size_t i = 0; i < ij->n_acts; i++)   /* learn every stream id before the host waits are named */
        if (ij->acts[i].what != ACT_SYNC) act_stream(ij, &ij->acts[i]);
    for (size_t i = 0; i < ij->n_acts; i++) {
        const Act *a = &ij->acts[i];
        const CorrInfo *c = injector_get_corr(ij, a->corr);
        double start = (double)(a->start - base) / 1e3, dur = (double)(a->end - a->start) / 1e3;
        int stream = a->what == ACT_SYNC ? TIMELINE_HOST : act_stream(ij, a);
        TimelineEntry *e = NULL;
        switch (a->what) {
        case ACT_KERNEL: {
            char *name = inject_kernel_name(a->name);
            if ((e = timeline_add(tl, TL_KERNEL, stream, name, start, dur)))
                for (int k = 0; k < 3; k++) e->grid[k] = (unsigned)a->grid[k], e->block[k] = (unsigned)a->block[k];
            if (json_array_size(kernels) < MAX_KERNEL_RECORDS)
                json_array_append_new(kernels, kernel_json(a, name, stream));
            free(name);
            break;
        }
        case ACT_COPY:
        case ACT_MEMSET:
            e = timeline_add(tl, a->what == ACT_COPY ? (TimelineKind)a->sub : TL_MEMSET, stream,
                             c && c->fn ? c->fn : a->what == ACT_COPY ? "copy" : "memset", start, dur);
            if (e) e->bytes = (size_t)a->bytes, e->pinned = a->pinned;
            break;
        case ACT_UM:
            if ((e = timeline_add(tl, (TimelineKind)a->sub, stream, N_("page migration"), start, dur)))
                e->bytes = (size_t)a->bytes;
            break;
        case ACT_EVENT: {
            char name[32];
            snprintf(name, sizeof name, "event %d", c && c->event > 0 ? c->event : 0);
            timeline_add(tl, TL_EVENT, stream, name, start, 0);
            break;
        }
        case ACT_SYNC: {
            /* CUPTI also reports cudaEventQuery/cudaStreamQuery here: a query never waits */
            if (c && c->fn && strstr(c->fn, "Query")) break;
            const int *sn = injector_find_sid(ij, a->sid);
            char *name = sync_name(ij, a, c && c->stream >= 0 ? c->stream : sn ? *sn : 0);
            timeline_add(tl, TL_SYNC, TIMELINE_HOST, name, start, dur);
            free(name);
            break;
        }
        }
    }
    add_streams(ij, tl);   /* after act_stream, which may have numbered unknown streams */
    for (int n = 1; n <= ij->next_stream; n++) {
        bool named = false;
        for (int s = 0; s < tl->n_streams; s++) named |= tl->streams[s].id == n;
        if (!named) {
            char name[32];
            snprintf(name, sizeof name, "stream %d", n);
            timeline_set_stream(tl, n, name, 0);
        }
    }
    tl->dropped += dropped + ij->acts_dropped;
    return tl;
}

static int cmp_u64(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* The "um" records of kernels/progwire.h from CUPTI's counters: each record
 * goes to the kernel running when it started ("kernel", GPU faults and the
 * bytes they pulled), else to the host code after the kernels started
 * before it ("host"; "prefetch" for migrations the program asked for).
 * Kernels are numbered in start order, as their records are sent. Under mu;
 * returns a new array. */
static json_t *um_records(const Injector *ij) {
    json_t *out = json_array();
    char why[320] = "";
    if (!ij->um_enabled)
        snprintf(why, sizeof why, "CUPTI refused the unified-memory counters on this machine (%s), or "
                 "CUDOJO_INJECT_UM=0", ij->um_refusal[0] ? ij->um_refusal : "driver or GPU");
    json_array_append_new(out, json_pack("{sssbss}", "phase", "status", "ok", ij->um_enabled, "why", why));
    size_t nk = 0;
    for (size_t i = 0; i < ij->n_acts; i++) nk += ij->acts[i].what == ACT_KERNEL;
    uint64_t *ks = xcalloc(nk ? nk : 1, 2 * sizeof *ks);
    size_t k = 0;
    for (size_t i = 0; i < ij->n_acts; i++)
        if (ij->acts[i].what == ACT_KERNEL) ks[2 * k] = ij->acts[i].start, ks[2 * k + 1] = ij->acts[i].end, k++;
    qsort(ks, nk, 2 * sizeof *ks, cmp_u64);
    /* summed per (kernel, phase) before they are sent: one record per bucket,
     * however many fault groups CUPTI reported */
    enum { PH_HOST, PH_KERNEL, PH_PREFETCH, N_PH };
    static const char *const phase_names[N_PH] = {"host", "kernel", "prefetch"};
    typedef struct { json_int_t g, c, h2d, d2h; bool any; } Bucket;
    Bucket *sums = xcalloc((nk + 1) * N_PH, sizeof *sums);
    for (size_t i = 0; i < ij->n_um; i++) {
        const UmRec *u = &ij->um_recs[i];
        size_t lo = 0, hi = nk;   /* kernels started at or before u: binary search on start */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (ks[2 * mid] <= u->start) lo = mid + 1;
            else hi = mid;
        }
        size_t before = lo;
        bool during = before > 0 && u->start <= ks[2 * (before - 1) + 1];
        Bucket *b = &sums[before * N_PH + (u->prefetch ? PH_PREFETCH : during ? PH_KERNEL : PH_HOST)];
        switch (u->kind) {
        case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT: b->g += (json_int_t)u->value; break;
        case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT: b->c += (json_int_t)u->value; break;
        case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD: b->h2d += (json_int_t)u->value; break;
        case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH: b->d2h += (json_int_t)u->value; break;
        default: continue;
        }
        b->any = true;
    }
    for (size_t kn = 0; kn <= nk; kn++)
        for (int p = 0; p < N_PH; p++) {
            const Bucket *b = &sums[kn * N_PH + p];
            if (b->any)
                json_array_append_new(out, json_pack("{sssIsIsIsIsIss}", "phase", phase_names[p], "kernel",
                                                     (json_int_t)kn, "gpu_faults", b->g, "cpu_faults", b->c,
                                                     "h2d", b->h2d, "d2h", b->d2h, "source", "cupti"));
        }
    free(sums);
    free(ks);
    return out;
}

void injector_finish(Injector *ij, long dropped) {
    pthread_mutex_lock(&ij->mu);
    if (ij->finished) {
        pthread_mutex_unlock(&ij->mu);
        return;
    }
    if (!ij->hello_sent) injector_send_hello_locked(ij);
    ij->finished = true;
    json_t *kernels = json_array();
    Timeline *tl = build(ij, kernels, dropped);
    json_t *um = NULL;
    if (ij->um_seen)
        um = json_pack("{sIsIsIsIsIsI}", "h2d_bytes", (json_int_t)ij->um_h2d, "d2h_bytes", (json_int_t)ij->um_d2h,
                       "h2d_migrations", (json_int_t)ij->um_h2d_n, "d2h_migrations", (json_int_t)ij->um_d2h_n,
                       "cpu_page_faults", (json_int_t)ij->um_cpu_faults, "gpu_page_faults",
                       (json_int_t)ij->um_gpu_faults);
    json_t *um_recs = um_records(ij);
    pthread_mutex_unlock(&ij->mu);
    if (ij->hk.send) {
        size_t i;
        json_t *k;
        json_array_foreach(kernels, i, k) ij->hk.send(ij->hk.user, "kernel", json_incref(k));
        if (um) ij->hk.send(ij->hk.user, "unified_memory", json_incref(um));
        json_array_foreach(um_recs, i, k) ij->hk.send(ij->hk.user, "um", json_incref(k));
        json_t *o = json_object();
        json_object_set_new(o, "timeline", timeline_to_json(tl));
        ij->hk.send(ij->hk.user, "timeline", o);
    }
    json_decref(um);
    json_decref(um_recs);
    json_decref(kernels);
    timeline_free(&tl);
}
