/* tests/app/test_runner_activity.c: a timeout says what was running (issue
 * 16): the worker tells its parent what the run does ({"activity": ...}
 * lines before the result) and the parent's message names the kernel and
 * the line that launched it, or the script's line, or the compile, which
 * has its own limit apart from the run's timeout; a worker that dies while
 * compiling (NVRTC out of memory) says so. The workers are shell
 * scripts standing in for `cudojo __worker`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/runner.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "tests/support/script_worker.h"

static char tmpdir[] = "/tmp/cudojo-test-activity-XXXXXX";

#define KERNEL_LINE "{\"activity\":\"kernel\",\"what\":\"running kernel add_one (launched at lessons/01-a/x.lua:7)\"}"
#define SCRIPT_LINE "{\"activity\":\"script\",\"what\":\"running the exercise script (at lessons/01-a/x.lua:12)\"}"
#define COMPILE_LINE "{\"activity\":\"compile\",\"what\":\"compiling x.cu\"}"
#define WAIT_LINE "{\"activity\":\"gpu-wait\",\"what\":\"begin\"}"
#define GO_LINE "{\"activity\":\"gpu-wait\",\"what\":\"end\"}"
#define RESULT_LINE "{\"result\":{\"verdict\":\"pass\",\"summary\":\"1 check passed\"},\"restart\":false}"

/* An executable script in tmpdir that plays the worker (tests/support/script_worker.c). */
static char *make_worker(const char *name, const char *body) {
    char *path = script_worker_make(tmpdir, name, body);
    assert_non_null(path);
    return path;
}

/* Runs one request against a worker script; caller frees. */
static RunResult *run_with(const char *name, const char *body, double timeout_s, double compile_limit_s) {
    RunResult *res = script_worker_run(tmpdir, name, body, timeout_s, compile_limit_s);
    assert_non_null(res);
    return res;
}

static int setup(void **state) {
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    return script_worker_remove_dir(tmpdir);
}

static void activity__timeout_names_the_kernel_and_the_line_that_launched_it(void **state) {
    (void)state;
    RunResult *res = run_with("kernel.sh", "read line; echo '" SCRIPT_LINE "'; echo '" KERNEL_LINE "'; exec sleep 100",
                              0.3, 0);
    assert_int_equal(res->verdict, VERDICT_TIMEOUT);
    assert_non_null(strstr(res->summary, "was stopped while running kernel add_one (launched at lessons/01-a/x.lua:7)"));
    assert_non_null(strstr(res->summary, "barrier"));
    run_result_free(&res);
}

static void activity__timeout_in_the_script__names_its_line__not_a_kernel(void **state) {
    (void)state;
    RunResult *res = run_with("script.sh", "read line; echo '" KERNEL_LINE "'; echo '" SCRIPT_LINE "'; exec sleep 100",
                              0.3, 0);
    assert_int_equal(res->verdict, VERDICT_TIMEOUT);
    assert_non_null(strstr(res->summary, "while running the exercise script (at lessons/01-a/x.lua:12)"));
    assert_null(strstr(res->summary, "kernel"));
    run_result_free(&res);
}

static void activity__timeout_before_any_activity__says_the_run_was_starting(void **state) {
    (void)state;
    RunResult *res = run_with("quiet.sh", "read line; exec sleep 100", 0.3, 0);
    assert_int_equal(res->verdict, VERDICT_TIMEOUT);
    assert_non_null(strstr(res->summary, "while starting the worker and loading the exercise"));
    assert_null(strstr(res->summary, "kernel"));
    run_result_free(&res);
}

static void activity__compile_time_is_not_counted_against_the_timeout(void **state) {
    (void)state;
    RunResult *res = run_with("slowcc.sh",
                              "read line; echo '" COMPILE_LINE "'; sleep 0.8; echo '" SCRIPT_LINE "'; echo '" RESULT_LINE
                              "'; read never",    /* ends when the runner closes its stdin, as a worker does */
                              0.4, 0);
    assert_int_equal(res->verdict, VERDICT_PASS);
    run_result_free(&res);
}

/* A wait for the GPU's lock (another run's timed section) is never the
 * run's: two threads' overlapping waits (0.8 s in all) in a 0.4 s timeout
 * still pass, and the script's own time still counts. */
static void activity__waits_for_the_gpu_are_not_counted_against_the_timeout(void **state) {
    (void)state;
    RunResult *res = run_with("gpuwait.sh",
                              "read line; echo '" SCRIPT_LINE "'; echo '" WAIT_LINE "'; sleep 0.3; echo '" WAIT_LINE
                              "'; sleep 0.2; echo '" GO_LINE "'; sleep 0.3; echo '" GO_LINE "'; echo '" RESULT_LINE
                              "'; read never",
                              0.4, 0);
    assert_int_equal(res->verdict, VERDICT_PASS);
    run_result_free(&res);
    res = run_with("gpuwait-then-slow.sh",
                   "read line; echo '" WAIT_LINE "'; sleep 0.3; echo '" GO_LINE "'; echo '" KERNEL_LINE
                   "'; exec sleep 100",
                   0.4, 0);
    assert_int_equal(res->verdict, VERDICT_TIMEOUT);
    assert_non_null(strstr(res->summary, "did not finish within 0 s and was stopped while running kernel add_one"));
    run_result_free(&res);
}

