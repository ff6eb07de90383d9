/* tests/app/test_runner_verdict.c: the verdict before the final result
 * (issue 15): a worker with work after the verdict (t:program{ after = })
 * sends a {"verdict": ...} line, then activity, then the final {"result":
 * ...} line. The parent keeps the verdict for runner_take_verdict (once),
 * while the run is still busy; a client that never asks gets the final
 * result as before; a run stopped after its verdict (timeout, crash,
 * cancel) ends with that verdict and a warning, never a timeout or a
 * crash. The workers are shell scripts standing in for `cudojo __worker`. */
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
#include "base/xalloc.h"
#include "tests/support/script_worker.h"

static char tmpdir[] = "/tmp/cudojo-test-verdict-XXXXXX";

#define VERDICT_LINE "{\"verdict\":{\"verdict\":\"pass\",\"summary\":\"2 checks passed\",\"log\":\"timeline: ok\\n\"}}"
#define PROFILING_LINE "{\"activity\":\"program\",\"what\":\"profiling with Nsight Compute (the verdict is in)\"}"
/* A script line that prints one protocol line (dash's echo would read the \n in them). */
#define SAY(line) "printf '%s\\n' '" line "'; "
#define RESULT_LINE                                                                                       \
    "{\"result\":{\"verdict\":\"pass\",\"summary\":\"2 checks passed\",\"log\":\"timeline: ok\\n\","      \
    "\"after_log\":\"ncu: 4.0 sectors per request\\n\"},\"restart\":false}"

static int setup(void **state) {
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    return script_worker_remove_dir(tmpdir);
}

static RunRequest request(double timeout_s) {
    return (RunRequest){.exercise_id = "x", .chapter_dir = "/nonexistent", .cu_path = "/nonexistent/x.cu",
                        .timeout_s = timeout_s};
}

/* A runner on the worker script `body`, with its request sent. */
static Runner *start(const char *name, const char *body, double timeout_s, char **path) {
    *path = script_worker_make(tmpdir, name, body);
    assert_non_null(*path);
    RunnerConfig cfg = {.worker_exe = *path};
    Runner *r = runner_new(&cfg);
    RunRequest req = request(timeout_s);
    assert_null(runner_start(r, &req));
    return r;
}

/* Polls until the verdict is there (or 5 s). */
static RunResult *await_verdict(Runner *r) {
    for (int i = 0; i < 500; i++) {
        RunResult *res = NULL;
        assert_int_equal(runner_poll(r, 10, &res), RUNNER_BUSY);
        RunResult *v = runner_take_verdict(r);
        if (v) return v;
    }
    fail_msg("no verdict within 5 s");
    return NULL;
}

static void verdict__comes_while_busy__once__then_the_final_result_holds_both(void **state) {
    (void)state;
    char *w;
    /* the final result waits for a line on the worker's stdin that never comes before 0.3 s */
    Runner *r = start("two.sh", "read line; " SAY(VERDICT_LINE) SAY(PROFILING_LINE) "sleep 0.3; " SAY(RESULT_LINE)
                      "read line", 30, &w);
    RunResult *v = await_verdict(r);
    assert_int_equal(v->verdict, VERDICT_PASS);
    assert_string_equal(v->summary, "2 checks passed");
    assert_null(v->after_log);
    run_result_free(&v);
    assert_true(runner_has_verdict(r));
    assert_null(runner_take_verdict(r));        /* once */
    assert_true(runner_fd(r) >= 0);             /* still running: the profile */
    RunResult *res = runner_wait(r, NULL);
    assert_int_equal(res->verdict, VERDICT_PASS);
    assert_string_equal(res->log, "timeline: ok\n");
    assert_string_equal(res->after_log, "ncu: 4.0 sectors per request\n");
    assert_false(runner_has_verdict(r));
    run_result_free(&res);
    runner_free(&r);
    free(w);
}

static void verdict__a_client_that_never_asks__gets_the_final_result(void **state) {
    (void)state;
    RunResult *res = script_worker_run(tmpdir, "old.sh", "read line; " SAY(VERDICT_LINE) SAY(RESULT_LINE),
                                       30, 0);
    assert_non_null(res);
    assert_int_equal(res->verdict, VERDICT_PASS);
    assert_string_equal(res->after_log, "ncu: 4.0 sectors per request\n");
    assert_null(res->diags);
    run_result_free(&res);
}

static void verdict__both_lines_in_one_read__the_final_result_comes_back_alone(void **state) {
    (void)state;
    char *w;
    Runner *r = start("oneread.sh", "read line; printf '%s\\n%s\\n' '" VERDICT_LINE "' '" RESULT_LINE "'; read line",
                      30, &w);
    RunResult *res = NULL;
    for (int i = 0; i < 500 && runner_poll(r, 10, &res) != RUNNER_DONE; i++) {}
    assert_non_null(res);
    assert_string_equal(res->after_log, "ncu: 4.0 sectors per request\n");
    assert_null(runner_take_verdict(r));        /* done: the final result says it all */
    run_result_free(&res);
    runner_free(&r);
    free(w);
}

