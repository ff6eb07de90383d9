/* tests/lua/test_kernel_occupancy.c: k:occupancy{...}, t:expect_occupancy
 * and the per-kernel numbers a launch records, run end to end on the fake
 * backend (the .cu really compiles: registers come from ptxas).
 *
 * The expected occupancies are derived by hand: `tiled` has 48 KiB of static
 * shared memory (+1 KiB reserved = 50176 B per block): 3 blocks of 256
 * threads on sm_80's 164 KiB (37.5%), 4 on sm_90's 228 KiB (50%);
 * `vector_add` is held to 32 registers by __launch_bounds__(256, 8), so 8
 * blocks of 256 fill an sm_80 or sm_90 SM (100%). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernels/compile.h"
#include "lua/exercise.h"
#include "tests/lua/lesson_fixture.h"
#include "tests/support/fake_backend.h"

static const char *const cu =
    "__global__ void __launch_bounds__(256, 8) vector_add(const float *a, const float *b, float *c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "__global__ void tiled(float *c) {\n"
    "    __shared__ float s[12288];\n"
    "    s[threadIdx.x] = threadIdx.x;\n"
    "    __syncthreads();\n"
    "    c[threadIdx.x] = s[255 - threadIdx.x];\n"
    "}\n";

typedef struct Fixture {
    char *root;
    char *cache;
    Course *course;
    Backend *b;
    RunResult *r;
} Fixture;

static void k_nothing(Dim3 grid, Dim3 block, const KernelArg *args, int nargs, void *user) {
    (void)grid, (void)block, (void)args, (void)nargs, (void)user;
}

static int setup(void **state) {
    Fixture *f = xcalloc(1, sizeof *f);
    f->root = fixture_tmpdir();
    f->cache = path_join(f->root, "cache");
    fixture_write(f->root, "lessons/01-a/chapter.lua", "return { id = 'a', order = 1, exercises = { 'occ' } }\n");
    fixture_write(f->root, "lessons/01-a/occ.cu", cu);
    fixture_write(f->root, "lessons/01-a/solutions/occ.cu", cu);
    f->b = fake_backend_new();
    fake_backend_register(f->b, "vector_add", k_nothing, NULL);
    fake_backend_register(f->b, "tiled", k_nothing, NULL);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    Fixture *f = *state;
    run_result_free(&f->r);
    course_free(&f->course);
    backend_close(&f->b);
    free(f->cache);
    fixture_remove(&f->root);
    free(f);
    unsetenv("CUDOJO_OCCUPANCY");
    return 0;
}

/* Runs an exercise whose run(t) body is `body`. */
static RunResult *run_body(Fixture *f, const char *body) {
    char *lua = xasprintf("return {\n  id = 'occ',\n  source = 'occ.cu',\n  hints = { 'a', 'b' },\n"
                          "  run = function(t)\n%s\n  end,\n}\n", body);
    fixture_write(f->root, "lessons/01-a/occ.lua", lua);
    free(lua);
    course_free(&f->course);
    char *lessons = path_join(f->root, "lessons");
    Diag *d = course_load(lessons, &f->course);
    free(lessons);
    if (diag_count_errors(d)) fail_msg("course: %s:%d: %s", d->file, d->line, d->message);
    diag_free(&d);
    const ExerciseMeta *ex = course_find_exercise(f->course, "occ", NULL);
    assert_non_null(ex);
    char *cu_path = path_join(f->root, "lessons/01-a/occ.cu");
    ExerciseRunOptions o = {.cu_path = cu_path, .cu_display = "occ.cu", .cache_dir = f->cache};
    run_result_free(&f->r);
    f->r = exercise_run(ex, f->b, &o);
    free(cu_path);
    return f->r;
}

static double custom(const RunResult *r, const char *name) {
    json_t *v = json_object_get(json_object_get(json_object_get(r->metrics, "custom"), name), "value");
    if (!v) fail_msg("no metric %s", name);
    return json_number_value(v);
}

static void k_occupancy__names_shared_memory__when_a_block_holds_48_kib(void **state) {
    Fixture *f = *state;
    RunResult *r = run_body(f, "    local o = t:kernel('tiled'):occupancy{ block = 256 }\n"
                               "    t:metric('occ', o.occupancy)\n"
                               "    t:metric('blocks', o.blocks_per_sm)\n"
                               "    t:metric('warps', o.warps_per_sm)\n"
                               "    t:metric('static', o.shared_static)\n"
                               "    t:expect(o.limiter == 'shared memory', o.limiter)\n"
                               "    t:expect(o.arch == 'sm_80', o.arch)\n"   /* the fake backend says 8.0 */
                               "    t:expect(o.explanation:find('only 3 blocks fit') ~= nil, o.explanation)\n"
                               "    local h = t:kernel('tiled'):occupancy{ block = {16, 16}, arch = 'sm_90' }\n"
                               "    t:metric('occ90', h.occupancy)\n");
    if (r->verdict != VERDICT_PASS) run_result_print(r, stderr, false);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_true(custom(r, "occ") == 0.375);
    assert_true(custom(r, "blocks") == 3);
    assert_true(custom(r, "warps") == 24);
    assert_true(custom(r, "static") == 49152);
    assert_true(custom(r, "occ90") == 0.5);
    /* What was predicted stays in the result. */
    json_t *occ = json_object_get(json_object_get(json_object_get(r->metrics, "kernels"), "tiled"), "occupancy");
    assert_string_equal(json_string_value(json_object_get(occ, "arch")), "sm_90");
    assert_string_equal(json_string_value(json_object_get(occ, "limiter")), "shared memory");
}

