/* kernels/emu/emu_streams.c: when each operation would have run, on the
 * modeled GPU, with CUDA's stream semantics.
 *
 * The emulator has already done the work (in program order) by the time it
 * is scheduled here; this file only keeps clocks. One host clock (the
 * program's thread) and, per stream, the time its last operation ends.
 * An operation starts at the latest of: when the host issued it, when its
 * stream is free, the legacy default stream rule (stream 0 waits for every
 * blocking stream; a blocking stream waits for stream 0), and its engine:
 * H2D and D2H copies each have a copy engine (one shared engine when the
 * model says 1), kernels need SMs (a kernel holds min(blocks, SMs) SMs for
 * its whole modeled duration and starts at the first time that many are
 * free). Stream priorities are recorded but not modeled. */
#include "kernels/emu/emu_streams.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

typedef struct SStream {
    bool live, blocking;
    int priority;
    double ready;                   /* when its last operation ends */
} SStream;

typedef struct SEvent {
    bool live, recorded;
    double t;
} SEvent;

typedef struct Busy {
    double start, end;
    int sms;
} Busy;

struct EmuSched {
    CostModel m;
    Timeline *tl;
    double host;                    /* the host thread's clock */
    SStream *streams;               /* index = stream id; 0 = legacy default */
    int n_streams;
    SEvent *events;                 /* index = event id; 0 unused */
    int n_events;
    double engine_free[2];          /* H2D, D2H copy engines */
    Busy *busy;                     /* kernels holding SMs */
    int n_busy, cap_busy;
    char *host_name;
    double host_start;
    int graph_depth;                /* > 0 while a graph's nodes are being scheduled */
    double graph_host;              /* the host clock when that graph was launched */
};

static double dmax(double a, double b) { return a > b ? a : b; }

EmuSched *emu_sched_new(const CostModel *m) {
    EmuSched *s = xcalloc(1, sizeof *s);
    s->m = *m;
    s->tl = timeline_new(true, "emu-model", m->name);
    s->streams = xcalloc(1, sizeof *s->streams);
    s->streams[0] = (SStream){true, true, 0, 0};
    s->n_streams = 1;
    s->events = xcalloc(1, sizeof *s->events);
    s->n_events = 1;
    return s;
}

void emu_sched_free(EmuSched **sp) {
    EmuSched *s = *sp;
    if (!s) return;
    timeline_free(&s->tl);
    free(s->streams);
    free(s->events);
    free(s->busy);
    free(s->host_name);
    free(s);
    *sp = NULL;
}

const CostModel *emu_sched_model(const EmuSched *s) { return &s->m; }
const Timeline *emu_sched_timeline(const EmuSched *s) { return s->tl; }

void emu_sched_reset(EmuSched *s) {
    timeline_clear(s->tl);
    s->host = 0;
    for (int i = 0; i < s->n_streams; i++) s->streams[i].ready = 0;
    for (int i = 0; i < s->n_events; i++) s->events[i].recorded = false;
    s->engine_free[0] = s->engine_free[1] = 0;
    s->n_busy = 0;
    s->graph_depth = 0;
    XFREE(s->host_name);
}

/* ---- streams ---- */

Diag *emu_sched_stream_check(const EmuSched *s, int id) {
    if (id >= 0 && id < s->n_streams && s->streams[id].live) return NULL;
    return diag_error("emu", "invalid resource handle: stream %d does not exist (or was destroyed)", id);
}

Diag *emu_sched_stream_create(EmuSched *s, const StreamOptions *o, int *out) {
    s->streams = xrealloc(s->streams, (size_t)(s->n_streams + 1) * sizeof *s->streams);
    int id = s->n_streams++;
    s->streams[id] = (SStream){true, !(o && o->non_blocking), o ? o->priority : 0, s->host};
    char buf[32];
    snprintf(buf, sizeof buf, "stream %d", id);
    timeline_set_stream(s->tl, id, o && o->name ? o->name : buf, o ? o->priority : 0);
    *out = id;
    return NULL;
}

