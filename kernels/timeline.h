/* kernels/timeline.h: what the device and the host did during a run, in time.
 *
 * One Timeline per backend: the streams it knows and a list of entries
 * (copies, memsets, kernels, recorded events, host waits and host work), in
 * the order the program issued them. On the emulator the times come from
 * the cost model (kernels/costmodel.h) and the timeline is `modeled`; on a
 * GPU from CUPTI activity records (source "cupti"), or CUDA events around
 * each operation where CUPTI is missing (source "events"). The JSON
 * form is the one agreed for RunResult.metrics.timeline: see
 * timeline_to_json. Host rows use the pseudo-stream TIMELINE_HOST (-1). */
#ifndef CUDOJO_KERNELS_TIMELINE_H
#define CUDOJO_KERNELS_TIMELINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define TIMELINE_HOST (-1)
/* Entries past this many are counted in `dropped`, not kept. */
#define TIMELINE_MAX_ENTRIES 20000

typedef enum TimelineKind {
    TL_H2D = 0, TL_D2H, TL_D2D, TL_MEMSET, TL_KERNEL, TL_HOST, TL_SYNC, TL_EVENT,
    TL_KIND_COUNT
} TimelineKind;

typedef struct TimelineEntry {
    TimelineKind kind;
    int stream;                     /* 0 = legacy default stream, -1 = host */
    char *name;
    double start_us, dur_us;        /* in the backend's clock; to_json shifts to the first entry */
    size_t bytes;                   /* copies and memsets */
    bool pinned;                    /* h2d/d2h: the host side was page-locked */
    unsigned grid[3], block[3];     /* kernels */
    int device;                     /* the device it ran on (a program's several devices); 0 */
    int process;                    /* which of several processes it came from, from 1; 0 = one */
} TimelineEntry;

typedef struct TimelineStream {
    int id;
    char *name;
    int priority;
} TimelineStream;

typedef struct Timeline {
    bool modeled;                   /* true: the cost model, not a measurement */
    char source[16];                /* "emu-model", "events", "cupti" */
    char device[160];               /* "sm_90 profile (...)" */
    TimelineStream *streams;
    int n_streams, cap_streams;
    TimelineEntry *v;
    int n, cap;
    long dropped;
    double origin_us;               /* the earliest entry's start in an absolute clock shared by
                                       processes (CUPTI's); 0 on the emulator, where each process's
                                       model starts at 0 */
} Timeline;

/* A new empty timeline with stream 0 ("default (legacy)") known. Caller
 * frees with timeline_free. */
Timeline *timeline_new(bool modeled, const char *source, const char *device);
void timeline_free(Timeline **t);
/* Forgets every entry (streams stay). */
void timeline_clear(Timeline *t);
/* Adds stream `id` or renames it. */
void timeline_set_stream(Timeline *t, int id, const char *name, int priority);
/* Appends an entry; NULL (and dropped++) when the timeline is full. The
 * returned entry is valid until the next add. */
TimelineEntry *timeline_add(Timeline *t, TimelineKind kind, int stream, const char *name, double start_us,
                            double dur_us);
/* A deep copy; caller frees. */
Timeline *timeline_copy(const Timeline *t);
/* The i-th entry of `kind` (any kind when kind < 0) whose name is `name`
 * (any when NULL) and whose stream is `stream` (any when INT_MIN), counting
 * from 1; NULL when absent. */
const TimelineEntry *timeline_find(const Timeline *t, int kind, const char *name, int stream, int nth);
/* Whether the two entries share some time (touching ends do not count). */
bool timeline_overlap(const TimelineEntry *a, const TimelineEntry *b);
/* {"modeled", "source", "device", "streams":[{id,name,priority}],
 *  "events":[{kind, stream, name, start_us, dur_us, bytes?, pinned?, grid?, block?, device?, process?}]}
 * with times in µs from the earliest entry's start; "dropped" when > 0;
 * "origin_us" (origin_us plus that start) when not 0; device and process when not 0.
 * New reference. */
json_t *timeline_to_json(const Timeline *t);
/* The inverse of timeline_to_json (what a program's runtime library sends
 * back). Tolerant: unknown kinds and malformed events are skipped, missing
 * fields are left empty; NULL when `j` is not an object. Caller frees. */
Timeline *timeline_from_json(const json_t *j);
const char *timeline_kind_name(TimelineKind k);
/* "h2d", "kernel", ...; false when unknown. */
bool timeline_kind_parse(const char *s, TimelineKind *out);

#endif
