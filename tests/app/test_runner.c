/* tests/app/test_runner.c: the worker protocol survives learner code:
 * a worker that hangs is killed at the timeout, one that crashes is reported
 * and replaced, a cancelled run stops, a good answer comes through. The
 * "workers" are small shell scripts standing in for `cudojo __worker`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/runner.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "tests/support/script_worker.h"

static char tmpdir[] = "/tmp/cudojo-test-runner-XXXXXX";

/* An executable script in tmpdir that plays the worker (tests/support/script_worker.c). */
static char *make_worker(const char *name, const char *body) {
    char *path = script_worker_make(tmpdir, name, body);
    assert_non_null(path);
    return path;
}

static RunRequest request(double timeout_s) {
    RunRequest req = {.exercise_id = "vector-add", .chapter_dir = "/nonexistent", .cu_path = "/nonexistent/x.cu",
                      .cu_display = "x.cu", .timeout_s = timeout_s};
    return req;
}

static int setup(void **state) {
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    return script_worker_remove_dir(tmpdir);
}

static void runner__passes_result_through__when_worker_answers(void **state) {
    (void)state;
    char *w = make_worker("ok.sh", "while read line; do echo '{\"result\":{\"verdict\":\"pass\",\"exercise\":\"vector-add\","
                                   "\"summary\":\"1 check passed\",\"checks\":[],\"diagnostics\":[]},\"restart\":false}'; done");
    RunnerConfig cfg = {.worker_exe = w};
    Runner *r = runner_new(&cfg);
    RunRequest req = request(5);
    for (int i = 0; i < 2; i++) {   /* the same worker serves two runs */
        RunResult *res = runner_run(r, &req, NULL);
        assert_int_equal(res->verdict, VERDICT_PASS);
        assert_string_equal(res->summary, "1 check passed");
        run_result_free(&res);
    }
    runner_free(&r);
    free(w);
}

static void runner__reports_timeout__when_worker_hangs(void **state) {
    (void)state;
    char *w = make_worker("hang.sh", "read line; exec sleep 100");
    RunnerConfig cfg = {.worker_exe = w};
    Runner *r = runner_new(&cfg);
    RunRequest req = request(0.3);
    RunResult *res = runner_run(r, &req, NULL);
    assert_int_equal(res->verdict, VERDICT_TIMEOUT);
    assert_non_null(strstr(res->summary, "did not finish"));
    assert_non_null(res->diags);
    run_result_free(&res);
    runner_free(&r);
    free(w);
}

static void runner__reports_crash_and_replaces_worker__when_worker_segfaults(void **state) {
    (void)state;
    /* First run: the worker dies of SIGSEGV. Second run: a fresh worker answers. */
    char *flag = path_join(tmpdir, "crashed-once");
    char *body = xasprintf("read line\nif [ ! -e %s ]; then touch %s; kill -SEGV $$; fi\n"
                           "echo '{\"result\":{\"verdict\":\"fail\",\"summary\":\"second\"},\"restart\":false}'\n"
                           "while read line; do :; done",
                           flag, flag);
    char *w = make_worker("crash.sh", body);
    RunnerConfig cfg = {.worker_exe = w};
    Runner *r = runner_new(&cfg);
    RunRequest req = request(5);
    RunResult *res = runner_run(r, &req, NULL);
    assert_int_equal(res->verdict, VERDICT_CRASH);
    assert_non_null(strstr(res->summary, "Segmentation fault"));
    run_result_free(&res);
    res = runner_run(r, &req, NULL);
    assert_int_equal(res->verdict, VERDICT_FAIL);
    assert_string_equal(res->summary, "second");
    run_result_free(&res);
    runner_free(&r);
    free(w);
    free(body);
    free(flag);
}

static void runner__reports_crash__when_worker_sends_garbage(void **state) {
    (void)state;
    char *w = make_worker("garbage.sh", "read line; echo 'this is not json'; sleep 100");
    RunnerConfig cfg = {.worker_exe = w};
    Runner *r = runner_new(&cfg);
    RunRequest req = request(5);
    RunResult *res = runner_run(r, &req, NULL);
    assert_int_equal(res->verdict, VERDICT_CRASH);
    assert_non_null(strstr(res->summary, "garbled"));
    run_result_free(&res);
    runner_free(&r);
    free(w);
}

/* A graded GPU run that grade's emulator check will run again says so
 * (RunRequest.emu_checked, the request's "emu_checked"): the worker's
 * t:program{ emulator = true } leaves its own emulator run to the check.
 * Only with grading. The stand-in answers with what it read. */
static void runner__request_says_emu_checked__only_when_grading_with_the_check(void **state) {
    (void)state;
    char *w = make_worker("echo_check.sh",
                          "while read line; do case \"$line\" in *'\"emu_checked\":true'*) s=checked;; *) s=plain;; esac; "
                          "echo '{\"result\":{\"verdict\":\"pass\",\"exercise\":\"vector-add\",\"summary\":\"'$s'\","
                          "\"checks\":[],\"diagnostics\":[]},\"restart\":false}'; done");
    RunnerConfig cfg = {.worker_exe = w};
    Runner *r = runner_new(&cfg);
    const struct {
        bool grading, emu_checked;
        const char *said;
    } cases[] = {{true, true, "checked"}, {true, false, "plain"}, {false, true, "plain"}, {false, false, "plain"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        RunRequest req = request(5);
        req.grading = cases[i].grading;
        req.emu_checked = cases[i].emu_checked;
        RunResult *res = runner_run(r, &req, NULL);
        assert_int_equal(res->verdict, VERDICT_PASS);
        assert_string_equal(res->summary, cases[i].said);
        run_result_free(&res);
    }
    runner_free(&r);
    free(w);
}

static void runner__stops_run__when_cancelled(void **state) {
    (void)state;
    char *w = make_worker("slow.sh", "read line; exec sleep 100");
    RunnerConfig cfg = {.worker_exe = w};
    Runner *r = runner_new(&cfg);
    RunRequest req = request(30);
    assert_null(runner_start(r, &req));
    RunResult *res = NULL;
    assert_int_equal(runner_poll(r, 50, &res), RUNNER_BUSY);
    assert_true(runner_fd(r) >= 0);
    runner_cancel(r);
    assert_int_equal(runner_fd(r), -1);
    assert_int_equal(runner_poll(r, 0, &res), RUNNER_IDLE);
    volatile sig_atomic_t cancel = 1;
    res = runner_run(r, &req, &cancel);
    assert_int_equal(res->verdict, VERDICT_CANCELLED);
    run_result_free(&res);
    runner_free(&r);
    free(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runner__passes_result_through__when_worker_answers),
        cmocka_unit_test(runner__reports_timeout__when_worker_hangs),
        cmocka_unit_test(runner__reports_crash_and_replaces_worker__when_worker_segfaults),
        cmocka_unit_test(runner__reports_crash__when_worker_sends_garbage),
        cmocka_unit_test(runner__stops_run__when_cancelled),
        cmocka_unit_test(runner__request_says_emu_checked__only_when_grading_with_the_check),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
