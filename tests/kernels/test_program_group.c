/* tests/kernels/test_program_group.c: the start barrier of copies of a
 * timed program run at once (program_run_processes, kernels/program_group.c):
 * each member that asks for its turn before its first GPU work waits until
 * every member asked or will not (exited, crashed), or the bound passed
 * after the first ask; then all are answered at once, and one that asks
 * later at once. With the GPU lock and without it (a workbench); never a
 * hang, whatever a member does.
 *
 * The members are a plain C stand-in for the runtime library (as in
 * test_program_turn.c): argv[1] is its index, argv[2 + index] what it does:
 * "ask@MS" sleeps MS ms, asks (a "turn" record, then it reads CUDOJO_TURN_FD)
 * and prints when it was answered on CLOCK_MONOTONIC (shared by processes),
 * then ends its turn as a runtime does at its exit ("i", and it waits for
 * the answer); "exit@MS" exits with status 3 after MS ms, asking nothing;
 * "crash@MS" dies of SIGSEGV; "fork@MS" forks a child that sleeps 1.5 s
 * holding its output (the sandbox's filter may refuse the fork: it says
 * so) and exits; "run@MS" runs MS ms, asking nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/kernels/program_fixture.h"

static const char *MEMBER_SRC =
    "#include <fcntl.h>\n#include <signal.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "#include <time.h>\n#include <unistd.h>\n"
    "static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);\n"
    "    return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }\n"
    "static void nap(int ms) { struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L}; nanosleep(&ts, NULL); }\n"
    "int main(int argc, char **argv) {\n"
    "    if (argc < 3) return 2;\n"
    "    int me = atoi(argv[1]);\n"
    "    if (argc < 3 + me) return 2;\n"
    "    const char *what = argv[2 + me], *at = strchr(what, '@');\n"
    "    int ms = at ? atoi(at + 1) : 0;\n"
    "    const char *rep = getenv(\"CUDOJO_REPORT_FD\"), *turn = getenv(\"CUDOJO_TURN_FD\");\n"
    "    printf(\"variable: %s\\n\", turn ? \"set\" : \"none\");\n"
    "    fflush(stdout);\n"
    "    nap(ms);\n"
    "    if (!strncmp(what, \"exit\", 4)) return 3;\n"
    "    if (!strncmp(what, \"crash\", 5)) raise(SIGSEGV);\n"
    "    if (!strncmp(what, \"fork\", 4)) {\n"
    "        pid_t c = fork();\n"
    "        if (c == 0) { nap(1500); _exit(0); }\n"
    "        printf(\"fork: %s\\n\", c > 0 ? \"made\" : \"refused\");\n"
    "        return 0;\n"
    "    }\n"
    "    if (!strncmp(what, \"run\", 3)) return 0;\n"
    "    if (!rep || !turn || fcntl(atoi(turn), F_GETFD) < 0) { printf(\"no turn\\n\"); return 0; }\n"
    "    double asked = now();\n"
    "    dprintf(atoi(rep), \"{\\\"type\\\":\\\"turn\\\"}\\n\");\n"
    "    char c;\n"
    "    ssize_t got = read(atoi(turn), &c, 1);\n"
    "    double answered = now();\n"
    "    printf(\"answer: %zd\\nanswered at: %.3f\\nwaited: %.0f\\n\", got, answered, answered - asked);\n"
    "    if (write(atoi(turn), \"i\", 1) != 1 || read(atoi(turn), &c, 1) != 1) printf(\"no rest\\n\");\n"
    "    else printf(\"rested\\n\");\n"
    "    return 0;\n"
    "}\n";

typedef struct GroupFixture {
    Fixture f;
    char locks[128];
    char *exe;
} GroupFixture;

static int group_setup(void **state) {
    if (setup(state)) return -1;
    GroupFixture *g = xcalloc(1, sizeof *g);
    g->f = *(Fixture *)*state;
    free(*state);
    *state = g;
    snprintf(g->locks, sizeof g->locks, "%s/locks", g->f.dir);
    mkdir(g->locks, 0700);
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    unsetenv("CUDOJO_GPU_LOCK_MODE");
    unsetenv("CUDOJO_GROUP_BARRIER_MS");
    unsetenv("CUDA_VISIBLE_DEVICES");
    g->exe = cc_build(&g->f, "member", MEMBER_SRC);
    return 0;
}

static int group_teardown(void **state) {
    GroupFixture *g = *state;
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    unsetenv("CUDOJO_GROUP_BARRIER_MS");
    free(g->exe);
    Fixture *f = xcalloc(1, sizeof *f);
    *f = g->f;
    free(g);
    *state = f;
    return teardown(state);
}

/* Runs n members, member i doing what[i]; the lock on or off. */
static void run_members(GroupFixture *g, bool lock, int n, const char *const *what, ProgramResult *r) {
    if (lock) setenv("CUDOJO_GPU_LOCK_DIR", g->locks, 1);
    else unsetenv("CUDOJO_GPU_LOCK_DIR");
    const char *args[2 + PROGRAM_MAX_PROCESSES] = {"{process}"};
    for (int i = 0; i < n; i++) args[1 + i] = what[i];
    g->f.ropts.args = args;
    g->f.ropts.n_args = 1 + n;
    ProgramMps mps;
    assert_null(program_run_processes(g->exe, &g->f.ropts, n, false, r, &mps));
    g->f.ropts.args = NULL;
    g->f.ropts.n_args = 0;
    unsetenv("CUDOJO_GPU_LOCK_DIR");
}

