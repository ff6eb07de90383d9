/* tests/lua/test_streams.c: streams, events, pinned arrays, host work and
 * the timeline in the exercise API, run as small exercises on the emulator
 * (and on the GPU when there is one; skipped otherwise, a failure under
 * CUDOJO_TEST_GPU=1). The chunked copy/compute exercise passes its overlap
 * check with pinned memory and fails it with pageable memory, as on a GPU;
 * every run's metrics carry the timeline in the agreed shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>


#include "lua/exercise.h"
#include "tests/lua/lesson_fixture.h"

static const char *const work_cu =
    "__global__ void work(const float *x, float *y, int n, int iters) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    float acc = 0.0f;\n"
    "    for (int j = 0; j < iters; j++) acc = acc * 0.999f + x[i];\n"
    "    y[i] = 2.0f * x[i] + (acc < 0.0f ? 1.0f : 0.0f);\n"
    "}\n";

static const char *const streams_lua =
    "return {\n"
    "  id = 'streams', source = 'streams.cu', hints = { 'a', 'b' },\n"
    "  run = function(t)\n"
    "    local m = t:param('m', 4096)\n"
    "    local pinned = t:param('pinned', true)\n"
    "    local auto = t:param('auto', false)\n"
    "    local s = { gpu.stream{ name = 's1', priority = -1 }, gpu.stream{ name = 's2' } }\n"
    "    t:expect(s[1].name == 's1' and s[2].id > 0 and gpu.default_stream.id == 0, 'stream fields')\n"
    "    local x, y = {}, {}\n"
    "    for i = 1, 2 do\n"
    "      x[i] = gpu.array('f32', m, 'x' .. i, { pinned = pinned }):iota(i)\n"
    "      y[i] = pinned and gpu.pinned('f32', m, 'y' .. i) or gpu.array('f32', m, 'y' .. i)\n"
    "    end\n"
    "    local k = t:kernel('work')\n"
    "    -- long enough on a GPU that the next chunk's copy surely overlaps it\n"
    "    local iters = t:device().backend == 'emu' and 200 or 20000\n"
    "    local e0 = gpu.default_stream:record()\n"
    "    for i = 1, 2 do\n"
    "      if not auto then\n"
    "        x[i]:upload{ stream = s[i] }\n"
    "        y[i]:memset(0, { stream = s[i] })\n"
    "      end\n"
    "      k:launch{ grid = (m + 255) // 256, block = 256, args = { x[i], y[i], gpu.i32(m), gpu.i32(iters) }, stream = s[i] }\n"
    "      y[i]:download{ stream = s[i] }\n"
    "    end\n"
    "    local e1 = t:event()\n"
    "    e1:record(gpu.default_stream)\n"
    "    local polls = t:host_work(function()\n"
    "      local c = 0\n"
    "      while not e1:query() do c = c + 1 end\n"
    "      return c\n"
    "    end, { name = 'count' })\n"
    "    e1:synchronize()\n"
    "    local ms, modeled = t:elapsed_ms(e0, e1)\n"
    "    t:expect(ms > 0, 'elapsed ' .. ms)\n"
    "    t:expect(modeled == (t:device().backend == 'emu'), 'modeled only on the emulator')\n"
    "    t:metric('polls', polls)\n"
    "    for i = 1, 2 do\n"
    "      local want = gpu.array('f32', m)\n"
    "      for j = 0, m - 1 do want[j] = 2 * (i + j) end\n"
    "      t:expect_equal(y[i], want)\n"
    "    end\n"
    "    local tl = t:timeline()\n"
    "    t:expect(tl.modeled == modeled and #tl.events > 8, 'timeline')\n"
    "    t:expect(tl:find{ kind = 'kernel', name = 'work', n = 2 }.stream == s[2].id, 'find by n')\n"
    "    t:expect(tl:find{ kind = 'kernel', n = 3 } == nil, 'two kernels')\n"
    "    t:expect_overlap(tl:find{ kind = 'h2d', stream = s[2] }, tl:find{ kind = 'kernel', stream = s[1] },\n"
    "                     'copy of chunk 2 overlaps the kernel of chunk 1')\n"
    "    t:expect_no_default_stream_work('all work on streams')\n"
    "  end,\n"
    "}\n";

static const char *const misuse_lua =
    "return {\n"
    "  id = 'streams', source = 'streams.cu', hints = { 'a', 'b' },\n"
    "  run = function(t)\n"
    "    local s = gpu.stream()\n"
    "    local a, b = t:event(), t:event()\n"
    "    s:record(a)\n"
    "    local x = gpu.pinned('f32', 1 << 20):fill(1)\n"
    "    x:upload{ stream = s }\n"
    "    s:record(b)\n"
    "    t:elapsed_ms(a, b)\n"
    "  end,\n"
    "}\n";

typedef struct Fx {
    char *root, *cache, *cu;
    Course *course;
} Fx;

static Fx *fx_new(const char *lua) {
    Fx *f = xcalloc(1, sizeof *f);
    f->root = fixture_tmpdir();
    f->cache = path_join(f->root, "cache");
    fixture_write(f->root, "lessons/07-s/chapter.lua", "return { id = 's', order = 7, exercises = { 'streams' } }\n");
    fixture_write(f->root, "lessons/07-s/streams.lua", lua);
    fixture_write(f->root, "lessons/07-s/streams.cu", work_cu);
    fixture_write(f->root, "lessons/07-s/solutions/streams.cu", work_cu);
    f->cu = path_join(f->root, "lessons/07-s/streams.cu");
    char *lessons = path_join(f->root, "lessons");
    Diag *d = course_load(lessons, &f->course);
    free(lessons);
    if (d) fail_msg("%s", d->message);
    return f;
}

static void fx_free(Fx **fp) {
    Fx *f = *fp;
    course_free(&f->course);
    free(f->cache);
    free(f->cu);
    fixture_remove(&f->root);
    free(f);
    *fp = NULL;
}

static RunResult *run_with(Backend *b, const char *lua, const char *key, const char *value) {
    Fx *f = fx_new(lua);
    const char *keys[1] = {key}, *values[1] = {value};
    ExerciseRunOptions o = {.cu_path = f->cu, .cu_display = "streams.cu", .cache_dir = f->cache};
    if (key) {
        o.param_keys = keys;
        o.param_values = values;
        o.n_params = 1;
    }
    RunResult *r = exercise_run(course_find_exercise(f->course, "streams", NULL), b, &o);
    fx_free(&f);
    return r;
}

static Backend *open_emu(void) {
    EmuOptions eo = {.metrics = true, .checks = true};
    Diag *why = NULL;
    Backend *b = emu_backend_new(&eo, &why);
    if (!b) fail_msg("emulator: %s", why ? why->message : "?");
    return b;
}

static const CheckResult *check_named(const RunResult *r, const char *name) {
    for (int i = 0; i < r->n_checks; i++)
        if (!strcmp(r->checks[i].name, name)) return &r->checks[i];
    return NULL;
}

static void emu__overlaps_and_passes__when_chunks_pinned_on_two_streams(void **state) {
    (void)state;
    Backend *b = open_emu();
    RunResult *r = run_with(b, streams_lua, NULL, NULL);
    if (r->verdict != VERDICT_PASS) run_result_print(r, stderr, false);
    assert_int_equal(r->verdict, VERDICT_PASS);
    const CheckResult *ov = check_named(r, "overlap");
    assert_non_null(ov);
    assert_string_equal(ov->message, "copy of chunk 2 overlaps the kernel of chunk 1");
    /* polling took modeled host time until the event completed */
    json_t *polls = json_object_get(json_object_get(json_object_get(r->metrics, "custom"), "polls"), "value");
    assert_true(json_number_value(polls) >= 1);
    run_result_free(&r);
    backend_close(&b);
}