static void verdict__a_timeout_after_it__keeps_the_verdict_with_a_warning(void **state) {
    (void)state;
    char *w;
    Runner *r = start("hang.sh", "read line; " SAY(VERDICT_LINE) SAY(PROFILING_LINE) "exec sleep 100", 0.5,
                      &w);
    RunResult *res = runner_wait(r, NULL);
    assert_int_equal(res->verdict, VERDICT_PASS);
    assert_string_equal(res->summary, "2 checks passed");
    assert_non_null(res->diags);
    assert_int_equal(res->diags->severity, DIAG_WARNING);
    assert_string_equal(res->diags->code, "after-verdict");
    assert_non_null(strstr(res->diags->message, "what ran after the verdict did not finish"));
    assert_non_null(strstr(res->diags->message, "profiling with Nsight Compute"));
    assert_non_null(strstr(res->diags->message, "(the verdict stands)"));
    run_result_free(&res);
    runner_free(&r);
    free(w);
}

static void verdict__a_crash_after_it__keeps_the_verdict_with_a_warning(void **state) {
    (void)state;
    char *w;
    Runner *r = start("die.sh", "read line; " SAY(VERDICT_LINE) "sleep 0.1; kill -SEGV $$", 30, &w);
    RunResult *res = runner_wait(r, NULL);
    assert_int_equal(res->verdict, VERDICT_PASS);
    assert_non_null(res->diags);
    assert_string_equal(res->diags->code, "after-verdict");
    assert_non_null(strstr(res->diags->message, "crashed"));
    run_result_free(&res);
    runner_free(&r);
    free(w);
}

static void verdict__cancel_after_it__keeps_the_verdict__cancel_before_it_is_cancelled(void **state) {
    (void)state;
    char *w;
    Runner *r = start("slow.sh", "read line; " SAY(VERDICT_LINE) "exec sleep 100", 30, &w);
    RunResult *v = await_verdict(r);
    run_result_free(&v);
    RunResult *res = runner_cancel_result(r);
    assert_int_equal(res->verdict, VERDICT_PASS);
    assert_non_null(strstr(res->diags->message, "stopped by the user"));
    assert_int_equal(runner_fd(r), -1);
    assert_null(runner_cancel_result(r));       /* idle */
    run_result_free(&res);
    runner_free(&r);
    free(w);
    r = start("quiet.sh", "read line; exec sleep 100", 30, &w);
    res = NULL;
    assert_int_equal(runner_poll(r, 50, &res), RUNNER_BUSY);
    assert_null(runner_take_verdict(r));
    res = runner_cancel_result(r);
    assert_int_equal(res->verdict, VERDICT_CANCELLED);
    run_result_free(&res);
    runner_free(&r);
    free(w);
}

/* runner_wait_verdict's callback: what it was given. */
static int g_calls;
static char g_summary[64];
static void on_verdict(void *ud, const RunResult *v) {
    (void)ud;
    g_calls++;
    snprintf(g_summary, sizeof g_summary, "%s", v->summary);
}

static void verdict__wait_verdict_calls_back_once_before_returning_the_final_result(void **state) {
    (void)state;
    char *w;
    Runner *r = start("cb.sh", "read line; " SAY(VERDICT_LINE) "sleep 0.3; " SAY(RESULT_LINE) "read line", 30,
                      &w);
    g_calls = 0;
    RunResult *res = runner_wait_verdict(r, NULL, on_verdict, NULL);
    assert_int_equal(g_calls, 1);
    assert_string_equal(g_summary, "2 checks passed");
    assert_non_null(res->after_log);
    run_result_free(&res);
    runner_free(&r);
    free(w);
}

/* The verdict line and the result in one read (a profile after the verdict
 * that took no time, on a loaded machine): runner_wait_verdict still calls
 * back with the verdict first (watch --json's "verdict" event). */
static void verdict__wait_verdict_calls_back__when_both_lines_come_in_one_read(void **state) {
    (void)state;
    char *w;
    Runner *r = start("cbone.sh", "read line; printf '%s\\n%s\\n' '" VERDICT_LINE "' '" RESULT_LINE "'; read line",
                      30, &w);
    g_calls = 0;
    RunResult *res = runner_wait_verdict(r, NULL, on_verdict, NULL);
    assert_int_equal(g_calls, 1);
    assert_string_equal(g_summary, "2 checks passed");
    assert_non_null(res->after_log);
    assert_null(runner_take_verdict(r));
    run_result_free(&res);
    runner_free(&r);
    free(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(verdict__comes_while_busy__once__then_the_final_result_holds_both),
        cmocka_unit_test(verdict__a_client_that_never_asks__gets_the_final_result),
        cmocka_unit_test(verdict__both_lines_in_one_read__the_final_result_comes_back_alone),
        cmocka_unit_test(verdict__a_timeout_after_it__keeps_the_verdict_with_a_warning),
        cmocka_unit_test(verdict__a_crash_after_it__keeps_the_verdict_with_a_warning),
        cmocka_unit_test(verdict__cancel_after_it__keeps_the_verdict__cancel_before_it_is_cancelled),
        cmocka_unit_test(verdict__wait_verdict_calls_back_once_before_returning_the_final_result),
        cmocka_unit_test(verdict__wait_verdict_calls_back__when_both_lines_come_in_one_read),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