/* A number the member printed after `key`; -1 when it did not. */
static double said(const ProgramResult *r, const char *key) {
    const char *at = r->out ? strstr(r->out, key) : NULL;
    return at ? atof(at + strlen(key)) : -1;
}

static void results_fini(ProgramResult *r, int n) {
    for (int i = 0; i < n; i++) program_result_fini(&r[i]);
}

/* Four members reach their first GPU work 150 ms apart (contexts made at
 * different speeds): all are answered within a few ms of each other, once
 * the last asked, with the lock and without; the first one's wait is not
 * its time. With the barrier off (CUDOJO_GROUP_BARRIER_MS=0) each goes at
 * its own ask, as before (with the lock: without it there is no turn). */
static void barrier__members_start_their_gpu_work_together__when_they_reach_it_apart(void **state) {
    GroupFixture *g = *state;
    const char *what[] = {"ask@0", "ask@150", "ask@300", "ask@450"};
    /* without the barrier a member made after the group's turn gets no channel: all made first */
    const char *what_off[] = {"ask@100", "ask@250", "ask@400", "ask@550"};
    for (int pass = 0; pass < 3; pass++) {
        bool lock = pass >= 1, off = pass == 2;    /* no barrier and no lock: no turn to ask for */
        if (off) setenv("CUDOJO_GROUP_BARRIER_MS", "0", 1);
        ProgramResult r[4];
        run_members(g, lock, 4, off ? what_off : what, r);
        unsetenv("CUDOJO_GROUP_BARRIER_MS");
        double first = 1e18, last = 0;
        for (int i = 0; i < 4; i++) {
            if (!r[i].out || !strstr(r[i].out, "answer: 1\n") || !strstr(r[i].out, "rested\n"))
                fprintf(stderr, "member %d said:\n%s\n", i, r[i].out ? r[i].out : "(nothing)");
            assert_int_equal(r[i].exit_code, 0);
            assert_non_null(strstr(r[i].out, "variable: set\n"));
            assert_non_null(strstr(r[i].out, "answer: 1\n"));
            assert_non_null(strstr(r[i].out, "rested\n"));     /* its exit answered: no hang without the lock */
            double at = said(&r[i], "answered at: ");
            if (at < first) first = at;
            if (at > last) last = at;
        }
        fprintf(stderr, "%s: answers %.1f ms apart, member 0 waited %.0f ms (wall %.0f ms)\n",
                off ? "no barrier" : lock ? "barrier, lock on" : "barrier, lock off", last - first,
                said(&r[0], "waited: "), r[0].wall_ms);
        if (off) {
            assert_true(last - first >= 400);
            assert_true(said(&r[0], "waited: ") < 100);
        } else {
            assert_true(last - first < 30);
            assert_true(said(&r[0], "waited: ") >= 400);
            assert_true(r[0].wall_ms < 300);    /* the wait left out */
        }
        results_fini(r, 4);
    }
}

/* A member that exits, crashes or forks and exits before its first GPU
 * work holds the others only until its end, far below the bound. */