static void emu__writes_timeline_metrics__in_agreed_shape(void **state) {
    (void)state;
    Backend *b = open_emu();
    RunResult *r = run_with(b, streams_lua, NULL, NULL);
    json_t *tl = json_object_get(r->metrics, "timeline");
    assert_non_null(tl);
    assert_true(json_is_true(json_object_get(tl, "modeled")));
    assert_string_equal(json_string_value(json_object_get(tl, "source")), "emu-model");
    assert_non_null(strstr(json_string_value(json_object_get(tl, "device")), "sm_90"));
    json_t *streams = json_object_get(tl, "streams");
    bool s1 = false;
    size_t i;
    json_t *v;
    json_array_foreach(streams, i, v)
        if (!strcmp(json_string_value(json_object_get(v, "name")), "s1"))
            s1 = json_integer_value(json_object_get(v, "priority")) == -1;
    assert_true(s1);
    int kernels = 0, hosts = 0, h2d_pinned = 0;
    double first = 1e300;
    json_array_foreach(json_object_get(tl, "events"), i, v) {
        const char *k = json_string_value(json_object_get(v, "kind"));
        double start = json_number_value(json_object_get(v, "start_us"));
        if (start < first) first = start;
        assert_true(json_number_value(json_object_get(v, "dur_us")) >= 0);
        if (!strcmp(k, "kernel")) {
            kernels++;
            assert_int_equal(json_integer_value(json_array_get(json_object_get(v, "grid"), 0)), 16);
            assert_int_equal(json_integer_value(json_array_get(json_object_get(v, "block"), 0)), 256);
        }
        if (!strcmp(k, "host")) {
            hosts++;
            assert_int_equal(json_integer_value(json_object_get(v, "stream")), -1);
            assert_string_equal(json_string_value(json_object_get(v, "name")), "count");
        }
        if (!strcmp(k, "h2d") && json_is_true(json_object_get(v, "pinned"))) {
            h2d_pinned++;
            assert_int_equal(json_integer_value(json_object_get(v, "bytes")), 4096 * 4);
        }
    }
    assert_int_equal(kernels, 2);
    assert_int_equal(hosts, 1);
    assert_int_equal(h2d_pinned, 2);
    assert_float_equal(first, 0.0, 1e-12);
    run_result_free(&r);
    backend_close(&b);
}

