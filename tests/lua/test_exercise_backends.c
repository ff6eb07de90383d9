/* tests/lua/test_exercise_backends.c: exercise_run on the real backends:
 * the PTX emulator (always) and the GPU (skipped without one; a failure
 * under `make test-gpu`). What the learner sees must not depend on where
 * the kernel ran: same verdicts, same check messages; timings only where
 * they are measured. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lua/exercise.h"
#include "tests/lua/lesson_fixture.h"

static const char *const good_cu =
    "__global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

static const char *const no_guard_cu =
    "__global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    c[i] = a[i] + b[i];\n"
    "}\n";

static const char *const ex_lua =
    "return {\n"
    "  id = 'vector-add',\n"
    "  source = 'vector-add.cu',\n"
    "  hints = { 'a', 'b' },\n"
    "  run = function(t)\n"
    "    local n = t:param('n', 100003)\n"
    "    local a = gpu.array('f32', n):random{ lo = -1, hi = 1, seed = 1 }\n"
    "    local b = gpu.array('f32', n):random{ lo = -1, hi = 1, seed = 2 }\n"
    "    local c = gpu.array('f32', n)\n"
    "    local k = t:kernel('vector_add')\n"
    "    k:launch{ grid = (n + 255) // 256, block = 256, args = { a, b, c, gpu.i32(n) } }\n"
    "    t:expect_close(c, ref.add(a, b), { rel = 1e-6, abs = 1e-7 })\n"
    "    local ms = k:time{ grid = (n + 255) // 256, block = 256, args = { a, b, c, gpu.i32(n) }, reps = 5 }\n"
    "    local gbs = t:report_bandwidth{ bytes = 12 * n, ms = ms }\n"
    "    if t:device().backend == 'emu' then\n"
    "      local m = t:emu_metrics()\n"
    "      t:expect(ms == nil and gbs == nil and m.sectors_per_request == m.ideal_sectors_per_request\n"
    "               and m.sectors_per_request > 3.9 and m.bank_conflicts == 0,\n"
    "               'no fake times on the emulator; coalesced: ' .. tostring(m.sectors_per_request))\n"
    "    else\n"
    "      t:expect(ms ~= nil and ms > 0 and gbs > 0, 'measured: ' .. tostring(ms))\n"
    "    end\n"
    "    t:expect(k.registers == nil or k.registers > 0, 'registers')\n"
    "  end,\n"
    "}\n";

typedef struct Fx {
    char *root, *cache;
    Course *course;
} Fx;

static Fx *fx_new(const char *cu) {
    Fx *f = xcalloc(1, sizeof *f);
    f->root = fixture_tmpdir();
    f->cache = path_join(f->root, "cache");
    fixture_write(f->root, "lessons/01-a/chapter.lua", "return { id = 'a', order = 1, exercises = { 'vector-add' } }\n");
    fixture_write(f->root, "lessons/01-a/vector-add.lua", ex_lua);
    fixture_write(f->root, "lessons/01-a/vector-add.cu", cu);
    fixture_write(f->root, "lessons/01-a/solutions/vector-add.cu", good_cu);
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
    fixture_remove(&f->root);
    free(f);
    *fp = NULL;
}

static RunResult *run_on(Backend *b, const char *cu) {
    Fx *f = fx_new(cu);
    char *cu_path = path_join(f->root, "lessons/01-a/vector-add.cu");
    ExerciseRunOptions o = {.cu_path = cu_path, .cu_display = "vector-add.cu", .cache_dir = f->cache};
    RunResult *r = exercise_run(course_find_exercise(f->course, "vector-add", NULL), b, &o);
    free(cu_path);
    fx_free(&f);
    return r;
}

static Backend *open_emu(void) {
    EmuOptions eo = {.metrics = true, .checks = true};   /* as the worker runs it */
    Diag *why = NULL;
    Backend *b = emu_backend_new(&eo, &why);
    if (!b) fail_msg("emulator: %s", why ? why->message : "?");
    return b;
}

static Backend *open_gpu(void) {
    Diag *why = NULL;
    Backend *b = cuda_backend_new(&why);
    if (!b) {
        const char *must = getenv("CUDOJO_TEST_GPU");
        if (must && !strcmp(must, "1")) fail_msg("no GPU: %s", why ? why->message : "?");
        diag_free(&why);
    }
    return b;
}

static void emu__passes__when_kernel_correct(void **state) {
    (void)state;
    Backend *b = open_emu();
    RunResult *r = run_on(b, good_cu);
    if (r->verdict != VERDICT_PASS) run_result_print(r, stderr, false);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_string_equal(r->backend, "emu");
    assert_string_equal(r->summary, "3 checks passed");
    assert_null(json_object_get(r->metrics, "time_ms"));
    run_result_free(&r);
    backend_close(&b);
}

static void emu__fails_with_labelled_finding__when_guard_missing(void **state) {
    (void)state;
    Backend *b = open_emu();
    RunResult *r = run_on(b, no_guard_cu);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_non_null(r->diags);
    assert_string_equal(r->diags->file, "vector-add.cu");
    assert_int_equal(r->diags->line, 3);
    /* The device buffer carries the Lua name and size of the array. */
    assert_non_null(strstr(r->diags->message, "a has 100003 elements"));
    run_result_free(&r);
    backend_close(&b);
}

static void gpu__passes_and_times__when_kernel_correct(void **state) {
    (void)state;
    Backend *b = open_gpu();
    if (!b) skip();
    RunResult *r = run_on(b, good_cu);
    if (r->verdict != VERDICT_PASS) run_result_print(r, stderr, false);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_string_equal(r->backend, "cuda");
    assert_true(json_real_value(json_object_get(r->metrics, "time_ms")) > 0);
    assert_non_null(json_object_get(json_object_get(r->metrics, "bandwidth"), "gbs"));
    run_result_free(&r);
    backend_close(&b);
}

static void gpu__fails__when_kernel_wrong(void **state) {
    (void)state;
    Backend *b = open_gpu();
    if (!b) skip();
    RunResult *r = run_on(b, "__global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
                             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "    if (i < n) c[i] = a[i] - b[i];\n"
                             "}\n");
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_non_null(strstr(r->summary, "c: "));
    assert_non_null(strstr(r->summary, "wrong of 100003"));
    run_result_free(&r);
    backend_close(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emu__passes__when_kernel_correct),
        cmocka_unit_test(emu__fails_with_labelled_finding__when_guard_missing),
        cmocka_unit_test(gpu__passes_and_times__when_kernel_correct),
        cmocka_unit_test(gpu__fails__when_kernel_wrong),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
