/* tests/app/test_trace.c: `cudojo run --trace`'s Chrome trace export: the
 * JSON parses, complete events carry ph/ts/dur/pid/tid in microseconds,
 * metadata names every stream row and the host, a modeled timeline says so,
 * and a run without a timeline (or a bad path) writes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/trace.h"
#include "base/fs.h"
#include "base/xalloc.h"

/* The shape the engine returns in metrics.timeline (/tmp/timeline-spec.md). */
static const char TIMELINE[] =
    "{\"modeled\": true, \"source\": \"emu-model\", \"device\": \"H200 profile (sm_90)\","
    " \"streams\": [{\"id\": 0, \"name\": \"default (legacy)\", \"priority\": 0},"
    "               {\"id\": 1, \"name\": \"s1\", \"priority\": -1}],"
    " \"events\": ["
    "  {\"kind\": \"h2d\", \"stream\": 1, \"name\": \"copy a -> device\", \"start_us\": 0.0, \"dur_us\": 120.5,"
    "   \"bytes\": 4194304, \"pinned\": true},"
    "  {\"kind\": \"kernel\", \"stream\": 1, \"name\": \"vector_add\", \"start_us\": 121.0, \"dur_us\": 40.25,"
    "   \"grid\": [3907,1,1], \"block\": [256,1,1]},"
    "  {\"kind\": \"host\", \"stream\": -1, \"name\": \"count on the CPU\", \"start_us\": 5.0, \"dur_us\": 300.0},"
    "  {\"kind\": \"d2h\", \"stream\": 3, \"name\": \"copy c -> host\", \"start_us\": 162.0, \"dur_us\": 118.0,"
    "   \"bytes\": 4000000, \"pinned\": false},"
    "  {\"kind\": \"event\", \"stream\": 1, \"name\": \"stop\", \"start_us\": 161.25, \"dur_us\": 0}"
    " ]}";

static json_t *load(const char *text) {
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    assert_non_null(j);
    return j;
}

/* The trace as a viewer would read it: dumped to text and parsed back. */
static json_t *trace_roundtrip(const char *timeline) {
    json_t *tl = load(timeline);
    json_t *tr = trace_from_timeline(tl, "07-streams/overlap");
    json_decref(tl);
    char *s = json_dumps(tr, JSON_COMPACT);
    json_decref(tr);
    json_t *back = load(s);
    free(s);
    return back;
}

/* The first event with this ph and name (NULL when none). */
static json_t *find_event(json_t *tr, const char *ph, const char *name) {
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(tr, "traceEvents"), i, e) {
        if (!strcmp(json_string_value(json_object_get(e, "ph")), ph) &&
            !strcmp(json_string_value(json_object_get(e, "name")), name))
            return e;
    }
    return NULL;
}

/* The metadata event `what` for (pid, tid) (tid < 0: a process's, any tid), NULL when none. */
static json_t *find_meta(json_t *tr, const char *what, int pid, int tid) {
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(tr, "traceEvents"), i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), "M") ||
            strcmp(json_string_value(json_object_get(e, "name")), what))
            continue;
        if (json_integer_value(json_object_get(e, "pid")) != pid) continue;
        if (tid < 0 || json_integer_value(json_object_get(e, "tid")) == tid) return e;
    }
    return NULL;
}

static const char *meta_name(json_t *m) {
    return m ? json_string_value(json_object_get(json_object_get(m, "args"), "name")) : NULL;
}

static void trace__has_complete_events_with_ph_ts_dur_pid_tid__in_microseconds(void **state) {
    (void)state;
    json_t *tr = trace_roundtrip(TIMELINE);
    assert_true(json_is_array(json_object_get(tr, "traceEvents")));
    assert_non_null(json_string_value(json_object_get(tr, "displayTimeUnit")));
    /* Every complete event has what the format requires. */
    size_t i, n_x = 0;
    json_t *e;
    json_array_foreach(json_object_get(tr, "traceEvents"), i, e) {
        /* Every event, metadata included, has a phase, a pid and a tid. */
        assert_true(json_is_string(json_object_get(e, "ph")));
        assert_true(json_is_integer(json_object_get(e, "pid")));
        assert_true(json_is_integer(json_object_get(e, "tid")));
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X")) continue;
        n_x++;
        assert_true(json_is_string(json_object_get(e, "name")));
        assert_true(json_is_string(json_object_get(e, "cat")));
        assert_true(json_is_number(json_object_get(e, "ts")));
        assert_true(json_is_number(json_object_get(e, "dur")));
        assert_true(json_is_integer(json_object_get(e, "pid")));
        assert_true(json_is_integer(json_object_get(e, "tid")));
    }
    assert_int_equal(n_x, 4);
    /* Microseconds stay microseconds: 121 µs + 40.25 µs, not ms or ns. */
    json_t *k = find_event(tr, "X", "vector_add");
    assert_non_null(k);
    assert_true(json_number_value(json_object_get(k, "ts")) == 121.0);
    assert_true(json_number_value(json_object_get(k, "dur")) == 40.25);
    assert_string_equal(json_string_value(json_object_get(k, "cat")), "kernel");
    assert_int_equal(json_integer_value(json_object_get(k, "pid")), TRACE_PID_DEVICE);
    json_decref(tr);
}