static void emu__overlap_check_fails__when_copies_pageable(void **state) {
    (void)state;
    Backend *b = open_emu();
    RunResult *r = run_with(b, streams_lua, "pinned", "false");
    assert_int_equal(r->verdict, VERDICT_FAIL);
    const CheckResult *ov = check_named(r, "overlap");
    assert_non_null(ov);
    assert_false(ov->passed);
    assert_non_null(strstr(ov->message, "does not overlap"));
    /* times in plain units ("12.3 µs to 45.6 µs"), never a 14-digit decimal */
    assert_true(strstr(ov->message, " µs") || strstr(ov->message, " ms"));
    int digits = 0;
    for (const char *p = ov->message; *p; p++) {
        digits = *p >= '0' && *p <= '9' ? digits + 1 : 0;
        if (digits > 4) fail_msg("a long number in \"%s\"", ov->message);
    }
    /* the values are still right: only the timing differs */
    assert_true(check_named(r, "y1") == NULL || check_named(r, "y1")->passed);
    for (int i = 0; i < r->n_checks; i++)
        if (strcmp(r->checks[i].name, "overlap")) assert_true(r->checks[i].passed);
    run_result_free(&r);
    backend_close(&b);
}

static void emu__default_stream_check_fails__when_arrays_upload_by_themselves(void **state) {
    (void)state;
    Backend *b = open_emu();
    RunResult *r = run_with(b, streams_lua, "auto", "true");
    assert_int_equal(r->verdict, VERDICT_FAIL);
    const CheckResult *c = check_named(r, "default-stream");
    assert_non_null(c);
    assert_false(c->passed);
    assert_non_null(strstr(c->message, "copy x1 -> device ran on the legacy default stream"));
    run_result_free(&r);
    backend_close(&b);
}

static void emu__elapsed_is_an_author_error__when_event_not_complete(void **state) {
    (void)state;
    Backend *b = open_emu();
    RunResult *r = run_with(b, misuse_lua, NULL, NULL);
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(r->diags);
    assert_non_null(strstr(r->diags->message, "not ready"));
    assert_int_equal(r->diags->line, 10);
    run_result_free(&r);
    backend_close(&b);
}

static void gpu__passes_with_measured_timeline__when_gpu_present(void **state) {
    (void)state;
    Diag *why = NULL;
    Backend *b = cuda_backend_new(&why);
    if (!b) {
        const char *must = getenv("CUDOJO_TEST_GPU");
        if (must && *must && strcmp(must, "0")) fail_msg("no GPU: %s", why ? why->message : "?");
        diag_free(&why);
        skip();
    }
    RunResult *r = run_with(b, streams_lua, "m", "1048576");
    if (r->verdict != VERDICT_PASS) run_result_print(r, stderr, false);
    assert_int_equal(r->verdict, VERDICT_PASS);
    json_t *tl = json_object_get(r->metrics, "timeline");
    assert_false(json_is_true(json_object_get(tl, "modeled")));
    /* CUPTI's records; events only where CUPTI is missing or turned off */
    const char *env = getenv("CUDOJO_TIMELINE");
    assert_string_equal(json_string_value(json_object_get(tl, "source")),
                        env && !strcmp(env, "events") ? "events" : "cupti");
    run_result_free(&r);
    backend_close(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emu__overlaps_and_passes__when_chunks_pinned_on_two_streams),
        cmocka_unit_test(emu__writes_timeline_metrics__in_agreed_shape),
        cmocka_unit_test(emu__overlap_check_fails__when_copies_pageable),
        cmocka_unit_test(emu__default_stream_check_fails__when_arrays_upload_by_themselves),
        cmocka_unit_test(emu__elapsed_is_an_author_error__when_event_not_complete),
        cmocka_unit_test(gpu__passes_with_measured_timeline__when_gpu_present),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
