/* tests/lua/test_uninit.c: gpu.array{init = false} on the emulator — a
 * kernel reading an element nobody wrote is an `uninit-global` finding with
 * the learner's line and the array's name; writing it first (a kernel, the
 * script, a copy) makes the read fine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lua/exercise.h"
#include "tests/lua/lesson_fixture.h"

static const char *const kernels_cu =
    "__global__ void fill(float *x, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] = 1.0f;\n"
    "}\n"
    "__global__ void twice(const float *x, float *y, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = 2.0f * x[i];\n"
    "}\n";

/* mode: read (nothing wrote src), kernel (fill first), script (src[1] set
 * by the script), half (fill only the first half) */
static const char *const ex_lua =
    "return {\n"
    "  id = 'uninit',\n"
    "  source = 'k.cu',\n"
    "  hints = { 'a', 'b' },\n"
    "  run = function(t)\n"
    "    local n = 1000\n"
    "    local mode = t:param('mode', 'read')\n"
    "    local src = gpu.array('f32', n, { init = false })\n"
    "    local out = gpu.array('f32', n)\n"
    "    local grid = (n + 255) // 256\n"
    "    if mode == 'kernel' then t:kernel('fill'):launch{ grid = grid, block = 256, args = { src, gpu.i32(n) } } end\n"
    "    if mode == 'half' then t:kernel('fill'):launch{ grid = grid, block = 256, args = { src, gpu.i32(n // 2) } } end\n"
    "    if mode == 'script' then src[1] = 3 end\n"
    "    t:kernel('twice'):launch{ grid = grid, block = 256, args = { src, out, gpu.i32(n) } }\n"
    "    t:expect(true, 'ran')\n"
    "  end,\n"
    "}\n";

static RunResult *run_mode(const char *mode) {
    char *root = fixture_tmpdir(), *cache = path_join(root, "cache");
    fixture_write(root, "lessons/01-a/chapter.lua", "return { id = 'a', order = 1, exercises = { 'uninit' } }\n");
    fixture_write(root, "lessons/01-a/uninit.lua", ex_lua);
    fixture_write(root, "lessons/01-a/k.cu", kernels_cu);
    fixture_write(root, "lessons/01-a/solutions/k.cu", kernels_cu);
    char *lessons = path_join(root, "lessons"), *cu = path_join(root, "lessons/01-a/k.cu");
    Course *course = NULL;
    Diag *d = course_load(lessons, &course);
    if (d) fail_msg("%s", d->message);
    EmuOptions eo = {.metrics = true, .checks = true};
    Diag *why = NULL;
    Backend *b = emu_backend_new(&eo, &why);
    if (!b) fail_msg("emulator: %s", why ? why->message : "?");
    const char *keys[] = {"mode"}, *vals[] = {mode};
    ExerciseRunOptions o = {.cu_path = cu, .cu_display = "k.cu", .cache_dir = cache, .param_keys = keys,
                            .param_values = vals, .n_params = 1};
    RunResult *r = exercise_run(course_find_exercise(course, "uninit", NULL), b, &o);
    backend_close(&b);
    course_free(&course);
    free(lessons);
    free(cu);
    free(cache);
    fixture_remove(&root);
    return r;
}

static const Diag *find_code(const RunResult *r, const char *code) {
    for (const Diag *d = r->diags; d; d = d->next)
        if (d->code && !strcmp(d->code, code)) return d;
    return NULL;
}

static void uninit__read_of_unwritten_array__is_reported_at_the_line(void **state) {
    (void)state;
    RunResult *r = run_mode("read");
    const Diag *d = find_code(r, "uninit-global");
    if (!d) run_result_print(r, stderr, false);
    assert_non_null(d);
    assert_int_equal(d->line, 7);
    assert_non_null(strstr(d->message, "src[0]"));
    assert_int_equal(r->verdict, VERDICT_FAIL);
    run_result_free(&r);
}

static void uninit__written_by_a_kernel_first__is_fine(void **state) {
    (void)state;
    RunResult *r = run_mode("kernel");
    if (r->verdict != VERDICT_PASS) run_result_print(r, stderr, false);
    assert_null(find_code(r, "uninit-global"));
    assert_int_equal(r->verdict, VERDICT_PASS);
    run_result_free(&r);
}

static void uninit__written_by_the_script__is_fine(void **state) {
    (void)state;
    RunResult *r = run_mode("script");
    assert_null(find_code(r, "uninit-global"));
    assert_int_equal(r->verdict, VERDICT_PASS);
    run_result_free(&r);
}

static void uninit__half_written__names_the_first_unwritten_element(void **state) {
    (void)state;
    RunResult *r = run_mode("half");
    const Diag *d = find_code(r, "uninit-global");
    assert_non_null(d);
    assert_non_null(strstr(d->message, "src[500]"));
    run_result_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uninit__read_of_unwritten_array__is_reported_at_the_line),
        cmocka_unit_test(uninit__written_by_a_kernel_first__is_fine),
        cmocka_unit_test(uninit__written_by_the_script__is_fine),
        cmocka_unit_test(uninit__half_written__names_the_first_unwritten_element),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