static void trace__names_every_stream_row_and_the_host__with_metadata(void **state) {
    (void)state;
    json_t *tr = trace_roundtrip(TIMELINE);
    json_t *copy = find_event(tr, "X", "copy a -> device");
    int tid1 = (int)json_integer_value(json_object_get(copy, "tid"));
    /* Stream 1's work sits on the row named for stream 1, stream 0 has its own row. */
    assert_non_null(meta_name(find_meta(tr, "thread_name", TRACE_PID_DEVICE, tid1)));
    assert_non_null(strstr(meta_name(find_meta(tr, "thread_name", TRACE_PID_DEVICE, tid1)), "s1"));
    json_t *k = find_event(tr, "X", "vector_add");
    assert_int_equal(json_integer_value(json_object_get(k, "tid")), tid1);
    bool default_row = false;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(tr, "traceEvents"), i, e) {
        const char *nm = meta_name(e);
        if (nm && !strcmp(json_string_value(json_object_get(e, "name")), "thread_name") &&
            strstr(nm, "default (legacy)")) {
            default_row = true;
            assert_int_not_equal(json_integer_value(json_object_get(e, "tid")), tid1);
        }
    }
    assert_true(default_row);
    /* A stream the list lacks (3) still gets a named row. */
    json_t *d2h = find_event(tr, "X", "copy c -> host");
    int tid3 = (int)json_integer_value(json_object_get(d2h, "tid"));
    assert_non_null(strstr(meta_name(find_meta(tr, "thread_name", TRACE_PID_DEVICE, tid3)), "stream 3"));
    /* Host work is in the host process, on its named row. */
    json_t *h = find_event(tr, "X", "count on the CPU");
    assert_int_equal(json_integer_value(json_object_get(h, "pid")), TRACE_PID_HOST);
    assert_string_equal(
        meta_name(find_meta(tr, "thread_name", TRACE_PID_HOST, (int)json_integer_value(json_object_get(h, "tid")))),
        "host");
    assert_non_null(meta_name(find_meta(tr, "process_name", TRACE_PID_HOST, -1)));
    assert_non_null(find_meta(tr, "thread_sort_index", TRACE_PID_DEVICE, tid1));
    json_decref(tr);
}

static void trace__args_carry_bytes_and_bandwidth(void **state) {
    (void)state;
    json_t *tr = trace_roundtrip(TIMELINE);
    json_t *args = json_object_get(find_event(tr, "X", "copy a -> device"), "args");
    assert_int_equal(json_integer_value(json_object_get(args, "bytes")), 4194304);
    assert_true(json_is_true(json_object_get(args, "pinned")));
    /* 4194304 B in 120.5 µs = 34.81 GB/s */
    double gbps = json_number_value(json_object_get(args, "GB/s"));
    assert_true(gbps > 34.80 && gbps < 34.82);
    /* A kernel moves no bytes of its own: no bandwidth, but its launch shape. */
    json_t *kargs = json_object_get(find_event(tr, "X", "vector_add"), "args");
    assert_null(json_object_get(kargs, "GB/s"));
    assert_int_equal(json_integer_value(json_array_get(json_object_get(kargs, "grid"), 0)), 3907);
    json_decref(tr);
}

static void trace__recorded_event_is_a_thread_instant(void **state) {
    (void)state;
    json_t *tr = trace_roundtrip(TIMELINE);
    json_t *ev = find_event(tr, "i", "stop");
    assert_non_null(ev);
    assert_string_equal(json_string_value(json_object_get(ev, "s")), "t");
    assert_true(json_number_value(json_object_get(ev, "ts")) == 161.25);
    assert_null(find_event(tr, "X", "stop"));
    json_decref(tr);
}

static void trace__says_modeled__in_process_name_and_metadata(void **state) {
    (void)state;
    json_t *tr = trace_roundtrip(TIMELINE);
    const char *gpu = meta_name(find_meta(tr, "process_name", TRACE_PID_DEVICE, -1));
    assert_non_null(strstr(gpu, "MODELED"));
    json_t *other = json_object_get(tr, "otherData");
    assert_true(json_is_true(json_object_get(other, "modeled")));
    assert_string_equal(json_string_value(json_object_get(other, "source")), "emu-model");
    assert_true(json_is_true(json_object_get(json_object_get(find_event(tr, "X", "vector_add"), "args"), "modeled")));
    json_decref(tr);

    /* The same timeline measured on a GPU does not say modeled anywhere. */
    json_t *tl = load(TIMELINE);
    json_object_set_new(tl, "modeled", json_false());
    json_object_set_new(tl, "source", json_string("cupti"));
    json_t *real = trace_from_timeline(tl, NULL);
    char *s = json_dumps(real, JSON_COMPACT);
    assert_null(strstr(s, "MODELED"));
    assert_null(strstr(s, "\"modeled\":true"));
    free(s);
    json_decref(real);
    json_decref(tl);
}