Diag *emu_sched_stream_destroy(EmuSched *s, int id) {
    if (id == 0) return diag_error("emu", "invalid resource handle: the default stream cannot be destroyed");
    Diag *d = emu_sched_stream_check(s, id);
    if (d) return d;
    s->streams[id].live = false;   /* its queued work still finishes: ready stays */
    return NULL;
}

/* When an operation issued to `id` may start as far as ordering goes. */
static double stream_dep(const EmuSched *s, int id) {
    double t = s->streams[id].ready;
    if (id == 0) {
        for (int i = 1; i < s->n_streams; i++)
            if (s->streams[i].blocking) t = dmax(t, s->streams[i].ready);
    } else if (s->streams[id].blocking) {
        t = dmax(t, s->streams[0].ready);
    }
    return t;
}

static void host_wait(EmuSched *s, double until, const char *what) {
    if (until > s->host) {
        if (what) timeline_add(s->tl, TL_SYNC, TIMELINE_HOST, what, s->host, until - s->host);
        s->host = until;
    }
}

Diag *emu_sched_stream_synchronize(EmuSched *s, int id) {
    Diag *d = emu_sched_stream_check(s, id);
    if (d) return d;
    char what[160];
    const TimelineStream *ts = NULL;
    for (int i = 0; i < s->tl->n_streams; i++)
        if (s->tl->streams[i].id == id) ts = &s->tl->streams[i];
    snprintf(what, sizeof what, "wait for %.140s", ts ? ts->name : "a stream");
    host_wait(s, s->streams[id].ready, what);
    return NULL;
}

void emu_sched_device_synchronize(EmuSched *s) {
    double t = s->host;
    for (int i = 0; i < s->n_streams; i++) t = dmax(t, s->streams[i].ready);
    host_wait(s, t, "wait for the device");
}

/* ---- events ---- */

static void commit(EmuSched *s, int stream, double end);

static Diag *event_check(const EmuSched *s, int ev) {
    if (ev > 0 && ev < s->n_events && s->events[ev].live) return NULL;
    return diag_error("emu", "invalid resource handle: event %d does not exist (or was destroyed)", ev);
}

Diag *emu_sched_event_create(EmuSched *s, int *out) {
    s->events = xrealloc(s->events, (size_t)(s->n_events + 1) * sizeof *s->events);
    int id = s->n_events++;
    s->events[id] = (SEvent){true, false, 0};
    *out = id;
    return NULL;
}

Diag *emu_sched_event_destroy(EmuSched *s, int ev) {
    Diag *d = event_check(s, ev);
    if (!d) s->events[ev].live = false;
    return d;
}

Diag *emu_sched_event_record(EmuSched *s, int ev, int stream) {
    Diag *d = event_check(s, ev);
    if (!d) d = emu_sched_stream_check(s, stream);
    if (d) return d;
    double t = dmax(s->host, stream_dep(s, stream));
    s->streams[stream].ready = t;
    s->events[ev].recorded = true;
    s->events[ev].t = t;
    char name[32];
    snprintf(name, sizeof name, "event %d", ev);
    timeline_add(s->tl, TL_EVENT, stream, name, t, 0);
    s->host += s->m.api_call_us;
    return NULL;
}

Diag *emu_sched_event_synchronize(EmuSched *s, int ev) {
    Diag *d = event_check(s, ev);
    if (d) return d;
    if (!s->events[ev].recorded) return NULL;   /* as in CUDA: nothing to wait for */
    char what[48];
    snprintf(what, sizeof what, "wait for event %d", ev);
    host_wait(s, s->events[ev].t, what);
    return NULL;
}

Diag *emu_sched_event_query(EmuSched *s, int ev, bool *done) {
    *done = true;
    Diag *d = event_check(s, ev);
    if (d) return d;
    /* Polling takes host time: a loop of queries ends when the event does. */
    s->host += s->m.api_call_us;
    *done = !s->events[ev].recorded || s->events[ev].t <= s->host;
    return NULL;
}

