/* tests/lua/test_limits.c: what one exercise run may keep and how long it
 * may take, whatever its script does (issue 16): the log, check messages,
 * metric names and error texts are capped, so a script in a loop cannot
 * grow the worker or progress.db; its wall-clock limit and budget end it at
 * its own line; an exercise's timeout has a ceiling. Runs on the fake
 * backend (no kernel is launched). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "lua/exercise.h"
#include "lua/sandbox.h"
#include "tests/lua/lesson_fixture.h"
#include "tests/support/fake_backend.h"

typedef struct Fixture {
    char *root;
    Course *course;
    Diag *load_diags;
    Backend *b;
    RunResult *r;
} Fixture;

static int setup(void **state) {
    Fixture *f = xcalloc(1, sizeof *f);
    f->root = fixture_tmpdir();
    fixture_write(f->root, "lessons/01-a/chapter.lua", "return { id = 'a', order = 1, exercises = { 'flood' } }\n");
    fixture_write(f->root, "lessons/01-a/flood.cu", "__global__ void k() {}\n");
    fixture_write(f->root, "lessons/01-a/solutions/flood.cu", "__global__ void k() {}\n");
    f->b = fake_backend_new();
    *state = f;
    return 0;
}

static int teardown(void **state) {
    Fixture *f = *state;
    run_result_free(&f->r);
    course_free(&f->course);
    diag_free(&f->load_diags);
    backend_close(&f->b);
    fixture_remove(&f->root);
    free(f);
    return 0;
}

/* Loads an exercise whose fields are `fields` and whose run(t) body is
 * `body` (line 3 of the file is the body's first line), and runs it. */
static RunResult *run_body(Fixture *f, const char *fields, const char *body) {
    char *lua = xasprintf("return { id = 'flood', source = 'flood.cu', hints = {'a','b'}, %s\n"
                          "  run = function(t)\n%s\n  end,\n}\n", fields, body);
    fixture_write(f->root, "lessons/01-a/flood.lua", lua);
    free(lua);
    course_free(&f->course);
    diag_free(&f->load_diags);
    char *lessons = path_join(f->root, "lessons");
    f->load_diags = course_load(lessons, &f->course);
    free(lessons);
    if (diag_count_errors(f->load_diags)) fail_msg("course: %s", f->load_diags->message);
    const ExerciseMeta *ex = course_find_exercise(f->course, "flood", NULL);
    assert_non_null(ex);
    char *cu = path_join(f->root, "lessons/01-a/flood.cu"), *cache = path_join(f->root, "cache");
    ExerciseRunOptions o = {.cu_path = cu, .cu_display = "flood.cu", .cache_dir = cache};
    run_result_free(&f->r);
    alarm(60); /* a limit that does not hold fails the test instead of hanging it */
    f->r = exercise_run(ex, f->b, &o);
    alarm(0);
    free(cu);
    free(cache);
    return f->r;
}

static void limits__tlog_of_1_MB_in_a_loop__keeps_at_most_1_MiB(void **state) {
    Fixture *f = *state;
    RunResult *r = run_body(f, "", "    local s = string.rep('x', 1 << 20)\n"
                                   "    for i = 1, 300 do t:log(s); print(s) end\n");
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_non_null(r->log);
    assert_true(strlen(r->log) <= SANDBOX_LOG_CAP + 200);
    assert_non_null(strstr(r->log, "the rest of the output was cut"));
}

static void limits__expect_messages_are_cut__and_checks_past_1000_fold_into_one(void **state) {
    Fixture *f = *state;
    RunResult *r = run_body(f, "", "    local m = string.rep('m', 100000)\n"
                                   "    for i = 1, 5000 do t:expect(i ~= 4321, m) end\n");
    assert_int_equal(r->n_checks, RESULT_MAX_CHECKS);
    for (int i = 0; i < r->n_checks; i++) assert_true(strlen(r->checks[i].message) <= RESULT_MAX_TEXT + 40);
    assert_non_null(strstr(r->checks[0].message, "bytes cut)"));
    const CheckResult *last = &r->checks[r->n_checks - 1];
    assert_int_equal(last->n_total, 5000 - (RESULT_MAX_CHECKS - 1));
    assert_int_equal(last->n_wrong, 1);
    assert_false(last->passed);
    /* The one failure among the folded checks still fails the run. */
    assert_int_equal(r->verdict, VERDICT_FAIL);
}

static void limits__a_100_MB_metric_name__is_refused_at_its_line(void **state) {
    Fixture *f = *state;
    RunResult *r = run_body(f, "", "    t:metric(string.rep('n', 100000000), 1)\n");
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->diags->message, "a name of 200 bytes or less"));
    assert_int_equal(r->diags->line, 3);
    assert_true(strlen(r->summary) < 400);
}

static void limits__metrics_per_run_are_capped(void **state) {
    Fixture *f = *state;
    RunResult *r = run_body(f, "", "    for i = 1, 100000 do t:metric('m' .. i, i) end\n");
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->diags->message, "at most 1000 metrics"));
}

static void limits__a_huge_error_text__is_cut(void **state) {
    Fixture *f = *state;
    RunResult *r = run_body(f, "", "    error(string.rep('e', 10000000))\n");
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_true(strlen(r->diags->message) <= SANDBOX_MESSAGE_CAP + 40);
    assert_true(strlen(r->summary) <= SANDBOX_MESSAGE_CAP + 200);
}

static void limits__wall_clock_ends_a_pcall_loop__at_its_line(void **state) {
    Fixture *f = *state;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* The default budget would take seconds; the 1 s timeout ends it first. */
    RunResult *r = run_body(f, "timeout = 1,", "    while true do pcall(function() while true do end end) end\n");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->diags->message, "wall-clock limit"));
    assert_int_equal(r->diags->line, 3);
    assert_true((double)(t1.tv_sec - t0.tv_sec) < 5);
}

