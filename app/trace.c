/* app/trace.c: a run's timeline as Chrome trace JSON (see trace.h).
 *
 * The layout follows the Trace Event Format document: complete events
 * ("ph":"X") carry ts and dur in microseconds (fractions allowed), recorded
 * CUDA events are thread-scoped instant events ("ph":"i", "s":"t"), and
 * metadata events ("ph":"M": process_name, process_labels,
 * process_sort_index, thread_name, thread_sort_index) turn pids and tids
 * into named, ordered rows. Perfetto's JSON importer reads the same. */
#include "app/trace.h"

#include <string.h>

#include "base/bytes.h"
#include "base/fs.h"
#include "base/xalloc.h"

/* Host work is one row: the thread id it has in the host process. */
#define HOST_TID 1

const json_t *trace_timeline_of(const RunResult *res) {
    if (!res || !json_is_object(res->metrics)) return NULL;
    const json_t *tl = json_object_get(res->metrics, "timeline");
    return json_is_object(tl) ? tl : NULL;
}

const char *trace_kind_label(const char *kind) {
    static const char *const NAMES[][2] = {
        {"h2d", "H2D"}, {"d2h", "D2H"},     {"d2d", "D2D"},   {"memset", "memset"},
        {"kernel", "kernel"}, {"host", "host"}, {"sync", "sync"}, {"event", "event"},
    };
    if (!kind) return "?";
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (!strcmp(kind, NAMES[i][0])) return NAMES[i][1];
    return kind;
}

double trace_gbps(double bytes, double dur_us) {
    if (bytes <= 0 || dur_us <= 0) return -1;
    return bytes / (dur_us * 1e3);   /* bytes / (dur_us * 1e-6 s) / 1e9 */
}

static double num(const json_t *o, const char *k, double dflt) {
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

static const char *str(const json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* Appends a metadata event; takes args. A process's own metadata (tid < 0)
 * says tid 0, as Chrome writes it; ts 0 keeps strict readers happy. */
static void add_meta(json_t *evs, const char *what, int pid, int tid, json_t *args) {
    json_array_append_new(evs, json_pack("{s:s, s:s, s:i, s:i, s:i, s:o}", "name", what, "ph", "M", "ts", 0, "pid",
                                         pid, "tid", tid < 0 ? 0 : tid, "args", args));
}

/* A stream's row: its thread id in the device process (stream 0 is tid 1,
 * since some viewers treat tid 0 as "no thread"). */
static int stream_tid(long long id) { return (int)id + 1; }

static void add_stream_row(json_t *evs, long long id, const char *name) {
    char *label = name && *name ? xasprintf("stream %lld: %s", id, name) : xasprintf("stream %lld", id);
    add_meta(evs, "thread_name", TRACE_PID_DEVICE, stream_tid(id), json_pack("{s:s}", "name", label));
    add_meta(evs, "thread_sort_index", TRACE_PID_DEVICE, stream_tid(id), json_pack("{s:I}", "sort_index", id));
    free(label);
}

/* Names the processes and one row per stream: the listed streams first, then
 * any stream an event names that the list lacks. */
static void add_rows(json_t *evs, const json_t *tl, bool modeled, const char *device, const char *source) {
    char *gpu = modeled ? xasprintf("GPU (MODELED, not measured%s%s)", device ? ": " : "", device ? device : "")
                        : xasprintf("GPU%s%s%s", device ? " (" : "", device ? device : "", device ? ")" : "");
    add_meta(evs, "process_name", TRACE_PID_DEVICE, -1, json_pack("{s:s}", "name", gpu));
    free(gpu);
    char *labels = modeled ? xasprintf("modeled by cudojo's emulator cost model (%s)", source ? source : "emu-model")
                           : xasprintf("measured (%s)", source ? source : "unknown source");
    add_meta(evs, "process_labels", TRACE_PID_DEVICE, -1, json_pack("{s:s}", "labels", labels));
    free(labels);
    add_meta(evs, "process_sort_index", TRACE_PID_DEVICE, -1, json_pack("{s:i}", "sort_index", 0));
    add_meta(evs, "process_name", TRACE_PID_HOST, -1, json_pack("{s:s}", "name", "host (CPU)"));
    add_meta(evs, "process_sort_index", TRACE_PID_HOST, -1, json_pack("{s:i}", "sort_index", 1));
    add_meta(evs, "thread_name", TRACE_PID_HOST, HOST_TID, json_pack("{s:s}", "name", "host"));

    const json_t *streams = json_object_get(tl, "streams");
    json_t *seen = json_object();   /* id → true, as text keys */
    size_t i;
    const json_t *s;
    json_array_foreach(streams, i, s) {
        const json_t *id = json_object_get(s, "id");
        if (!json_is_integer(id) || json_integer_value(id) < 0) continue;
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)json_integer_value(id));
        if (json_object_get(seen, key)) continue;
        json_object_set_new(seen, key, json_true());
        add_stream_row(evs, json_integer_value(id), str(s, "name"));
    }
    const json_t *e;
    json_array_foreach(json_object_get(tl, "events"), i, e) {
        long long id = (long long)num(e, "stream", 0);
        if (id < 0) continue;
        char key[32];
        snprintf(key, sizeof key, "%lld", id);
        if (json_object_get(seen, key)) continue;
        json_object_set_new(seen, key, json_true());
        add_stream_row(evs, id, NULL);
    }
    json_decref(seen);
}