Diag *emu_sched_event_elapsed_ms(EmuSched *s, int ev0, int ev1, double *ms) {
    *ms = 0;
    Diag *d = event_check(s, ev0);
    if (!d) d = event_check(s, ev1);
    if (d) return d;
    if (!s->events[ev0].recorded || !s->events[ev1].recorded)
        return diag_error("emu", "invalid resource handle: elapsed time needs two recorded events "
                                 "(event %d has not been recorded)", s->events[ev0].recorded ? ev1 : ev0);
    int late = s->events[ev0].t > s->host ? ev0 : s->events[ev1].t > s->host ? ev1 : 0;
    if (late)
        return diag_error("emu", "device not ready: event %d has not completed yet; synchronize on it "
                                 "before asking for the elapsed time", late);
    *ms = (s->events[ev1].t - s->events[ev0].t) / 1e3;
    return NULL;
}

Diag *emu_sched_stream_query(EmuSched *s, int stream, bool *done) {
    *done = true;
    Diag *d = emu_sched_stream_check(s, stream);
    if (d) return d;
    s->host += s->m.api_call_us;    /* polling takes host time, as for events */
    double t = s->streams[stream].ready;
    if (stream == 0)
        for (int i = 1; i < s->n_streams; i++)
            if (s->streams[i].live && s->streams[i].blocking) t = dmax(t, s->streams[i].ready);
    *done = t <= s->host;
    return NULL;
}

Diag *emu_sched_stream_wait_event(EmuSched *s, int stream, int ev) {
    Diag *d = emu_sched_stream_check(s, stream);
    if (!d) d = event_check(s, ev);
    if (d) return d;
    if (s->events[ev].recorded) commit(s, stream, s->events[ev].t);
    s->host += s->m.api_call_us;
    return NULL;
}

/* ---- operations ---- */

static void commit(EmuSched *s, int stream, double end) { s->streams[stream].ready = dmax(s->streams[stream].ready, end); }

void emu_sched_copy(EmuSched *s, CopyDir dir, int stream, size_t bytes, bool pinned, const char *name) {
    if (stream < 0 || stream >= s->n_streams) stream = 0;
    double start = dmax(s->host, stream_dep(s, stream)), dur;
    int engine = -1;
    if (dir == COPY_D2D) {
        dur = costmodel_d2d_us(&s->m, bytes);
    } else {
        engine = dir == COPY_D2H && s->m.copy_engines >= 2 ? 1 : 0;
        start = dmax(start, s->engine_free[engine]);
        dur = costmodel_copy_us(&s->m, bytes, pinned);
    }
    double end = start + dur;
    if (engine >= 0) s->engine_free[engine] = end;
    commit(s, stream, end);
    TimelineEntry *e = timeline_add(s->tl, dir == COPY_H2D ? TL_H2D : dir == COPY_D2H ? TL_D2H : TL_D2D, stream,
                                    name, start, dur);
    if (e) {
        e->bytes = bytes;
        e->pinned = pinned;
    }
    /* A pageable copy returns only when done (the host stages it); a pinned
     * one only costs the call. */
    if (!pinned && dir != COPY_D2D) s->host = dmax(s->host, end);
    else if (!s->graph_depth) s->host += s->m.api_call_us;
}

void emu_sched_memset(EmuSched *s, int stream, size_t bytes, bool async, const char *name) {
    if (stream < 0 || stream >= s->n_streams) stream = 0;
    double start = dmax(s->host, stream_dep(s, stream));
    double dur = costmodel_memset_us(&s->m, bytes);
    commit(s, stream, start + dur);
    TimelineEntry *e = timeline_add(s->tl, TL_MEMSET, stream, name, start, dur);
    if (e) e->bytes = bytes;
    if (!async) s->host = dmax(s->host, start + dur);
    else if (!s->graph_depth) s->host += s->m.api_call_us;
}

/* SMs held at time t by scheduled kernels. */
static int sms_at(const EmuSched *s, double t) {
    int n = 0;
    for (int i = 0; i < s->n_busy; i++)
        if (s->busy[i].start <= t && t < s->busy[i].end) n += s->busy[i].sms;
    return n;
}