static void barrier__opens_when_a_member_ends_without_asking__whatever_the_way(void **state) {
    GroupFixture *g = *state;
    const char *ends[] = {"exit@200", "crash@200", "fork@200"};
    for (int k = 0; k < 3; k++) {
        const char *what[] = {"ask@0", ends[k]};
        ProgramResult r[2];
        run_members(g, k == 1, 2, what, r);
        double waited = said(&r[0], "waited: ");
        fprintf(stderr, "%s: member 0 waited %.0f ms\n", ends[k], waited);
        assert_int_equal(r[0].exit_code, 0);
        assert_true(waited >= 150 && waited < 1000);
        if (k == 0) assert_int_equal(r[1].exit_code, 3);
        if (k == 1) assert_true(r[1].signaled);
        if (k == 2) assert_non_null(strstr(r[1].out, "fork: "));
        results_fini(r, 2);
    }
}

/* A member that never asks (no GPU work, or slow to reach it) holds the
 * others for the bound only; one that asks after the barrier opened is
 * answered at once. */
static void barrier__is_bounded__and_answers_a_late_member_at_once(void **state) {
    GroupFixture *g = *state;
    setenv("CUDOJO_GROUP_BARRIER_MS", "300", 1);
    const char *what[] = {"ask@0", "run@1200", "ask@800"};
    ProgramResult r[3];
    run_members(g, true, 3, what, r);
    double w0 = said(&r[0], "waited: "), w2 = said(&r[2], "waited: ");
    fprintf(stderr, "member 0 waited %.0f ms, member 2 (asked at 800 ms) %.0f ms\n", w0, w2);
    assert_true(w0 >= 250 && w0 < 700);
    assert_true(w2 >= 0 && w2 < 100);
    for (int i = 0; i < 3; i++) assert_int_equal(r[i].exit_code, 0);
    results_fini(r, 3);
}

/* A member's wait at the barrier moves its deadline as it grows: one
 * waiting for a member that hangs before its first GPU work (killed at
 * its timeout) is not timed out with it. */
static void barrier__a_member_waiting_is_not_timed_out__when_another_hangs_before_its_gpu_work(void **state) {
    GroupFixture *g = *state;
    g->f.ropts.timeout_s = 0.6;
    const char *what[] = {"ask@0", "run@5000"};
    ProgramResult r[2];
    run_members(g, false, 2, what, r);
    double waited = said(&r[0], "waited: ");
    fprintf(stderr, "member 0 waited %.0f ms; member 1 timed out: %d\n", waited, r[1].timed_out);
    assert_true(r[1].timed_out);
    assert_false(r[0].timed_out);
    assert_int_equal(r[0].exit_code, 0);
    assert_true(waited >= 500);
    results_fini(r, 2);
}

/* The barrier is the group's: a lone program's turn, a single member and an
 * untimed group get none (no channel without the lock, as before). */
static void barrier__only_for_groups_of_timed_copies(void **state) {
    GroupFixture *g = *state;
    const char *what[] = {"ask@0", "ask@0"};
    ProgramResult r[2];
    run_members(g, false, 1, what, r);
    assert_non_null(strstr(r[0].out, "variable: none\n"));
    results_fini(r, 1);
    g->f.ropts.gpu_shared = true;
    run_members(g, false, 2, what, r);
    g->f.ropts.gpu_shared = false;
    for (int i = 0; i < 2; i++) assert_non_null(strstr(r[i].out, "variable: none\n"));
    results_fini(r, 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(barrier__members_start_their_gpu_work_together__when_they_reach_it_apart,
                                        group_setup, group_teardown),
        cmocka_unit_test_setup_teardown(barrier__opens_when_a_member_ends_without_asking__whatever_the_way,
                                        group_setup, group_teardown),
        cmocka_unit_test_setup_teardown(barrier__is_bounded__and_answers_a_late_member_at_once, group_setup,
                                        group_teardown),
        cmocka_unit_test_setup_teardown(
            barrier__a_member_waiting_is_not_timed_out__when_another_hangs_before_its_gpu_work, group_setup,
            group_teardown),
        cmocka_unit_test_setup_teardown(barrier__only_for_groups_of_timed_copies, group_setup, group_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