static void limits__timeout_above_the_ceiling__is_clamped_with_a_warning(void **state) {
    Fixture *f = *state;
    run_body(f, "timeout = math.huge,", "");
    const ExerciseMeta *ex = course_find_exercise(f->course, "flood", NULL);
    assert_true(ex->timeout_s == 600);
    const Diag *w = f->load_diags;
    while (w && !strstr(w->message, "above the ceiling")) w = w->next;
    assert_non_null(w);
    assert_int_equal(w->severity, DIAG_WARNING);
    assert_string_equal(w->file, "lessons/01-a/flood.lua");
    assert_int_equal(w->line, 1);
}

static void limits__a_huge_source__is_refused_before_nvrtc_runs(void **state) {
    Fixture *f = *state;
    /* A 1.2 MB source took NVRTC 12.8 s: always a timeout, never an answer. */
    size_t n = (size_t)300 << 10;
    char *big = xmalloc(n + 64);
    strcpy(big, "__global__ void k() {}\n");
    size_t len = strlen(big);
    while (len + 40 < n) len += (size_t)sprintf(big + len, "// padding padding padding padding\n");
    fixture_write(f->root, "lessons/01-a/flood.cu", big);
    free(big);
    RunResult *r = run_body(f, "", "    t:kernel('k')\n");
    assert_int_equal(r->verdict, VERDICT_COMPILE_ERROR);
    assert_non_null(strstr(r->diags->message, "a kernel source may be at most 256 KiB"));
    assert_string_equal(r->diags->file, "flood.cu");
}

/* A "kernel" that reports a new finding at every launch (another line each
 * time: the same finding of many launches is kept once, counted). */
static void k_racy(Dim3 grid, Dim3 block, const KernelArg *args, int nargs, void *user) {
    static int line;
    (void)grid;
    (void)block;
    (void)args;
    (void)nargs;
    fake_backend_queue_finding(user, diag_new(DIAG_WARNING, "race", "flood.cu", ++line, 0, "a race"));
}

static void limits__findings_of_launches_in_a_loop__are_capped(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "k", k_racy, f->b);
    RunResult *r = run_body(f, "", "    local k = t:kernel('k')\n"
                                   "    for i = 1, 1000 do k:launch{ grid = 1, block = 1, args = {} } end\n");
    int n = diag_count(r->diags);
    assert_true(n >= 200 && n <= 202);
    const Diag *last = r->diags;
    while (last->next) last = last->next;
    assert_non_null(strstr(last->message, "not kept (a run keeps 200)"));
}

static void limits__kernels_compiled_with_ever_new_defines__are_capped(void **state) {
    Fixture *f = *state;
    RunResult *r = run_body(f, "", "    for i = 1, 1000 do t:kernel('k', { defines = { N = i } }) end\n");
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->diags->message, "at most 64 differently compiled versions"));
    assert_int_equal(r->diags->line, 3);
}

static void limits__a_compile_error_cannot_be_caught_by_pcall(void **state) {
    Fixture *f = *state;
    fixture_write(f->root, "lessons/01-a/flood.cu", "__global__ void k() { syntax error }\n");
    RunResult *r = run_body(f, "", "    for i = 1, 100 do pcall(function() t:kernel('k') end) end\n"
                                   "    t:log('went on')\n");
    assert_int_equal(r->verdict, VERDICT_COMPILE_ERROR);
    assert_null(r->log);
    assert_int_equal(json_integer_value(json_object_get(r->metrics, "launches")), 0);
}

static void limits__huge_array_and_kernel_names__are_refused_at_their_line(void **state) {
    Fixture *f = *state;
    /* Names reach every message, finding and the progress database. */
    RunResult *r = run_body(f, "", "    local a = gpu.array('f32', 4, string.rep('n', 100000))\n");
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->diags->message, "gpu.array: a name of at most 200 bytes"));
    assert_int_equal(r->diags->line, 3);
    r = run_body(f, "", "    local k = t:kernel(string.rep('k', 100000000))\n");
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->diags->message, "t:kernel: a name of at most 200 bytes"));
    assert_true(strlen(r->summary) < 400);
    r = run_body(f, "", "    local a = gpu.array('f32', 4):named(string.rep('n', 300))\n");
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->diags->message, "a:named: a name of at most 200 bytes"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(limits__tlog_of_1_MB_in_a_loop__keeps_at_most_1_MiB, setup, teardown),
        cmocka_unit_test_setup_teardown(limits__expect_messages_are_cut__and_checks_past_1000_fold_into_one, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(limits__a_100_MB_metric_name__is_refused_at_its_line, setup, teardown),
        cmocka_unit_test_setup_teardown(limits__metrics_per_run_are_capped, setup, teardown),
        cmocka_unit_test_setup_teardown(limits__a_huge_error_text__is_cut, setup, teardown),
        cmocka_unit_test_setup_teardown(limits__wall_clock_ends_a_pcall_loop__at_its_line, setup, teardown),
        cmocka_unit_test_setup_teardown(limits__timeout_above_the_ceiling__is_clamped_with_a_warning, setup, teardown),
        cmocka_unit_test_setup_teardown(limits__a_huge_source__is_refused_before_nvrtc_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(limits__findings_of_launches_in_a_loop__are_capped, setup, teardown),
        cmocka_unit_test_setup_teardown(limits__kernels_compiled_with_ever_new_defines__are_capped, setup, teardown),
        cmocka_unit_test_setup_teardown(limits__a_compile_error_cannot_be_caught_by_pcall, setup, teardown),
        cmocka_unit_test_setup_teardown(limits__huge_array_and_kernel_names__are_refused_at_their_line, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