static bool fits(const EmuSched *s, double a, double b, int sms) {
    if (sms_at(s, a) + sms > s->m.sm_count) return false;
    for (int i = 0; i < s->n_busy; i++)
        if (s->busy[i].start > a && s->busy[i].start < b && sms_at(s, s->busy[i].start) + sms > s->m.sm_count)
            return false;
    return true;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The first time >= earliest when `sms` SMs are free for `dur`. */
static double place_kernel(EmuSched *s, double earliest, double dur, int sms) {
    /* Kernels that ended before the host clock can never matter again. */
    int w = 0;
    for (int i = 0; i < s->n_busy; i++)
        if (s->busy[i].end > s->host) s->busy[w++] = s->busy[i];
    s->n_busy = w;
    if (fits(s, earliest, earliest + dur, sms)) return earliest;
    double *cand = xmalloc((size_t)(s->n_busy + 1) * sizeof *cand);
    int n = 0;
    for (int i = 0; i < s->n_busy; i++)
        if (s->busy[i].end > earliest) cand[n++] = s->busy[i].end;
    qsort(cand, (size_t)n, sizeof *cand, cmp_double);
    double t = earliest;
    for (int i = 0; i < n; i++)
        if (fits(s, cand[i], cand[i] + dur, sms)) {
            t = cand[i];
            break;
        }
    free(cand);
    return t;
}

void emu_sched_kernel(EmuSched *s, int stream, bool async, const char *name, Dim3 grid, Dim3 block,
                      uint64_t warp_instructions, uint64_t global_sectors, double extra_us, double host_fraction) {
    if (stream < 0 || stream >= s->n_streams) stream = 0;
    uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
    double dur = costmodel_kernel_us(&s->m, warp_instructions, global_sectors, blocks);
    /* zero copy: that share of the traffic crosses the host link while the
     * kernel runs; the slowest of compute, device memory and the link wins */
    if (host_fraction > 0)
        dur = dmax(dur, s->m.kernel_fixed_us + (double)global_sectors * 32 * host_fraction / (s->m.link_gbs * 1e3));
    if (extra_us > 0) dur += extra_us;
    int sms = costmodel_kernel_sms(&s->m, blocks);
    /* a graph's kernel nodes were set up at instantiation: a smaller gap, no host cost each */
    bool node = s->graph_depth > 0;
    double issued = node ? s->graph_host : s->host;
    double gap = node ? s->m.graph_node_gap_us : s->m.launch_gap_us;
    double earliest = dmax(issued + s->m.launch_latency_us, stream_dep(s, stream) + gap);
    double start = place_kernel(s, earliest, dur, sms);
    if (s->n_busy == s->cap_busy) {
        s->cap_busy = s->cap_busy ? s->cap_busy * 2 : 16;
        s->busy = xrealloc(s->busy, (size_t)s->cap_busy * sizeof *s->busy);
    }
    s->busy[s->n_busy++] = (Busy){start, start + dur, sms};
    commit(s, stream, start + dur);
    TimelineEntry *e = timeline_add(s->tl, TL_KERNEL, stream, name, start, dur);
    if (e) {
        e->grid[0] = grid.x, e->grid[1] = grid.y, e->grid[2] = grid.z;
        e->block[0] = block.x, e->block[1] = block.y, e->block[2] = block.z;
    }
    if (!node) s->host += s->m.launch_host_us;
    if (!async) s->host = dmax(s->host, start + dur);
}

void emu_sched_graph_begin(EmuSched *s) {
    if (s->graph_depth++ == 0) {
        s->graph_host = s->host;
        s->host += s->m.graph_launch_host_us;
    }
}

void emu_sched_graph_end(EmuSched *s) {
    if (s->graph_depth > 0) s->graph_depth--;
}

double emu_sched_host_now(const EmuSched *s) { return s->host; }

void emu_sched_host_catch_up(EmuSched *s, double us) { s->host = dmax(s->host, us); }

void emu_sched_host_begin(EmuSched *s, const char *name) {
    free(s->host_name);
    s->host_name = xstrdup(name ? name : "host work");
    s->host_start = s->host;
}

void emu_sched_host_end(EmuSched *s, double us) {
    if (!s->host_name) return;
    if (us < 0) us = 0;
    /* Calls made inside (event queries, launches) took modeled host time too. */
    double end = dmax(s->host, s->host_start + us);
    timeline_add(s->tl, TL_HOST, TIMELINE_HOST, s->host_name, s->host_start, end - s->host_start);
    s->host = end;
    XFREE(s->host_name);
}