/* Regression: with defines, asking about another arch rebuilt the kernel with
 * garbage options (the defines list was read from the wrong stack slot). */
static void k_occupancy__rebuilds_with_the_same_defines__when_asked_about_another_arch(void **state) {
    Fixture *f = *state;
    RunResult *r = run_body(f, "    local k = t:kernel('tiled', { defines = { N = 256, FAST = true } })\n"
                               "    local h = k:occupancy{ block = 256, arch = 'sm_90' }\n"
                               "    t:metric('occ90', h.occupancy)\n");
    if (r->verdict != VERDICT_PASS) run_result_print(r, stderr, false);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_true(custom(r, "occ90") == 0.5);
}

static void k_occupancy__is_an_error_in_the_lesson__when_the_arch_is_unknown(void **state) {
    Fixture *f = *state;
    RunResult *r = run_body(f, "    t:kernel('tiled'):occupancy{ block = 256, arch = 'sm_42' }\n");
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->summary, "occ.lua:6"));
    assert_non_null(strstr(r->summary, "unknown arch 'sm_42' (known: sm_75, sm_80"));
    r = run_body(f, "    t:kernel('tiled'):occupancy{ shared = 0 }\n");
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->summary, "block = <threads per block> is missing"));
}

static void expect_occupancy__passes_and_fails_with_the_reason(void **state) {
    Fixture *f = *state;
    RunResult *r = run_body(f, "    t:expect_occupancy(t:kernel('vector_add'), { block = 256, min = 1.0, arch = 'sm_90' })\n"
                               "    t:expect_occupancy(t:kernel('tiled'), { block = 256, min = 0.75, arch = 'sm_90' })\n");
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_int_equal(r->n_checks, 2);
    assert_true(r->checks[0].passed);
    assert_non_null(strstr(r->checks[0].message, "100.0%"));
    assert_false(r->checks[1].passed);
    assert_string_equal(r->checks[1].name, "occupancy");
    const char *m = r->checks[1].message;
    assert_non_null(strstr(m, "occupancy of tiled on sm_90 with 256 threads per block is 50.0% (32 of 64 warps)"));
    assert_non_null(strstr(m, "expected at least 75%"));
    assert_non_null(strstr(m, "limited by shared memory"));
}

static void expect_occupancy__checks_a_prediction_to_one_warp(void **state) {
    Fixture *f = *state;
    RunResult *r = run_body(f, "    local k = t:kernel('tiled')\n"
                               "    t:expect_occupancy(k, { block = 256, predicted = 0.375 })\n"
                               "    t:expect_occupancy(k, { block = 256, predicted = 0.5 })\n");
    assert_int_equal(r->n_checks, 2);
    assert_true(r->checks[0].passed);
    assert_false(r->checks[1].passed);
    assert_non_null(strstr(r->checks[1].message, "you predicted 50.0%"));
    assert_non_null(strstr(r->checks[1].message, "is 37.5%"));
    r = run_body(f, "    t:expect_occupancy(t:kernel('tiled'), { block = 256, min = 2 })\n");
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->summary, "fractions 0..1"));
}

static void launch__records_the_numbers_the_tui_needs(void **state) {
    Fixture *f = *state;
    const char *body = "    local c = gpu.array('f32', 256)\n"
                       "    t:kernel('tiled'):launch{ grid = 1, block = {32, 8}, shared = 128, args = { c } }\n";
    RunResult *r = run_body(f, body);
    assert_int_equal(r->verdict, VERDICT_PASS);
    json_t *k = json_object_get(json_object_get(r->metrics, "kernels"), "tiled");
    assert_int_equal(json_integer_value(json_object_get(k, "block")), 256);
    assert_int_equal(json_integer_value(json_object_get(k, "shared_dynamic")), 128);
    assert_string_equal(json_string_value(json_object_get(k, "arch")), "sm_80");
    assert_null(json_object_get(k, "registers"));   /* no cubin on this backend */
    /* On the emulator with CUDOJO_OCCUPANCY=1 (the TUI) a cubin is built for the registers. */
    fake_backend_set_name(f->b, "emu");
    setenv("CUDOJO_OCCUPANCY", "1", 1);
    r = run_body(f, body);
    assert_int_equal(r->verdict, VERDICT_PASS);
    k = json_object_get(json_object_get(r->metrics, "kernels"), "tiled");
    assert_true(json_integer_value(json_object_get(k, "registers")) > 0);
    assert_int_equal(json_integer_value(json_object_get(k, "shared_static")), 49152);
    unsetenv("CUDOJO_OCCUPANCY");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(k_occupancy__names_shared_memory__when_a_block_holds_48_kib, setup, teardown),
        cmocka_unit_test_setup_teardown(k_occupancy__rebuilds_with_the_same_defines__when_asked_about_another_arch,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(k_occupancy__is_an_error_in_the_lesson__when_the_arch_is_unknown, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(expect_occupancy__passes_and_fails_with_the_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(expect_occupancy__checks_a_prediction_to_one_warp, setup, teardown),
        cmocka_unit_test_setup_teardown(launch__records_the_numbers_the_tui_needs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
