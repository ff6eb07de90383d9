/* tests/grade/test_worker_session.c: a worker that stops (timed out, ended,
 * killed) leaves nothing running: whatever it started in another process
 * group (nvcc's pipeline, a program that left its group) is killed with it
 * (app/runner.c: the worker's own session, runner_kill_session). The
 * workers are shell scripts standing in for `cudojo __worker`; the stray
 * process is a python3 that moves to a process group of its own, as
 * nvcc's children are in nvcc's group. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app/runner.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "tests/support/script_worker.h"

static char tmpdir[] = "/tmp/cudojo-test-session-XXXXXX";

#define RESULT_LINE "{\"result\":{\"verdict\":\"pass\",\"summary\":\"1 check passed\"},\"restart\":false}"

/* A process in a group of its own that writes its pid to `pidfile` and sleeps. */
static char *stray(const char *pidfile) {
    return xasprintf("python3 -c 'import os, time\nos.setpgid(0, 0)\nopen(\"%s.tmp\", \"w\").write(str(os.getpid()))\n"
                     "os.rename(\"%s.tmp\", \"%s\")\ntime.sleep(100)' </dev/null >/dev/null 2>&1 &",
                     pidfile, pidfile, pidfile);
}

/* The pid the stray wrote, waiting up to 5 s for it. */
static pid_t stray_pid(const char *pidfile) {
    for (int i = 0; i < 500; i++) {
        char *text = NULL;
        Diag *d = fs_read_file(pidfile, &text, NULL);
        if (!d) {
            pid_t p = (pid_t)atoi(text);
            free(text);
            return p;
        }
        diag_free(&d);
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    }
    return -1;
}

/* Whether `pid` still runs (a zombie does not), waiting up to 2 s for it to go. */
static bool still_running(pid_t pid) {
    for (int i = 0; i < 200; i++) {
        char path[64], buf[512] = "";
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f) return false;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        char *rp = strrchr(buf, ')');
        if (!rp || rp[2] == 'Z' || rp[2] == 'X') return false;
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    }
    kill(pid, SIGKILL);     /* not ours to leave behind either */
    return true;
}

static RunResult *run_with(const char *name, const char *body, double timeout_s) {
    RunResult *res = script_worker_run(tmpdir, name, body, timeout_s, 0);
    assert_non_null(res);
    return res;
}

static int setup(void **state) {
    (void)state;
    if (system("python3 -c '' 2>/dev/null") != 0) return -1;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    return script_worker_remove_dir(tmpdir);
}

static void session__a_timed_out_worker__leaves_no_process_of_another_group_running(void **state) {
    (void)state;
    char *pidfile = path_join(tmpdir, "timeout.pid");
    char *bg = stray(pidfile);
    /* the stray's pid file first: under load its python3 can take longer to start than a short limit */
    char *body = xasprintf("read line\n%s\nwhile [ ! -e %s ]; do sleep 0.01; done\nexec sleep 100", bg, pidfile);
    RunResult *res = run_with("timeout.sh", body, 2.0);
    assert_int_equal(res->verdict, VERDICT_TIMEOUT);
    pid_t p = stray_pid(pidfile);
    assert_true(p > 0);
    assert_false(still_running(p));
    run_result_free(&res);
    free(body);
    free(bg);
    free(pidfile);
}

static void session__a_worker_that_ends_normally__leaves_no_process_of_another_group_running(void **state) {
    (void)state;
    char *pidfile = path_join(tmpdir, "normal.pid");
    char *bg = stray(pidfile);
    char *body = xasprintf("read line\n%s\nwhile [ ! -e %s ]; do sleep 0.01; done\necho '" RESULT_LINE "'\n"
                           "read rest\nexit 0", bg, pidfile);
    RunResult *res = run_with("normal.sh", body, 10);
    assert_int_equal(res->verdict, VERDICT_PASS);
    pid_t p = stray_pid(pidfile);
    assert_true(p > 0);
    assert_false(still_running(p));
    run_result_free(&res);
    free(body);
    free(bg);
    free(pidfile);
}

static void session__another_session__is_not_touched(void **state) {
    (void)state;
    /* The limit of the mechanism, and its safety: only the worker's session
       is emptied, never another one (a daemon, the user's shell). */
    char *pidfile = path_join(tmpdir, "other.pid");
    char *cmd = xasprintf("python3 -c 'import os, time\nos.setsid()\nopen(\"%s.tmp\", \"w\").write(str(os.getpid()))\n"
                          "os.rename(\"%s.tmp\", \"%s\")\ntime.sleep(100)' </dev/null >/dev/null 2>&1 &",
                          pidfile, pidfile, pidfile);
    assert_int_equal(system(cmd), 0);
    pid_t other = stray_pid(pidfile);
    assert_true(other > 0);
    /* A session of its own standing in for a worker, with one member. */
    pid_t leader = fork();
    if (leader == 0) {
        setsid();
        if (fork() == 0) for (;;) pause();
        for (;;) pause();
    }
    nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
    runner_kill_session(leader);
    kill(leader, SIGKILL);
    waitpid(leader, NULL, 0);
    assert_int_equal(kill(other, 0), 0);
    kill(other, SIGKILL);
    free(cmd);
    free(pidfile);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(session__a_timed_out_worker__leaves_no_process_of_another_group_running),
        cmocka_unit_test(session__a_worker_that_ends_normally__leaves_no_process_of_another_group_running),
        cmocka_unit_test(session__another_session__is_not_touched),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
