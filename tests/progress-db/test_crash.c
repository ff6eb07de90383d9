/* tests/progress-db/test_crash.c: a cudojo killed while it records loses
 * no committed attempt and leaves a database that opens and is intact.
 *
 * A child process opens the store and records attempts in a loop; after
 * each store_record_attempt returns it writes the count to a pipe. The
 * parent SIGKILLs it once it has heard of enough commits (so the child is
 * killed in the middle of its next write), reads every count the child got
 * out before dying, then opens the database itself: every reported attempt
 * must be there and PRAGMA integrity_check must say ok. Several rounds run
 * on the same file, each starting from the previous crash's leftovers
 * (a hot WAL). */
#include "tests/progress-db/store_fixture.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

/* Commits the parent waits for before each kill; a few rounds. */
#define COMMITS_BEFORE_KILL 40
#define ROUNDS 13

/* The child: records attempts forever, reporting each commit. Never returns. */
static void crash_child(const char *db_path, int report_fd, int round) {
    Store *s = NULL;
    Diag *d = store_open(db_path, &s);
    if (d) _exit(2);
    /* Big enough that one attempt spans pages, so a kill can land mid-write. */
    static char metrics[64 * 1024];
    int len = snprintf(metrics, sizeof metrics, "{\"round\": %d, \"pad\": \"", round);
    for (; len < (int)sizeof metrics - 4; len++) metrics[len] = (char)('a' + len % 26);
    memcpy(metrics + len, "\"}", 3);
    for (int i = 1;; i++) {
        Attempt a = store_fixture_attempt(i % 3 ? "vector-add" : "grid-stride", i % 5 ? "fail" : "pass",
                                          0, i % 5 ? -1 : 0.5);
        a.metrics_json = metrics;
        d = store_record_attempt(s, &a, NULL);
        if (d) _exit(3);
        if (write(report_fd, &i, sizeof i) != (ssize_t)sizeof i) _exit(4);
    }
}

/* Forks a child, kills it after COMMITS_BEFORE_KILL reports, returns the
 * last count it reported. */
static int crash_round(const char *db_path, int round) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        crash_child(db_path, fds[1], round);
    }
    close(fds[1]);
    int last = 0, n = 0;
    bool killed = false;
    for (;;) {
        ssize_t got = read(fds[0], &n, sizeof n);
        if (got < 0 && errno == EINTR) continue;
        if (got != (ssize_t)sizeof n) break; /* EOF: the child is gone */
        last = n;
        if (!killed && n >= COMMITS_BEFORE_KILL) {
            /* A different moment of the next write each round. */
            struct timespec delay = {0, (long)(round * 97 % 13) * 50 * 1000};
            nanosleep(&delay, NULL);
            assert_int_equal(kill(pid, SIGKILL), 0);
            killed = true;
        }
    }
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFSIGNALED(status)) print_error("child exited with %d before the kill\n", WEXITSTATUS(status));
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
    return last;
}

static int count_attempts(Store *s) {
    ExerciseStatus *all = NULL;
    int n = 0, total = 0;
    assert_no_diag(store_all_status(s, &all, &n));
    for (int i = 0; i < n; i++) total += all[i].attempts;
    exercise_status_free_array(&all, n);
    return total;
}

static void record_attempt__keeps_every_committed_attempt__when_killed_mid_write(void **state) {
    StoreFixture *f = *state;
    int stored = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int before = stored;
        int reported = crash_round(f->db_path, round);
        assert_true(reported >= COMMITS_BEFORE_KILL);

        Store *s = NULL;
        assert_no_diag(store_open(f->db_path, &s));
        assert_no_diag(store_check_integrity(s));
        stored = count_attempts(s);
        /* Every reported attempt, and at most the one more whose commit
         * landed after the last report. */
        assert_true(stored >= before + reported);
        assert_true(stored <= before + reported + 1);
        /* The store is usable after the crash. */
        json_t *arr = NULL;
        assert_no_diag(store_attempts_json(s, "vector-add", 1, &arr));
        assert_int_equal(json_array_size(arr), 1);
        assert_true(json_is_object(json_object_get(json_array_get(arr, 0), "metrics")));
        json_decref(arr);
        store_close(&s);
    }
}

int main(void) {
    /* A killed child's pipe must not kill us on a write, nor leave zombies. */
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(record_attempt__keeps_every_committed_attempt__when_killed_mid_write,
                                        store_fixture_setup, store_fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