static void trace__empty_timeline__gives_only_metadata(void **state) {
    (void)state;
    json_t *tr = trace_roundtrip("{\"modeled\": true, \"streams\": [{\"id\": 0, \"name\": \"default\"}], \"events\": []}");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(tr, "traceEvents"), i, e) {
        assert_string_equal(json_string_value(json_object_get(e, "ph")), "M");
    }
    assert_non_null(find_meta(tr, "thread_name", TRACE_PID_DEVICE, 1));
    json_decref(tr);
}

/* A fresh temporary directory for files (caller removes). */
static char *tmpdir(void) {
    char tmpl[] = "/tmp/cudojo-trace-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    return xstrdup(tmpl);
}

static RunResult *result_with(const char *timeline) {
    RunResult *r = run_result_new(VERDICT_PASS);
    r->exercise_id = xstrdup("vector-add");
    r->metrics = json_object();
    if (timeline) json_object_set_new(r->metrics, "timeline", load(timeline));
    return r;
}

static void trace_write__writes_a_parsable_trace_file(void **state) {
    (void)state;
    char *dir = tmpdir();
    char *path = path_join(dir, "t.json");
    RunResult *r = result_with(TIMELINE);
    Diag *d = trace_write(r, path);
    assert_null(d);
    char *text = NULL;
    assert_null(fs_read_file(path, &text, NULL));
    json_t *tr = load(text);
    assert_non_null(find_event(tr, "X", "vector_add"));
    assert_string_equal(json_string_value(json_object_get(json_object_get(tr, "otherData"), "exercise")), "vector-add");
    json_decref(tr);
    free(text);
    unlink(path);
    rmdir(dir);
    run_result_free(&r);
    free(path);
    free(dir);
}

static void trace_write__writes_nothing_and_says_why__when_no_timeline(void **state) {
    (void)state;
    char *dir = tmpdir();
    char *path = path_join(dir, "t.json");
    RunResult *r = result_with(NULL);
    Diag *d = trace_write(r, path);
    assert_non_null(d);
    assert_int_equal(d->severity, DIAG_WARNING);
    assert_non_null(strstr(d->message, "no timeline"));
    assert_false(fs_exists(path));
    diag_free(&d);
    run_result_free(&r);

    /* A compile error says that nothing ran. */
    r = run_result_new(VERDICT_COMPILE_ERROR);
    d = trace_write(r, path);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "did not compile"));
    assert_false(fs_exists(path));
    diag_free(&d);
    run_result_free(&r);

    /* An empty timeline is nothing to look at either. */
    r = result_with("{\"modeled\": true, \"streams\": [], \"events\": []}");
    d = trace_write(r, path);
    assert_non_null(d);
    assert_int_equal(d->severity, DIAG_WARNING);
    assert_non_null(strstr(d->message, "empty"));
    assert_false(fs_exists(path));
    diag_free(&d);
    run_result_free(&r);
    rmdir(dir);
    free(path);
    free(dir);
}

static void trace_write__is_an_error_naming_the_file__when_the_path_is_bad(void **state) {
    (void)state;
    char *dir = tmpdir();
    char *path = path_join(dir, "no/such/dir/t.json");
    RunResult *r = result_with(TIMELINE);
    Diag *d = trace_write(r, path);
    assert_non_null(d);
    assert_int_equal(d->severity, DIAG_ERROR);
    assert_non_null(strstr(d->message, path));
    assert_false(fs_exists(path));
    diag_free(&d);
    run_result_free(&r);
    rmdir(dir);
    free(path);
    free(dir);
}

static void trace__kind_labels_and_bandwidth(void **state) {
    (void)state;
    assert_string_equal(trace_kind_label("h2d"), "H2D");
    assert_string_equal(trace_kind_label("d2h"), "D2H");
    assert_string_equal(trace_kind_label("kernel"), "kernel");
    assert_string_equal(trace_kind_label("prefetch"), "prefetch");
    assert_true(trace_gbps(1e9, 1e6) == 1.0);
    assert_true(trace_gbps(0, 10) < 0);
    assert_true(trace_gbps(100, 0) < 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace__has_complete_events_with_ph_ts_dur_pid_tid__in_microseconds),
        cmocka_unit_test(trace__names_every_stream_row_and_the_host__with_metadata),
        cmocka_unit_test(trace__args_carry_bytes_and_bandwidth),
        cmocka_unit_test(trace__recorded_event_is_a_thread_instant),
        cmocka_unit_test(trace__says_modeled__in_process_name_and_metadata),
        cmocka_unit_test(trace__empty_timeline__gives_only_metadata),
        cmocka_unit_test(trace_write__writes_a_parsable_trace_file),
        cmocka_unit_test(trace_write__writes_nothing_and_says_why__when_no_timeline),
        cmocka_unit_test(trace_write__is_an_error_naming_the_file__when_the_path_is_bad),
        cmocka_unit_test(trace__kind_labels_and_bandwidth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
