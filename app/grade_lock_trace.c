/* app/grade_lock_trace.c: what a GPU lock trace (CUDOJO_GPU_LOCK_TRACE,
 * kernels/gpu_lock.h) says about a grading: how long an exclusive taker was
 * waiting and holding (while either lasts the turnstile keeps new shared
 * work out), how much of that waiting fell while a profiler ran, and whose
 * shared holds the long exclusive waits ended on (the holder that let go
 * last before the take), and the GPU time spent one thing at a time (timed
 * sections and profiled runs: a floor on a class's wall time). bench_grade
 * prints it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/grade.h"
#include "base/xalloc.h"

typedef struct Event {
    double at;                  /* when it happened (monotonic s) */
    double ms;                  /* take: waited before it; release: held */
    bool take;
    char mode[12];
    char label[96];
} Event;

typedef struct Span {
    double from, to;
} Span;

/* By time; at the same time a release before a take (the take it let in). */
static int by_time(const void *a, const void *b) {
    const Event *x = a, *y = b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    return (int)x->take - (int)y->take;
}

static int by_from(const void *a, const void *b) {
    const Span *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

/* Sorts and merges overlapping spans in place; returns how many are left. */
static int merge(Span *s, int n) {
    if (n == 0) return 0;
    qsort(s, (size_t)n, sizeof *s, by_from);
    int k = 0;
    for (int i = 1; i < n; i++) {
        if (s[i].from <= s[k].to) {
            if (s[i].to > s[k].to) s[k].to = s[i].to;
        } else {
            s[++k] = s[i];
        }
    }
    return k + 1;
}

static double length(const Span *s, int n) {
    double t = 0;
    for (int i = 0; i < n; i++) t += s[i].to - s[i].from;
    return t;
}

/* The length of the intersection of two merged span lists. */
static double overlap(const Span *a, int na, const Span *b, int nb) {
    double t = 0;
    for (int i = 0, j = 0; i < na && j < nb;) {
        double lo = a[i].from > b[j].from ? a[i].from : b[j].from, hi = a[i].to < b[j].to ? a[i].to : b[j].to;
        if (hi > lo) t += hi - lo;
        if (a[i].to < b[j].to) i++;
        else j++;
    }
    return t;
}

static int by_blocked(const void *a, const void *b) {
    const LockTraceBlocker *x = a, *y = b;
    if (x->wait_s != y->wait_s) return x->wait_s < y->wait_s ? 1 : -1;
    return strcmp(x->label, y->label);
}

static const double BUCKET_MS[LOCK_TRACE_BUCKETS - 1] = {5, 20, 50, 200, 1000};

/* "scan-array/pin-pieces:1024MiB" -> "pin-pieces"; a label without "/" as it is, to its ":". */
static void holder_kind(const char *label, char *kind, size_t n) {
    const char *slash = strchr(label, '/'), *from = slash ? slash + 1 : label;
    size_t len = strcspn(from, ":");
    snprintf(kind, n, "%.*s", (int)len, from);
}

/* Adds one wait of `ms` to the entry of (label, mode) in *list (grown as needed). */
static void add_wait(LockTraceBlocker **list, int *n, int *cap, const char *label, const char *mode, double ms) {
    int k = 0;
    while (k < *n && (strcmp((*list)[k].label, label) || strcmp((*list)[k].mode, mode))) k++;
    if (k == *n) {
        if (*n == *cap) *list = xrealloc(*list, (size_t)(*cap *= 2) * sizeof **list);
        memset(&(*list)[k], 0, sizeof (*list)[k]);
        snprintf((*list)[k].label, sizeof (*list)[k].label, "%s", label);
        snprintf((*list)[k].mode, sizeof (*list)[k].mode, "%s", mode);
        (*n)++;
    }
    (*list)[k].waits++;
    (*list)[k].wait_s += ms / 1e3;
}

bool grade_lock_trace_read(const char *path, LockTraceSummary *out) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    int n = 0, cap = 1024;
    Event *ev = xmalloc((size_t)cap * sizeof *ev);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        Event e;
        long pid;
        char what[16];
        if (sscanf(line, "%lf %ld %15s %11s %lf %95s", &e.at, &pid, what, e.mode, &e.ms, e.label) != 6) continue;
        if (strcmp(what, "take") && strcmp(what, "release")) continue;
        e.take = !strcmp(what, "take");
        if (n == cap) ev = xrealloc(ev, (size_t)(cap *= 2) * sizeof *ev);
        ev[n++] = e;
    }
    fclose(f);
    if (n == 0) {
        free(ev);
        return false;
    }
    qsort(ev, (size_t)n, sizeof *ev, by_time);
    Span *waiting = xmalloc((size_t)n * sizeof *waiting), *held = xmalloc((size_t)n * sizeof *held),
         *prof = xmalloc((size_t)n * sizeof *prof), *blocking = xmalloc((size_t)n * 2 * sizeof *blocking);
    int nw = 0, nh = 0, np = 0, nb = 0, n_all = 0, cap_all = 16, n_kind = 0, cap_kind = 16;
    LockTraceBlocker *all = xmalloc((size_t)cap_all * sizeof *all);     /* every holder a long wait ended on */
    LockTraceBlocker *kind = xmalloc((size_t)cap_kind * sizeof *kind); /* every wait, by the holder's kind */
    double first = ev[0].at, last = ev[0].at;
    const Event *released = NULL;       /* the last shared or profiler release so far */
    for (int i = 0; i < n; i++) {
        const Event *e = &ev[i];
        Span s = {e->at - e->ms / 1e3, e->at};
        if (s.from < first) first = s.from;
        if (e->at > last) last = e->at;
        bool exclusive = !strcmp(e->mode, "exclusive");
        if (!e->take && !exclusive) released = e;
        if (!e->take && !strcmp(e->mode, "profiler")) prof[np++] = s;
        if (!exclusive) continue;
        if (e->take) {
            out->exclusive_takes++;
            waiting[nw++] = blocking[nb++] = s;
            const char *label = released ? released->label : "?", *mode = released ? released->mode : "?";
            if (e->ms > LOCK_TRACE_LONG_WAIT_MS) add_wait(&all, &n_all, &cap_all, label, mode, e->ms);
            char k[96];
            holder_kind(label, k, sizeof k);
            add_wait(&kind, &n_kind, &cap_kind, k, "", e->ms);
            int b = 0;
            while (b < LOCK_TRACE_BUCKETS - 1 && e->ms >= BUCKET_MS[b]) b++;
            out->wait_count[b]++;
            out->wait_s[b] += e->ms / 1e3;
        } else {
            held[nh++] = blocking[nb++] = s;
        }
    }
    out->wall_s = last - first;
    nw = merge(waiting, nw);
    nh = merge(held, nh);
    np = merge(prof, np);
    nb = merge(blocking, nb);
    out->exclusive_waiting_s = length(waiting, nw);
    out->exclusive_held_s = length(held, nh);
    out->exclusive_blocking_s = length(blocking, nb);
    out->profiler_held_s = length(prof, np);
    out->waiting_on_profiler_s = overlap(waiting, nw, prof, np);
    qsort(all, (size_t)n_all, sizeof *all, by_blocked);
    out->n_blockers = n_all < LOCK_TRACE_BLOCKERS ? n_all : LOCK_TRACE_BLOCKERS;
    memcpy(out->blockers, all, (size_t)out->n_blockers * sizeof *all);
    qsort(kind, (size_t)n_kind, sizeof *kind, by_blocked);
    out->n_kinds = n_kind < LOCK_TRACE_BLOCKERS ? n_kind : LOCK_TRACE_BLOCKERS;
    memcpy(out->kinds, kind, (size_t)out->n_kinds * sizeof *kind);
    free(kind);
    free(all);
    free(ev);
    free(waiting);
    free(held);
    free(prof);
    free(blocking);
    return true;
}