/* One timeline entry as a trace event (new reference). */
static json_t *event_of(const json_t *e, bool modeled) {
    const char *kind = str(e, "kind");
    if (!kind) kind = "unknown";
    const char *name = str(e, "name");
    long long stream = (long long)num(e, "stream", 0);
    double start = num(e, "start_us", 0), dur = num(e, "dur_us", 0);
    if (dur < 0) dur = 0;
    bool host = stream < 0;
    bool instant = !strcmp(kind, "event");
    json_t *ev = json_pack("{s:s, s:s, s:s, s:f, s:i, s:i}", "name", name && *name ? name : trace_kind_label(kind),
                           "cat", kind, "ph", instant ? "i" : "X", "ts", start, "pid",
                           host ? TRACE_PID_HOST : TRACE_PID_DEVICE, "tid", host ? HOST_TID : stream_tid(stream));
    if (instant) json_object_set_new(ev, "s", json_string("t"));
    else json_object_set_new(ev, "dur", json_real(dur));
    /* Everything else the engine recorded (bytes, pinned, grid, block...) goes into args. */
    json_t *args = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)e, k, v) {
        if (!strcmp(k, "kind") || !strcmp(k, "name") || !strcmp(k, "stream") || !strcmp(k, "start_us") ||
            !strcmp(k, "dur_us"))
            continue;
        json_object_set(args, k, v);
    }
    json_object_set_new(args, "kind", json_string(trace_kind_label(kind)));
    double gbps = trace_gbps(num(e, "bytes", 0), dur);
    if (gbps >= 0) json_object_set_new(args, "GB/s", json_real(gbps));
    if (modeled) json_object_set_new(args, "modeled", json_true());
    json_object_set_new(ev, "args", args);
    return ev;
}

json_t *trace_from_timeline(const json_t *tl, const char *title) {
    bool modeled = json_is_true(json_object_get(tl, "modeled"));
    const char *device = str(tl, "device");
    const char *source = str(tl, "source");
    json_t *evs = json_array();
    add_rows(evs, tl, modeled, device, source);
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(tl, "events"), i, e) {
        if (json_is_object(e)) json_array_append_new(evs, event_of(e, modeled));
    }
    json_t *other = json_pack("{s:s, s:b}", "generator", "cudojo " CUDOJO_VERSION, "modeled", modeled);
    if (title) json_object_set_new(other, "exercise", bytes_to_json(title));
    if (json_integer_value(json_object_get(tl, "dropped")) > 0)
        json_object_set(other, "dropped_entries", json_object_get(tl, "dropped"));
    if (source) json_object_set_new(other, "source", json_string(source));
    if (device) json_object_set_new(other, "device", json_string(device));
    json_object_set_new(other, "note",
                        json_string(modeled ? "MODELED: durations come from the emulator's cost model for the device "
                                              "profile, not from a GPU; the order and overlap follow CUDA's stream rules"
                                            : "measured on the GPU"));
    /* displayTimeUnit first: some readers look for it only at the start of
     * the file. "ns" only changes how times are shown (ts and dur are µs
     * whatever it says), and keeps chrome://tracing from rounding short
     * back-to-back copies into each other. */
    return json_pack("{s:s, s:o, s:o}", "displayTimeUnit", "ns", "traceEvents", evs, "otherData", other);
}

/* Why a run has nothing to write, in words for the learner. */
static const char *why_no_timeline(const RunResult *res, const json_t *tl) {
    if (!res) return "there is no run";
    switch (res->verdict) {
    case VERDICT_COMPILE_ERROR: return "the kernel did not compile, so nothing ran";
    case VERDICT_EXERCISE_ERROR: return "the exercise script failed before recording a timeline";
    case VERDICT_TIMEOUT:
    case VERDICT_CRASH:
    case VERDICT_CANCELLED: return "the run ended before it returned a timeline";
    default:
        return tl ? "the run made no copies, launches or host work, so its timeline is empty"
                  : "this run recorded no timeline (this backend or exercise does not record one yet)";
    }
}

Diag *trace_write(const RunResult *res, const char *path) {
    const json_t *tl = trace_timeline_of(res);
    if (!tl || json_array_size(json_object_get(tl, "events")) == 0)
        return diag_new(DIAG_WARNING, "no-timeline", NULL, 0, 0, "%s not written: %s", path,
                        why_no_timeline(res, tl));
    json_t *trace = trace_from_timeline(tl, res->exercise_id);
    char *text = json_dumps(trace, JSON_COMPACT | JSON_REAL_PRECISION(12));
    json_decref(trace);
    if (!text) return diag_error("io", "cannot write %s: out of memory formatting the trace", path);
    size_t len = strlen(text);
    char *with_nl = xasprintf("%s\n", text);
    free(text);
    Diag *d = fs_write_file_atomic(path, with_nl, len + 1);
    free(with_nl);
    return d;
}