/* A stray end with no begin (a line left from the last run) counts nothing. */
static void activity__an_end_without_a_begin__leaves_the_timeout_as_it_is(void **state) {
    (void)state;
    RunResult *res = run_with("stray.sh", "read line; echo '" GO_LINE "'; echo '" KERNEL_LINE "'; exec sleep 100", 0.3, 0);
    assert_int_equal(res->verdict, VERDICT_TIMEOUT);
    assert_non_null(strstr(res->summary, "running kernel add_one"));
    run_result_free(&res);
}

static void activity__a_compile_past_its_own_limit__is_stopped_and_named(void **state) {
    (void)state;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    RunResult *res = run_with("hangcc.sh", "read line; echo '" COMPILE_LINE "'; exec sleep 100", 10, 0.3);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(res->verdict, VERDICT_TIMEOUT);
    assert_non_null(strstr(res->summary, "compiling x.cu took longer than 0.3 s and was stopped"));
    assert_true(t1.tv_sec - t0.tv_sec < 5);
    run_result_free(&res);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void quit__a_worker_that_ignores_its_closed_input_is_killed_after_the_grace(void **state) {
    (void)state;
    /* Answers, then never reads again: before, runner_free waited for it
       as long as it lived (100 s here). */
    char *w = make_worker("deaf.sh", "read line; echo '" RESULT_LINE "'; exec sleep 100");
    RunnerConfig cfg = {.worker_exe = w};
    Runner *r = runner_new(&cfg);
    RunRequest req = {.exercise_id = "x", .chapter_dir = "/nonexistent", .cu_path = "/nonexistent/x.cu",
                      .cu_display = "x.cu", .timeout_s = 10};
    RunResult *res = runner_run(r, &req, NULL);
    assert_int_equal(res->verdict, VERDICT_PASS);
    double t0 = now_s();
    runner_free(&r);
    double took = now_s() - t0;
    assert_null(r);
    assert_true(took >= RUNNER_QUIT_GRACE_MS / 1000.0 - 0.1);
    assert_true(took < RUNNER_QUIT_GRACE_MS / 1000.0 + 5);
    run_result_free(&res);
    free(w);
}

static void activity__is_visible_while_the_run_is_in_flight(void **state) {
    (void)state;
    char *w = make_worker("visible.sh", "read line; echo '" COMPILE_LINE "'; read never");
    RunnerConfig cfg = {.worker_exe = w};
    Runner *r = runner_new(&cfg);
    RunRequest req = {.exercise_id = "x", .chapter_dir = "/n", .cu_path = "/n/x.cu", .timeout_s = 10};
    assert_null(runner_start(r, &req));
    RunResult *res = NULL;
    for (int i = 0; i < 50 && strcmp(runner_activity(r), "compiling x.cu"); i++)
        assert_int_equal(runner_poll(r, 100, &res), RUNNER_BUSY);
    assert_string_equal(runner_activity(r), "compiling x.cu");
    runner_cancel(r);
    assert_null(runner_activity(r));
    runner_free(&r);
    free(w);
}

static void activity__a_worker_that_dies_while_compiling__says_the_compiler_ran_out_of_memory(void **state) {
    (void)state;
    /* NVRTC runs inside the worker: under graded work's memory bound it can end it. */
    RunResult *res = run_with("oom.sh", "read line; echo '" COMPILE_LINE "'; kill -KILL $$", 10, 0);
    assert_int_equal(res->verdict, VERDICT_COMPILE_ERROR);
    assert_non_null(strstr(res->summary, "stopped while compiling x.cu"));
    assert_non_null(strstr(res->summary, "ran out of memory"));
    run_result_free(&res);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(activity__timeout_names_the_kernel_and_the_line_that_launched_it),
        cmocka_unit_test(activity__timeout_in_the_script__names_its_line__not_a_kernel),
        cmocka_unit_test(activity__timeout_before_any_activity__says_the_run_was_starting),
        cmocka_unit_test(activity__compile_time_is_not_counted_against_the_timeout),
        cmocka_unit_test(activity__waits_for_the_gpu_are_not_counted_against_the_timeout),
        cmocka_unit_test(activity__an_end_without_a_begin__leaves_the_timeout_as_it_is),
        cmocka_unit_test(activity__a_compile_past_its_own_limit__is_stopped_and_named),
        cmocka_unit_test(activity__is_visible_while_the_run_is_in_flight),
        cmocka_unit_test(activity__a_worker_that_dies_while_compiling__says_the_compiler_ran_out_of_memory),
        cmocka_unit_test(quit__a_worker_that_ignores_its_closed_input_is_killed_after_the_grace),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