void grade_lock_trace_print(FILE *out, const LockTraceSummary *s, int top) {
    fprintf(out,
            "GPU lock trace: over %.1f s, an exclusive taker was waiting %.1f s and holding %.1f s (%d takes): "
            "%.1f s in which no new shared work could start; %.1f s of the waiting fell while a profiler ran "
            "(a profiler held the lock %.1f s)\n",
            s->wall_s, s->exclusive_waiting_s, s->exclusive_held_s, s->exclusive_takes, s->exclusive_blocking_s,
            s->waiting_on_profiler_s, s->profiler_held_s);
    if (s->exclusive_takes > 0) {
        static const char *const names[LOCK_TRACE_BUCKETS] = {"<5 ms",      "5-20 ms",     "20-50 ms",
                                                              "50-200 ms", "200-1000 ms", ">=1 s"};
        fprintf(out, "exclusive waits by length:");
        for (int b = 0; b < LOCK_TRACE_BUCKETS; b++)
            fprintf(out, "%s %s %d (%.1f s)", b ? "," : "", names[b], s->wait_count[b], s->wait_s[b]);
        fputc('\n', out);
        fprintf(out, "every exclusive wait, by the kind of hold that let go last before the take:\n");
        for (int i = 0; i < s->n_kinds && i < top; i++)
            fprintf(out, "  %-26s %5d waits %8.1f s, %.0f ms each\n", s->kinds[i].label, s->kinds[i].waits,
                    s->kinds[i].wait_s, 1e3 * s->kinds[i].wait_s / s->kinds[i].waits);
    }
    if (s->n_blockers == 0) return;
    fprintf(out, "exclusive waits over %.0f ms, by the holder that let go last before the take:\n",
            LOCK_TRACE_LONG_WAIT_MS);
    for (int i = 0; i < s->n_blockers && i < top; i++)
        fprintf(out, "  %-26s %-9s %5d waits %8.1f s\n", s->blockers[i].label, s->blockers[i].mode,
                s->blockers[i].waits, s->blockers[i].wait_s);
}

double grade_lock_trace_serial_s(const LockTraceSummary *s) { return s->exclusive_held_s + s->profiler_held_s; }

void grade_lock_trace_print_floor(FILE *out, const LockTraceSummary *s, int submissions, int class_size) {
    if (submissions < 1) return;
    double serial = grade_lock_trace_serial_s(s);
    fprintf(out,
            "one at a time on the GPU: timed sections %.1f s + profiled runs %.1f s = %.1f s for %d submission%s "
            "(%.2f s each): %d submissions need at least %.1f min on one GPU, whatever the cores\n",
            s->exclusive_held_s, s->profiler_held_s, serial, submissions, submissions == 1 ? "" : "s",
            serial / submissions, class_size, serial / submissions * class_size / 60.0);
    /* The waits for the shared holders to drain come on top: while an
       exclusive taker waits or holds, no new GPU work starts anywhere. */
    fprintf(out,
            "no new shared GPU work: %.1f s for %d submission%s (exclusive takers waiting or holding): %.1f min "
            "of %d submissions' grading in which GPU work only ends, none starts\n",
            s->exclusive_blocking_s, submissions, submissions == 1 ? "" : "s",
            s->exclusive_blocking_s / submissions * class_size / 60.0, class_size);
}
