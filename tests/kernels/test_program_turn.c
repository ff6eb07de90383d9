/* tests/kernels/test_program_turn.c: a timed program's turn alone on the GPU
 * (kernels/program_run.c, gpu_lock.h). With the GPU lock on, a timed program
 * starts holding it shared; its runtime sends a "turn" record before the
 * first GPU work and waits on CUDOJO_TURN_FD; the worker then holds the lock
 * exclusive until the program ends. The wait moves the deadline and is left
 * out of wall_ms. A profiled run holds it shared and the profilers' lock
 * alone. Untimed programs, programs under CUDOJO_GPU_LOCK_MODE=
 * exclusive and a lock that is off get no turn channel, nor the variable.
 * Before an untimed program steps aside for a timed section, the GPU work it
 * queued drains (CUDOJO_DRAIN_FD): the section waits for the answer, a
 * bounded time. On a GPU (CUDOJO_TEST_GPU=1) real programs show it: a timed
 * kernel beside an untimed program's queued kernels takes its time alone.
 *
 * The program is a plain C stand-in for the runtime library (as in
 * test_program_run.c): it looks at the lock file itself, with a descriptor
 * of its own, so what it sees is what another grader would see. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernels/gpu_lock.h"
#include "tests/kernels/program_fixture.h"

/* Prints what another process could take of the lock before and after its
 * turn ("before: shared ok, exclusive busy"), argv[1] = the lock file,
 * argv[2] = a file to make once it runs (or "-"), argv[3] = ms to sleep
 * before asking ("ms@file": first waits, up to 10 s, until that file exists). Without CUDOJO_TURN_FD it asks nothing. With argv[4] =
 * "rest" it then ends its turn as a runtime does at its exit: makes argv[5]
 * (or not, "-"), waits 200 ms, writes "i" on the channel, waits for the
 * answer and prints how long that took and what it could take then. */
static const char *PROBE_SRC =
    "#include <fcntl.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "#include <sys/file.h>\n#include <time.h>\n#include <unistd.h>\n"
    "static const char *can(const char *path, int op) {\n"
    "    int fd = open(path, O_RDWR);\n"
    "    if (fd < 0) return \"no file\";\n"
    "    int got = flock(fd, op | LOCK_NB) == 0;\n"
    "    close(fd);\n"
    "    return got ? \"ok\" : \"busy\";\n"
    "}\n"
    "static void look(const char *when, const char *path) {\n"
    "    printf(\"%s: shared %s, exclusive %s\\n\", when, can(path, LOCK_SH), can(path, LOCK_EX));\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "    if (argc < 4) return 2;\n"
    "    if (strcmp(argv[2], \"-\")) { FILE *m = fopen(argv[2], \"w\"); if (m) fclose(m); }\n"
    "    printf(\"variable: %s\\n\", getenv(\"CUDOJO_TURN_FD\") ? \"set\" : \"none\");\n"
    "    look(\"before\", argv[1]);\n"
    "    const char *after = strchr(argv[3], '@');\n"
    "    for (int i = 0; after && i < 2000 && access(after + 1, F_OK); i++) {\n"
    "        struct timespec p = {0, 5000000L};\n"
    "        nanosleep(&p, NULL);\n"
    "    }\n"
    "    struct timespec ts = {atoi(argv[3]) / 1000, (atoi(argv[3]) % 1000) * 1000000L};\n"
    "    nanosleep(&ts, NULL);\n"
    "    const char *rep = getenv(\"CUDOJO_REPORT_FD\"), *turn = getenv(\"CUDOJO_TURN_FD\");\n"
    "    if (rep && turn && fcntl(atoi(turn), F_GETFD) >= 0) {\n"
    "        dprintf(atoi(rep), \"{\\\"type\\\":\\\"turn\\\"}\\n\");\n"
    "        char c;\n"
    "        printf(\"answer: %zd\\n\", read(atoi(turn), &c, 1));\n"
    "    } else printf(\"no turn\\n\");\n"
    "    look(\"after\", argv[1]);\n"
    "    if (argc > 5 && !strcmp(argv[4], \"rest\") && turn) {\n"
    "        if (strcmp(argv[5], \"-\")) { FILE *m = fopen(argv[5], \"w\"); if (m) fclose(m); }\n"
    "        struct timespec w = {0, 200000000L};\n"
    "        nanosleep(&w, NULL);\n"
    "        struct timespec a, b;\n"
    "        clock_gettime(CLOCK_MONOTONIC, &a);\n"
    "        char c;\n"
    "        if (write(atoi(turn), \"i\", 1) != 1 || read(atoi(turn), &c, 1) != 1) printf(\"no rest\\n\");\n"
    "        clock_gettime(CLOCK_MONOTONIC, &b);\n"
    "        printf(\"rest answered in %.0f ms\\n\", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);\n"
    "        look(\"rested\", argv[1]);\n"
    "        if (argc > 6) {\n"
    "            struct timespec l = {atoi(argv[6]) / 1000, (atoi(argv[6]) % 1000) * 1000000L};\n"
    "            nanosleep(&l, NULL);\n"
    "            look(\"late\", argv[1]);\n"
    "        }\n"
    "    }\n"
    "    return 0;\n"
    "}\n";

/* The stand-ins' clock (ms) and their loop that runs until `ms_expr` ms
 * have passed, in 5 ms steps, then prints the longest step: a stop shows
 * as a long one. */
#define NOW_FN                                                                 \
    "static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);\n" \
    "    return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }\n"
#define LONGEST_STEP(ms_expr)                                                  \
    "    double t0 = now(), last = t0, gap = 0;\n"                              \
    "    while (now() < t0 + " ms_expr ") {\n"                                  \
    "        struct timespec ts = {0, 5000000L};\n"                             \
    "        nanosleep(&ts, NULL);\n"                                           \
    "        double t = now();\n"                                               \
    "        if (t - last > gap) gap = t - last;\n"                             \
    "        last = t;\n"                                                       \
    "    }\n"                                                                   \
    "    printf(\"longest step: %.0f ms\\n\", gap);\n"

/* Makes argv[1] (or not, "-"), then runs for argv[2] ms in 5 ms steps and
 * prints the longest step it took: a stop shows as a long one. */
static const char *GAP_SRC =
    "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n"
    NOW_FN
    "int main(int argc, char **argv) {\n"
    "    if (argc < 3) return 2;\n"
    "    if (strcmp(argv[1], \"-\")) { FILE *m = fopen(argv[1], \"w\"); if (m) fclose(m); }\n"
    LONGEST_STEP("atoi(argv[2])")
    "    return 0;\n"
    "}\n";

/* Writes an "exit" record on its report channel as a runtime does at its
 * exit, makes argv[1], then goes on for argv[2] ms in 5 ms steps and prints
 * the longest step. */
static const char *EXIT_GOES_ON_SRC =
    "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n#include <unistd.h>\n"
    NOW_FN
    "int main(int argc, char **argv) {\n"
    "    if (argc < 3) return 2;\n"
    "    const char *rep = getenv(\"CUDOJO_REPORT_FD\");\n"
    "    if (rep) dprintf(atoi(rep), \"{\\\"type\\\":\\\"exit\\\",\\\"code\\\":0}\\n\");\n"
    "    FILE *m = fopen(argv[1], \"w\"); if (m) fclose(m);\n"
    LONGEST_STEP("atoi(argv[2])")
    "    return 0;\n"
    "}\n";

/* The longest step a GAP_SRC (or MEMBER_SRC) run printed; -1 if none. */
static int longest_step(const ProgramResult *r) {
    const char *at = r->out ? strstr(r->out, "longest step: ") : NULL;
    return at ? atoi(at + strlen("longest step: ")) : -1;
}

typedef struct TurnFixture {
    Fixture f;
    char locks[128];
    char lockfile[160];
    char *exe;
} TurnFixture;

static int turn_setup(void **state) {
    if (setup(state)) return -1;
    TurnFixture *t = xcalloc(1, sizeof *t);
    t->f = *(Fixture *)*state;
    free(*state);
    *state = t;
    snprintf(t->locks, sizeof t->locks, "%s/locks", t->f.dir);
    snprintf(t->lockfile, sizeof t->lockfile, "%s/gpu-0.lock", t->locks);
    mkdir(t->locks, 0700);
    setenv("CUDOJO_GPU_LOCK_DIR", t->locks, 1);
    unsetenv("CUDOJO_GPU_LOCK_MODE");
    unsetenv("CUDA_VISIBLE_DEVICES");
    t->exe = cc_build(&t->f, "probe", PROBE_SRC);
    return 0;
}

static int turn_teardown(void **state) {
    TurnFixture *t = *state;
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    unsetenv("CUDOJO_GPU_LOCK_MODE");
    unsetenv("CUDOJO_GROUP_BARRIER_MS");
    free(t->exe);
    Fixture *f = xcalloc(1, sizeof *f);
    *f = t->f;
    free(t);
    *state = f;
    return teardown(state);
}

static void run_probe_rest(TurnFixture *t, const char *made, const char *sleep_ms, const char *rest,
                           const char *rest_made) {
    const char *args[] = {t->lockfile, made, sleep_ms, rest, rest_made};
    t->f.ropts.args = args;
    t->f.ropts.n_args = 5;
    assert_null(program_run(t->exe, &t->f.ropts, &t->f.res));
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
}

/* run_probe_rest, then (after the rest) argv[6]: sleeps late_ms and looks again ("late: ..."). */
static void run_probe_rest_late(TurnFixture *t, const char *late_ms) {
    const char *args[] = {t->lockfile, "-", "0", "rest", "-", late_ms};
    t->f.ropts.args = args;
    t->f.ropts.n_args = 6;
    assert_null(program_run(t->exe, &t->f.ropts, &t->f.res));
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
}

static void run_probe(TurnFixture *t, const char *made, const char *sleep_ms) {
    run_probe_rest(t, made, sleep_ms, "-", "-");
}

static bool says(const TurnFixture *t, const char *line) {
    bool hit = t->f.res.out && strstr(t->f.res.out, line);
    if (!hit) fprintf(stderr, "the program said:\n%s\n", t->f.res.out ? t->f.res.out : "(nothing)");
    return hit;
}

/* Another grader: a process that waits for the file `made` to appear
 * (NULL: it does not wait), then delay_ms more, takes the GPU lock `mode`,
 * writes how long it waited for it (ms, a double) on waited_fd (-1: it
 * does not), holds it hold_ms and exits. The caller waits for it. */
static pid_t other_grader(const char *made, int delay_ms, GpuLockMode mode, int hold_ms, int waited_fd) {
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid != 0) return pid;
    for (int i = 0; made && i < 500 && access(made, F_OK) != 0; i++) usleep(10000);
    usleep((useconds_t)delay_ms * 1000);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_take(&l, mode);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double waited = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
    bool told = waited_fd < 0 || write(waited_fd, &waited, sizeof waited) == (ssize_t)sizeof waited;
    usleep((useconds_t)hold_ms * 1000);
    gpu_lock_release(&l);
    _exit(told ? 0 : 1);
}

/* Waits for other_grader `other` to end; returns how long it waited for
 * the lock, read from `fd` (the read end of its waited_fd). */
static double grader_waited(pid_t other, int fd) {
    int st;
    waitpid(other, &st, 0);
    double waited = -1;
    assert_int_equal(read(fd, &waited, sizeof waited), (ssize_t)sizeof waited);
    return waited;
}

static void turn__starts_shared_and_is_alone_after_asking__when_the_program_is_timed(void **state) {
    TurnFixture *t = *state;
    GpuLockStats s0, s1;
    gpu_lock_stats(&s0);
    run_probe(t, "-", "200");
    gpu_lock_stats(&s1);
    GpuLockStats d = gpu_lock_stats_diff(&s1, &s0);
    assert_int_equal(t->f.res.exit_code, 0);
    assert_true(says(t, "variable: set\n"));
    assert_true(says(t, "before: shared ok, exclusive busy\n"));    /* beside other untimed work */
    assert_true(says(t, "answer: 1\n"));
    assert_true(says(t, "after: shared busy, exclusive busy\n"));   /* alone */
    assert_int_equal(d.shared_sections, 1);
    assert_int_equal(d.exclusive_sections, 1);
    assert_true(d.held_shared_s >= 0.15);
}

static void turn__stays_shared__when_the_program_never_asks(void **state) {
    TurnFixture *t = *state;
    unsetenv("CUDOJO_GPU_LOCK_DIR");     /* no lock: no channel, and no variable naming one */
    run_probe(t, "-", "0");
    assert_true(says(t, "variable: none\n"));
    assert_true(says(t, "no turn\n"));
    setenv("CUDOJO_GPU_LOCK_DIR", t->locks, 1);
    program_result_fini(&t->f.res);
    t->f.ropts.gpu_shared = true;       /* timed = false: shared throughout, no channel */
    GpuLockStats s0, s1;
    gpu_lock_stats(&s0);
    run_probe(t, "-", "0");
    gpu_lock_stats(&s1);
    GpuLockStats d = gpu_lock_stats_diff(&s1, &s0);
    assert_true(says(t, "no turn\n"));
    assert_true(says(t, "after: shared ok, exclusive busy\n"));
    assert_int_equal(d.shared_sections, 1);
    assert_int_equal(d.exclusive_sections, 0);
}

static void turn__is_exclusive_from_the_start__under_CUDOJO_GPU_LOCK_MODE_exclusive(void **state) {
    TurnFixture *t = *state;
    setenv("CUDOJO_GPU_LOCK_MODE", "exclusive", 1);
    run_probe(t, "-", "0");
    assert_true(says(t, "before: shared busy, exclusive busy\n"));
    assert_true(says(t, "variable: none\n"));
    assert_true(says(t, "no turn\n"));
}

/* Another grader takes the lock exclusive while the program starts and
 * holds it 1.5 s, past the program's 1 s timeout: the program waits (for its
 * turn, or stopped while it starts: a yield), is not killed, and its wall
 * time leaves the wait out. */
static void turn__waits_for_another_timed_section__without_counting_the_wait(void **state) {
    TurnFixture *t = *state;
    char made[200];
    snprintf(made, sizeof made, "%s/started", t->f.dir);
    pid_t other = other_grader(made, 0, GPU_LOCK_EXCLUSIVE, 1500, -1);   /* waits for the program's shared hold */
    t->f.ropts.timeout_s = 1;
    GpuLockStats s0, s1;
    gpu_lock_stats(&s0);
    run_probe(t, made, "300");
    gpu_lock_stats(&s1);
    int st;
    waitpid(other, &st, 0);
    GpuLockStats d = gpu_lock_stats_diff(&s1, &s0);
    assert_false(t->f.res.timed_out);
    assert_int_equal(t->f.res.exit_code, 0);
    assert_true(says(t, "answer: 1\n"));
    assert_true(d.wait_exclusive_s + d.wait_shared_s >= 1.0);   /* at its turn, or stopped before it (yield) */
    assert_true(t->f.res.wall_ms < 1000);
}

/* The turn's end: at its exit the runtime says its GPU work is done ("i"
 * on the channel); the worker takes the lock back to shared before it
 * answers, so the teardown runs beside other untimed work.
 * CUDOJO_GPU_REST_AT_EXIT=0 keeps it exclusive (and still answers); =free
 * lets go of it. */
static void rest__a_timed_program_holds_the_lock_shared__after_it_says_its_gpu_work_is_done(void **state) {
    TurnFixture *t = *state;
    GpuLockStats s0, s1;
    gpu_lock_stats(&s0);
    run_probe_rest(t, "-", "0", "rest", "-");
    gpu_lock_stats(&s1);
    GpuLockStats d = gpu_lock_stats_diff(&s1, &s0);
    assert_int_equal(t->f.res.exit_code, 0);
    assert_true(says(t, "after: shared busy, exclusive busy\n"));     /* alone */
    assert_true(says(t, "rested: shared ok, exclusive busy\n"));      /* beside untimed work again */
    assert_int_equal(d.exclusive_sections, 1);
    assert_int_equal(d.shared_sections, 2);
    program_result_fini(&t->f.res);
    setenv("CUDOJO_GPU_REST_AT_EXIT", "0", 1);
    gpu_lock_stats(&s0);
    run_probe_rest(t, "-", "0", "rest", "-");
    gpu_lock_stats(&s1);
    unsetenv("CUDOJO_GPU_REST_AT_EXIT");
    d = gpu_lock_stats_diff(&s1, &s0);
    assert_true(says(t, "rested: shared busy, exclusive busy\n"));
    assert_int_equal(d.exclusive_sections, 1);
    assert_int_equal(d.shared_sections, 1);
    program_result_fini(&t->f.res);
    setenv("CUDOJO_GPU_REST_AT_EXIT", "free", 1);      /* the teardown holds nothing */
    gpu_lock_stats(&s0);
    run_probe_rest(t, "-", "0", "rest", "-");
    gpu_lock_stats(&s1);
    d = gpu_lock_stats_diff(&s1, &s0);
    assert_int_equal(t->f.res.exit_code, 0);
    assert_true(says(t, "rested: shared ok, exclusive ok\n"));
    assert_int_equal(d.exclusive_sections, 1);
    assert_int_equal(d.shared_sections, 1);
    program_result_fini(&t->f.res);
    /* one that goes on past the teardown's time holds it shared again (and so yields) */
    gpu_lock_stats(&s0);
    t->f.ropts.timeout_s = 5;
    run_probe_rest_late(t, "1500");
    gpu_lock_stats(&s1);
    unsetenv("CUDOJO_GPU_REST_AT_EXIT");
    d = gpu_lock_stats_diff(&s1, &s0);
    assert_int_equal(t->f.res.exit_code, 0);
    assert_true(says(t, "rested: shared ok, exclusive ok\n"));
    assert_true(says(t, "late: shared ok, exclusive busy\n"));
    assert_int_equal(d.exclusive_sections, 1);
    assert_int_equal(d.shared_sections, 2);
}

/* A timed section waiting when the program says it is done goes first:
 * the program waits in its exit (not beside that section), and the wait
 * is left out of its time. */
static void rest__lets_a_waiting_timed_section_go_first__without_counting_the_wait(void **state) {
    TurnFixture *t = *state;
    char made[200];
    snprintf(made, sizeof made, "%s/resting", t->f.dir);
    pid_t other = other_grader(made, 0, GPU_LOCK_EXCLUSIVE, 500, -1);    /* waits for the program's turn to end */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    run_probe_rest(t, "-", "0", "rest", made);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double took = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
    int st;
    waitpid(other, &st, 0);
    assert_int_equal(t->f.res.exit_code, 0);
    assert_true(says(t, "rested: shared ok, exclusive busy\n"));
    const char *at = strstr(t->f.res.out, "rest answered in ");
    assert_non_null(at);
    assert_true(atoi(at + strlen("rest answered in ")) >= 400);      /* behind the other's section */
    assert_true(t->f.res.wall_ms < took - 400);
}

/* A program past its "exit" record is left to tear down without a yield,
 * but not for long (TEARDOWN_NO_YIELD_MS, 1 s): one that says "exit" and
 * goes on is stopped for a waiting timed section after that, as before. */
static void yield__a_program_past_its_exit_record_steps_aside__only_after_a_while(void **state) {
    TurnFixture *t = *state;
    char *exe = cc_build(&t->f, "exitgoeson", EXIT_GOES_ON_SRC);
    char made[200];
    snprintf(made, sizeof made, "%s/exited", t->f.dir);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t other = other_grader(made, 0, GPU_LOCK_EXCLUSIVE, 300, p[1]);
    t->f.ropts.gpu_shared = true;
    const char *args[] = {made, "2500"};
    t->f.ropts.args = args;
    t->f.ropts.n_args = 2;
    assert_null(program_run(exe, &t->f.ropts, &t->f.res));
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
    t->f.ropts.gpu_shared = false;
    double ms = grader_waited(other, p[0]);
    close(p[0]);
    close(p[1]);
    fprintf(stderr, "the timed section waited %.0f ms; the program's longest step %d ms\n", ms,
            longest_step(&t->f.res));
    assert_true(ms >= 700);                         /* not stopped at once after its exit record */
    assert_true(ms < 2000);                         /* but stopped before its end (2.5 s) */
    assert_true(longest_step(&t->f.res) >= 250);    /* stopped while the section ran */
    free(exe);
}

/* Under Nsight Compute (gpu_profiler): the GPU lock shared, beside
 * untimed work, and the profilers' lock exclusive; no turn. */
static void profiler__holds_the_lock_shared__and_the_profilers_lock_alone(void **state) {
    TurnFixture *t = *state;
    t->f.ropts.gpu_profiler = true;
    run_probe(t, "-", "0");
    assert_true(says(t, "variable: none\n"));
    assert_true(says(t, "before: shared ok, exclusive busy\n"));
    assert_true(says(t, "no turn\n"));
    program_result_fini(&t->f.res);
    memset(&t->f.res, 0, sizeof t->f.res);
    char prof[200];
    snprintf(prof, sizeof prof, "%s/gpu-0.profiler", t->locks);
    const char *args[] = {prof, "-", "0"};
    t->f.ropts.args = args;
    t->f.ropts.n_args = 3;
    assert_null(program_run(t->exe, &t->f.ropts, &t->f.res));
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
    assert_true(says(t, "before: shared busy, exclusive busy\n"));   /* another profiler waits */
}

/* The run (as t->f.ropts sets it up) holds the lock shared for 1.5 s; a
 * timed section of 800 ms that comes meanwhile gets the GPU at once: the
 * program is stopped while it runs and goes on after (not killed by its
 * 1.8 s timeout, its wall time without the pause). Writes on p[1]. */
static void expect_yield(TurnFixture *t, const char *made, int p[2]) {
    t->f.ropts.timeout_s = 1.8;
    pid_t other = other_grader(made, 100, GPU_LOCK_EXCLUSIVE, 800, p[1]);
    run_probe(t, made, "1500");
    double waited = grader_waited(other, p[0]);
    assert_false(t->f.res.timed_out);
    assert_int_equal(t->f.res.exit_code, 0);
    assert_true(waited < 500);                      /* not the run's 1.5 s */
    assert_true(t->f.res.wall_ms < 1500 + 500);     /* the 800 ms pause left out */
}

/* An untimed program steps aside for a waiting timed section
 * (expect_yield). With CUDOJO_GPU_YIELD=0 the section waits for the whole
 * program. */
static void yield__a_shared_program_steps_aside__for_a_waiting_timed_section(void **state) {
    TurnFixture *t = *state;
    char made[200];
    snprintf(made, sizeof made, "%s/started", t->f.dir);
    t->f.ropts.gpu_shared = true;
    int p[2];
    assert_int_equal(pipe(p), 0);
    expect_yield(t, made, p);
    program_result_fini(&t->f.res);
    memset(&t->f.res, 0, sizeof t->f.res);
    unlink(made);
    setenv("CUDOJO_GPU_YIELD", "0", 1);
    t->f.ropts.timeout_s = 5;
    pid_t other = other_grader(made, 100, GPU_LOCK_EXCLUSIVE, 10, p[1]);
    run_probe(t, made, "1500");
    double waited = grader_waited(other, p[0]);
    unsetenv("CUDOJO_GPU_YIELD");
    assert_true(waited >= 1000);                /* the whole program's shared hold */
    close(p[0]);
    close(p[1]);
}

/* A profiled run (ncu's runs hold the lock shared for seconds) steps aside
 * for a waiting timed section too (before session 12 profilers never
 * yielded). */
static void yield__a_profiled_run_steps_aside__for_a_waiting_timed_section(void **state) {
    TurnFixture *t = *state;
    char made[200];
    snprintf(made, sizeof made, "%s/started", t->f.dir);
    t->f.ropts.gpu_profiler = true;
    int p[2];
    assert_int_equal(pipe(p), 0);
    expect_yield(t, made, p);
    close(p[0]);
    close(p[1]);
}

/* Under a tool (compute-sanitizer in grading: the longest shared holds)
 * the run steps aside too, the program included, though the tool started
 * it in a session of its own (a stand-in: setsid --wait). With
 * CUDOJO_GPU_YIELD=programs a run under a tool does not yield. */
static void yield__a_run_under_a_tool_steps_aside__with_a_program_outside_its_group(void **state) {
    TurnFixture *t = *state;
    char made[200];
    snprintf(made, sizeof made, "%s/started", t->f.dir);
    char *gap = cc_build(&t->f, "gap", GAP_SRC);
    const char *tool_argv[] = {"/usr/bin/setsid", "--wait"};
    ProgramTool tool = {.argv = tool_argv, .argc = 2, .out_name = "tool.out"};
    t->f.ropts.tool = &tool;
    t->f.ropts.gpu_shared = true;
    t->f.ropts.timeout_s = 5;
    const char *args[] = {made, "1500"};
    t->f.ropts.args = args;
    t->f.ropts.n_args = 2;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t other = other_grader(made, 100, GPU_LOCK_EXCLUSIVE, 800, p[1]);
    assert_null(program_run(gap, &t->f.ropts, &t->f.res));
    double waited = grader_waited(other, p[0]);
    assert_int_equal(t->f.res.exit_code, 0);
    int step = longest_step(&t->f.res);
    assert_true(waited < 500);          /* not the run's 1.5 s */
    assert_true(step >= 600);           /* the program itself was stopped for the 800 ms section */
    program_result_fini(&t->f.res);
    memset(&t->f.res, 0, sizeof t->f.res);
    unlink(made);
    setenv("CUDOJO_GPU_YIELD", "programs", 1);
    other = other_grader(made, 100, GPU_LOCK_EXCLUSIVE, 10, p[1]);
    assert_null(program_run(gap, &t->f.ropts, &t->f.res));
    waited = grader_waited(other, p[0]);
    unsetenv("CUDOJO_GPU_YIELD");
    assert_true(waited >= 1000);        /* the whole run's shared hold */
    t->f.ropts.tool = NULL;
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
    free(gap);
    close(p[0]);
    close(p[1]);
}

/* A timed section in another process: takes the lock alone, writes "h" on
 * `fd`, holds it hold_ms, lets go and writes when (CLOCK_REALTIME). */
static pid_t exclusive_holder(int fd, int hold_ms) {
    fflush(NULL);
    pid_t holder = fork();
    assert_true(holder >= 0);
    if (holder != 0) return holder;
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_take(&l, GPU_LOCK_EXCLUSIVE);
    if (write(fd, "h", 1) != 1) _exit(1);
    usleep((useconds_t)hold_ms * 1000);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    gpu_lock_release(&l);
    _exit(write(fd, &ts, sizeof ts) == (ssize_t)sizeof ts ? 0 : 1);
}

/* A program starts only once its worker holds the lock (the "go" pipe:
 * the lock is taken after the fork, before the exec): beside a timed
 * section, an untimed program's first act comes after that section ends,
 * and its wall time leaves the wait out. */
static void start__waits_for_the_lock__after_the_fork(void **state) {
    TurnFixture *t = *state;
    char made[200];
    snprintf(made, sizeof made, "%s/started", t->f.dir);
    char *gap = cc_build(&t->f, "gap", GAP_SRC);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t holder = exclusive_holder(p[1], 400);
    char h;
    assert_int_equal(read(p[0], &h, 1), 1);     /* the section has begun */
    t->f.ropts.gpu_shared = true;
    const char *args[] = {made, "50"};
    t->f.ropts.args = args;
    t->f.ropts.n_args = 2;
    assert_null(program_run(gap, &t->f.ropts, &t->f.res));
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
    struct timespec released;
    assert_int_equal(read(p[0], &released, sizeof released), (ssize_t)sizeof released);
    int st;
    waitpid(holder, &st, 0);
    struct stat sb;
    assert_int_equal(stat(made, &sb), 0);
    double at = (double)sb.st_mtim.tv_sec + (double)sb.st_mtim.tv_nsec * 1e-9;
    double end = (double)released.tv_sec + (double)released.tv_nsec * 1e-9;
    assert_true(at >= end - 0.05);              /* not before the 400 ms section ended (file times lag by a tick) */
    assert_int_equal(t->f.res.exit_code, 0);
    assert_true(t->f.res.wall_ms < 300);        /* the 400 ms wait is not the program's */
    free(gap);
    close(p[0]);
    close(p[1]);
}

typedef struct RunJob {
    const char *exe;
    ProgramRunOptions o;
    ProgramResult r;
    Diag *d;
} RunJob;

static void *run_job(void *arg) {
    RunJob *j = arg;
    j->d = program_run(j->exe, &j->o, &j->r);
    return NULL;
}

/* A child waiting for the lock (between its fork and the "go") holds none
 * of the worker's descriptors: not the pipes of another thread's run (a
 * sanitizer's run beside the plain one), whose parent waits to see them
 * closed before it lets go of the lock the child waits for. Before, that
 * was a deadlock under grading's lock until a timeout ended it (session 17
 * call 3: bench_grade 6 ran past 110 s, 3 past 100 s). */
static void start__a_child_waiting_for_the_lock__holds_no_descriptor_of_the_worker(void **state) {
    TurnFixture *t = *state;
    char *gap = cc_build(&t->f, "gap", GAP_SRC);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t holder = exclusive_holder(p[1], 1500);
    char h;
    assert_int_equal(read(p[0], &h, 1), 1);     /* the section has begun */
    int q[2];                                   /* another run's pipe, as the worker holds it */
    assert_int_equal(pipe2(q, O_CLOEXEC), 0);
    char made[200];
    snprintf(made, sizeof made, "%s/started", t->f.dir);
    const char *args[] = {made, "10"};
    RunJob j = {.exe = gap, .o = t->f.ropts};
    j.o.gpu_shared = true;
    j.o.args = args;
    j.o.n_args = 2;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, run_job, &j), 0);
    usleep(200 * 1000);                         /* forked; waiting for the lock */
    close(q[1]);
    struct pollfd pf = {q[0], POLLIN, 0};
    int n = poll(&pf, 1, 800);                  /* the holder still holds the lock */
    assert_int_equal(n, 1);
    assert_true(pf.revents & POLLHUP);          /* nobody else holds the write end */
    pthread_join(th, NULL);
    assert_null(j.d);
    assert_int_equal(j.r.exit_code, 0);
    program_result_fini(&j.r);
    int st;
    waitpid(holder, &st, 0);
    close(q[0]);
    close(p[0]);
    close(p[1]);
    free(gap);
}

/* ---- the drain (progwire.h, drain_ask in program_run.c) ---- */

/* Makes argv[1], runs argv[2] ms serving CUDOJO_DRAIN_FD if it has one
 * ("drain: set|none"; "r" first, as the runtime says it serves it): a drain takes argv[3] ms ("GPU work" still running)
 * before its answer; -1: it never answers. Prints "drains: N". */
static const char *DRAIN_SRC =
    "#include <poll.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "#include <sys/socket.h>\n#include <time.h>\n#include <unistd.h>\n"
    NOW_FN
    "int main(int argc, char **argv) {\n"
    "    if (argc < 4) return 2;\n"
    "    FILE *m = fopen(argv[1], \"w\"); if (m) fclose(m);\n"
    "    const char *v = getenv(\"CUDOJO_DRAIN_FD\");\n"
    "    printf(\"drain: %s\\n\", v ? \"set\" : \"none\");\n"
    "    int fd = v ? atoi(v) : -1, drain_ms = atoi(argv[3]), drains = 0;\n"
    "    if (fd >= 0) send(fd, \"r\", 1, 0);\n"
    "    double t0 = now();\n"
    "    while (now() < t0 + atoi(argv[2])) {\n"
    "        struct pollfd p = {fd, POLLIN, 0};\n"
    "        if (poll(&p, 1, 5) <= 0 || fd < 0) continue;\n"
    "        unsigned char q[2];\n"
    "        if (recv(fd, q, 2, 0) != 2 || q[0] != 'y' || drain_ms < 0) continue;\n"
    "        struct timespec ts = {drain_ms / 1000, (drain_ms % 1000) * 1000000L};\n"
    "        nanosleep(&ts, NULL);\n"
    "        unsigned char a[2] = {'d', q[1]};\n"
    "        send(fd, a, 2, 0);\n"
    "        drains++;\n"
    "    }\n"
    "    printf(\"drains: %d\\n\", drains);\n"
    "    return 0;\n"
    "}\n";

/* Runs DRAIN_SRC (untimed unless said) for 1.5 s, its drains taking
 * `drain_ms`, with a timed section of 100 ms coming 100 ms into the run;
 * returns how long that section waited for the GPU. */
static double drain_run(TurnFixture *t, const char *exe, const char *drain_ms) {
    char made[200];
    snprintf(made, sizeof made, "%s/started", t->f.dir);
    unlink(made);
    program_result_fini(&t->f.res);
    memset(&t->f.res, 0, sizeof t->f.res);
    const char *args[] = {made, "1500", drain_ms};
    t->f.ropts.args = args;
    t->f.ropts.n_args = 3;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t other = other_grader(made, 100, GPU_LOCK_EXCLUSIVE, 100, p[1]);
    assert_null(program_run(exe, &t->f.ropts, &t->f.res));
    double waited = grader_waited(other, p[0]);
    close(p[0]);
    close(p[1]);
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
    assert_int_equal(t->f.res.exit_code, 0);
    return waited;
}

static bool file_has(const char *path, const char *text) {
    char *s = NULL;
    size_t n = 0;
    Diag *d = fs_read_file(path, &s, &n);
    diag_free(&d);
    bool hit = s && strstr(s, text);
    free(s);
    return hit;
}

/* An untimed program's GPU work drains before it steps aside: the timed
 * section waits for the drain's answer (300 ms here), then gets the GPU. */
static void drain__an_untimed_program_finishes_its_gpu_work__before_a_timed_section_starts(void **state) {
    TurnFixture *t = *state;
    char *exe = cc_build(&t->f, "drain", DRAIN_SRC), trace[200];
    snprintf(trace, sizeof trace, "%s/trace", t->f.dir);
    setenv("CUDOJO_GPU_LOCK_TRACE", trace, 1);
    t->f.ropts.gpu_shared = true;
    double waited = drain_run(t, exe, "300");
    unsetenv("CUDOJO_GPU_LOCK_TRACE");
    assert_true(says(t, "drain: set\n"));
    assert_true(says(t, "drains: 1\n"));
    assert_true(waited >= 290 && waited < 1000);
    assert_true(file_has(trace, " drain shared "));
    assert_false(t->f.res.timed_out);
    free(exe);
}

/* A drain that never answers (a kernel that spins until its host says so)
 * holds the section only CUDOJO_GPU_DRAIN_MS; =0 asks for no drain; a
 * timed program gets no drain channel (its GPU work comes after its turn). */
static void drain__is_bounded__off_with_zero__and_only_for_untimed_programs(void **state) {
    TurnFixture *t = *state;
    char *exe = cc_build(&t->f, "drain", DRAIN_SRC), trace[200];
    snprintf(trace, sizeof trace, "%s/trace", t->f.dir);
    setenv("CUDOJO_GPU_LOCK_TRACE", trace, 1);
    setenv("CUDOJO_GPU_DRAIN_MS", "200", 1);
    t->f.ropts.gpu_shared = true;
    double waited = drain_run(t, exe, "-1");
    assert_true(says(t, "drain: set\n"));
    assert_true(waited >= 190 && waited < 700);
    assert_true(file_has(trace, " drain-late shared "));
    unsetenv("CUDOJO_GPU_LOCK_TRACE");
    setenv("CUDOJO_GPU_DRAIN_MS", "0", 1);
    waited = drain_run(t, exe, "300");
    assert_true(says(t, "drain: none\n"));
    assert_true(waited < 250);
    setenv("CUDOJO_GPU_DRAIN_MS", "soon", 1);    /* a wrong bound stops the run, saying so */
    program_result_fini(&t->f.res);
    memset(&t->f.res, 0, sizeof t->f.res);
    Diag *bad = program_run(exe, &t->f.ropts, &t->f.res);
    assert_non_null(bad);
    assert_true(chain_mentions(bad, "CUDOJO_GPU_DRAIN_MS=soon"));
    diag_free(&bad);
    unsetenv("CUDOJO_GPU_DRAIN_MS");
    t->f.ropts.gpu_shared = false;
    t->f.ropts.timeout_s = 0.5;
    const char *args[] = {"-", "10", "0"};
    t->f.ropts.args = args;
    t->f.ropts.n_args = 3;
    program_result_fini(&t->f.res);
    memset(&t->f.res, 0, sizeof t->f.res);
    assert_null(program_run(exe, &t->f.ropts, &t->f.res));
    assert_true(says(t, "drain: none\n"));
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
    free(exe);
}

/* ---- the drain on a GPU (CUDOJO_TEST_GPU=1): real programs, the injection library ---- */

/* A dependent chain of FMAs in one thread: work, not wall time (a spin on
 * clock64 or %globaltimer would end on time while another context has the
 * GPU). */
#define CHAIN_KERNEL                                                           \
    "__global__ void chain(float *out, long long n) {\n"                       \
    "    float v = out[0];\n"                                                  \
    "    for (long long i = 0; i < n; i++) v = v * 0.9999f + 1.0f;\n"          \
    "    out[0] = v;\n"                                                        \
    "}\n"

/* Untimed: batches of 8 chains of argv[2] FMAs queued at once, then a
 * synchronise, for argv[3] ms; makes argv[1] once the first batch is queued. */
static const char *FLOOD_CU =
    "#include <cstdio>\n#include <cstdlib>\n#include <ctime>\n" CHAIN_KERNEL
    "static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }\n"
    "int main(int argc, char **argv) {\n"
    "    float *d; cudaMalloc(&d, 4); cudaMemset(d, 0, 4);\n"
    "    double t0 = now(); int batches = 0;\n"
    "    while (now() < t0 + atof(argv[3])) {\n"
    "        for (int i = 0; i < 8; i++) chain<<<1, 1>>>(d, atoll(argv[2]));\n"
    "        if (batches++ == 0) { FILE *m = fopen(argv[1], \"w\"); if (m) fclose(m); }\n"
    "        cudaDeviceSynchronize();\n"
    "    }\n"
    "    printf(\"batches: %d\\n\", batches);\n"
    "    return cudaGetLastError() != cudaSuccess;\n"
    "}\n";

/* Timed: one chain of argv[1] FMAs between two events; prints its ms. */
static const char *TIMED_CU =
    "#include <cstdio>\n#include <cstdlib>\n" CHAIN_KERNEL
    "int main(int argc, char **argv) {\n"
    "    float *d; cudaMalloc(&d, 4); cudaMemset(d, 0, 4);\n"
    "    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);\n"
    "    chain<<<1, 1>>>(d, 1000); cudaDeviceSynchronize();\n"
    "    cudaEventRecord(a); chain<<<1, 1>>>(d, atoll(argv[1])); cudaEventRecord(b); cudaEventSynchronize(b);\n"
    "    float ms = 0; cudaEventElapsedTime(&ms, a, b);\n"
    "    printf(\"%.3f\\n\", ms);\n"
    "    return 0;\n"
    "}\n";

static CompiledProgram *gpu_build(TurnFixture *t, const char *name, const char *src) {
    t->f.copts.sass_arch = 90;
    CompiledProgram *p = NULL;
    Diag *d = program_compile(name, src, &t->f.copts, &p);
    if (d) fprintf(stderr, "%s\n", d->message);
    assert_null(d);
    return p;
}

/* The timed program's kernel time (ms), run while the flood runs (its
 * worker a forked process), or alone (flood NULL). */
static double timed_beside_flood(TurnFixture *t, const char *timed, const char *flood, const char *fmas) {
    char made[200];
    snprintf(made, sizeof made, "%s/flooding", t->f.dir);
    unlink(made);
    pid_t worker = -1;
    if (flood) {
        fflush(NULL);
        worker = fork();
        if (worker == 0) {
            ProgramRunOptions o = t->f.ropts;
            o.gpu_shared = true;
            o.timeout_s = 20;
            const char *args[] = {made, "20000000", "2500"};    /* 8 x ~25 ms queued at a time, for 2.5 s */
            o.args = args;
            o.n_args = 3;
            ProgramResult r;
            Diag *d = program_run(flood, &o, &r);
            bool ok = !d && r.exit_code == 0 && !r.timed_out;
            if (r.out) fprintf(stderr, "flood: %s", r.out);
            _exit(ok ? 0 : 1);
        }
        for (int i = 0; i < 1000 && access(made, F_OK) != 0; i++) usleep(10000);
        assert_int_equal(access(made, F_OK), 0);
        usleep(300 * 1000);     /* well into its batches */
    }
    ProgramRunOptions o = t->f.ropts;
    o.gpu_shared = false;
    o.timeout_s = 20;
    const char *args[] = {fmas};
    o.args = args;
    o.n_args = 1;
    ProgramResult r;
    assert_null(program_run(timed, &o, &r));
    assert_int_equal(r.exit_code, 0);
    double ms = r.out ? atof(r.out) : -1;
    program_result_fini(&r);
    if (flood) {
        int st;
        waitpid(worker, &st, 0);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    return ms;
}

/* An untimed program that keeps the GPU busy with queued kernels steps
 * aside for a timed program, its queue drained first: the timed kernel
 * takes the time it takes alone. Without the drain (CUDOJO_GPU_DRAIN_MS=0)
 * the queued kernels share the GPU with it and it takes longer. */
static void gpu__a_timed_program_runs_alone__when_an_untimed_one_had_work_queued(void **state) {
    TurnFixture *t = *state;
    if (!getenv("CUDOJO_TEST_GPU") || !has_nvcc()) skip();
    t->f.ropts.runtime = PROGRAM_RT_CUDA;
    CompiledProgram *flood = gpu_build(t, "flood.cu", FLOOD_CU), *timed = gpu_build(t, "timed.cu", TIMED_CU);
    /* Up to three tries each: other test processes may use the GPU too (make
       test-gpu runs four at once), and a yield may come as a batch ends,
       its queue almost empty. */
    const char *fmas = "40000000";
    double alone = timed_beside_flood(t, timed->exe, NULL, fmas), drained = 1e9, undrained = 0;
    for (int i = 0; i < 3 && !(drained < alone * 1.2); i++) {
        double ms = timed_beside_flood(t, timed->exe, flood->exe, fmas);
        drained = ms < drained ? ms : drained;
    }
    setenv("CUDOJO_GPU_DRAIN_MS", "0", 1);
    for (int i = 0; i < 3 && !(undrained > alone * 1.3); i++) {
        double ms = timed_beside_flood(t, timed->exe, flood->exe, fmas);
        undrained = ms > undrained ? ms : undrained;
    }
    unsetenv("CUDOJO_GPU_DRAIN_MS");
    fprintf(stderr, "timed kernel: alone %.2f ms, beside a drained flood %.2f ms, beside an undrained one %.2f ms\n",
            alone, drained, undrained);
    assert_true(alone > 5);
    assert_true(drained < alone * 1.2);
    assert_true(undrained > alone * 1.3);   /* the hole the drain closes is there to see */
    compiled_program_free(&flood);
    compiled_program_free(&timed);
}

/* ---- a group's turn (program_run_processes, program.h) ---- */

/* Member 0 waits argv[2] ms and asks for its turn (printing "answer: N");
 * member 1 runs argv[2] * 3 ms in 5 ms steps and prints its longest step
 * (a stop shows as a long one), asking nothing. argv[1] = "{process}". */
static const char *MEMBER_SRC =
    "#include <fcntl.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n#include <unistd.h>\n"
    NOW_FN
    "int main(int argc, char **argv) {\n"
    "    if (argc < 3) return 2;\n"
    "    int ms = atoi(argv[2]);\n"
    "    if (atoi(argv[1]) == 0) {\n"
    "        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};\n"
    "        nanosleep(&ts, NULL);\n"
    "        const char *rep = getenv(\"CUDOJO_REPORT_FD\"), *turn = getenv(\"CUDOJO_TURN_FD\");\n"
    "        if (!rep || !turn || fcntl(atoi(turn), F_GETFD) < 0) { printf(\"no turn\\n\"); return 0; }\n"
    "        dprintf(atoi(rep), \"{\\\"type\\\":\\\"turn\\\"}\\n\");\n"
    "        char c;\n"
    "        printf(\"answer: %zd\\n\", read(atoi(turn), &c, 1));\n"
    "        return 0;\n"
    "    }\n"
    LONGEST_STEP("3 * ms")
    "    return 0;\n"
    "}\n";

static bool member_says(const ProgramResult *r, int i, const char *line) {
    bool hit = r->out && strstr(r->out, line);
    if (!hit) fprintf(stderr, "member %d said:\n%s\n", i, r->out ? r->out : "(nothing)");
    return hit;
}

/* Two timed copies start holding the lock shared (each sees: shared ok,
 * exclusive busy); from the group's turn on (the second asked: the start
 * barrier) the group is alone, and both see: shared busy. */
static void group__is_shared_until_its_turn__then_alone_for_every_member(void **state) {
    TurnFixture *t = *state;
    const char *args[] = {t->lockfile, "-", "3{process}0"};   /* member 0 asks at 300 ms, member 1 at 310 */
    t->f.ropts.args = args;
    t->f.ropts.n_args = 3;
    ProgramResult r[2];
    ProgramMps mps;
    assert_null(program_run_processes(t->exe, &t->f.ropts, 2, false, r, &mps));
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r[i].exit_code, 0);
        assert_true(member_says(&r[i], i, "variable: set\n"));
        assert_true(member_says(&r[i], i, "before: shared ok, exclusive busy\n"));
        assert_true(member_says(&r[i], i, "answer: 1\n"));
        assert_true(member_says(&r[i], i, "after: shared busy, exclusive busy\n"));
    }
    for (int i = 0; i < 2; i++) program_result_fini(&r[i]);
    /* nobody reads their times: shared throughout, no turn */
    t->f.ropts.gpu_shared = true;
    assert_null(program_run_processes(t->exe, &t->f.ropts, 2, false, r, &mps));
    t->f.ropts.gpu_shared = false;
    for (int i = 0; i < 2; i++) {
        assert_true(member_says(&r[i], i, "variable: none\n"));
        assert_true(member_says(&r[i], i, "after: shared ok, exclusive busy\n"));
        program_result_fini(&r[i]);
    }
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
}

/* While the group waits for the GPU alone at its turn (another grader
 * holds it shared for 800 ms), the member that has not asked is stopped:
 * none of its GPU work runs with no lock held. Its wall time leaves the
 * stop out. The start barrier's bound (50 ms here) opens the turn while
 * that member still runs (test_program_group.c tests the barrier). */
static void group__stops_the_members_that_have_not_asked__while_it_waits_for_the_gpu(void **state) {
    TurnFixture *t = *state;
    setenv("CUDOJO_GROUP_BARRIER_MS", "50", 1);
    char *member = cc_build(&t->f, "member", MEMBER_SRC);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t other = other_grader(NULL, 0, GPU_LOCK_SHARED, 800, p[1]);
    double waited;
    assert_int_equal(read(p[0], &waited, sizeof waited), (ssize_t)sizeof waited);   /* it holds the lock shared */
    const char *args[] = {"{process}", "100"};      /* member 0 asks at 100 ms; member 1 runs 300 ms */
    t->f.ropts.args = args;
    t->f.ropts.n_args = 2;
    ProgramResult r[2];
    ProgramMps mps;
    assert_null(program_run_processes(member, &t->f.ropts, 2, false, r, &mps));
    unsetenv("CUDOJO_GROUP_BARRIER_MS");
    int st;
    waitpid(other, &st, 0);
    assert_true(member_says(&r[0], 0, "answer: 1\n"));
    assert_false(r[1].timed_out);
    int step = longest_step(&r[1]);
    if (step < 500) fprintf(stderr, "member 1: longest step %d ms\n", step);
    assert_true(step >= 500);                       /* stopped while the group waited ~700 ms */
    assert_true(r[1].wall_ms < 300 + 400);          /* the stop left out */
    for (int i = 0; i < 2; i++) program_result_fini(&r[i]);
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
    free(member);
    close(p[0]);
    close(p[1]);
}

/* While the group holds the lock shared, a timed section that comes gets
 * the GPU at once: every member is stopped while it runs (a yield). */
static void group__steps_aside_as_one__for_a_waiting_timed_section(void **state) {
    TurnFixture *t = *state;
    char *gap = cc_build(&t->f, "gap", GAP_SRC);
    char made[200];
    snprintf(made, sizeof made, "%s/started", t->f.dir);
    t->f.ropts.timeout_s = 1.8;
    const char *args[] = {made, "1500"};
    t->f.ropts.args = args;
    t->f.ropts.n_args = 2;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t other = other_grader(made, 100, GPU_LOCK_EXCLUSIVE, 800, p[1]);
    ProgramResult r[2];
    ProgramMps mps;
    assert_null(program_run_processes(gap, &t->f.ropts, 2, false, r, &mps));
    double waited = grader_waited(other, p[0]);
    assert_true(waited < 500);                      /* not the group's 1.5 s */
    for (int i = 0; i < 2; i++) {
        assert_false(r[i].timed_out);               /* the pause moved the 1.8 s deadline */
        int step = longest_step(&r[i]);
        if (step < 600) fprintf(stderr, "member %d: longest step %d ms\n", i, step);
        assert_true(step >= 600);                   /* stopped for the 800 ms section */
        assert_true(r[i].wall_ms < 1500 + 500);
        program_result_fini(&r[i]);
    }
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
    free(gap);
    close(p[0]);
    close(p[1]);
}

/* A timed CUDA program that pins argv[1] MiB, runs one kernel and returns
 * without freeing anything: its teardown (unpinning, the context) comes
 * after its GPU work. */
static const char *TEARDOWN_CU =
    "#include <stdio.h>\n#include <stdlib.h>\n"
    "__global__ void touch(float *x) { x[threadIdx.x] += 1.0f; }\n"
    "int main(int argc, char **argv) {\n"
    "    size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 1024;\n"
    "    float *h, *d;\n"
    "    if (cudaMallocHost(&h, mb << 20) != cudaSuccess || cudaMalloc(&d, mb << 20) != cudaSuccess) return 3;\n"
    "    for (size_t i = 0; i < (mb << 20) / sizeof(float); i += 1024) h[i] = 1.0f;\n"
    "    cudaMemcpy(d, h, mb << 20, cudaMemcpyHostToDevice);\n"
    "    touch<<<1, 32>>>(d);\n"
    "    if (cudaDeviceSynchronize() != cudaSuccess) return 4;\n"
    "    printf(\"done\\n\");\n"
    "    return 0;\n"
    "}\n";

/* On a GPU: the teardown of a timed program runs with the lock shared.
 * Its exclusive hold is shorter than with CUDOJO_GPU_REST_AT_EXIT=0 by
 * about the time its teardown takes (printed: what a grader gains). */
static void gpu__a_timed_programs_teardown_runs_shared(void **state) {
    TurnFixture *t = *state;
    if (!getenv("CUDOJO_TEST_GPU") || !has_nvcc()) skip();
    t->f.ropts.runtime = PROGRAM_RT_CUDA;
    CompiledProgram *p = gpu_build(t, "teardown.cu", TEARDOWN_CU);
    const char *args[] = {"1024"};
    t->f.ropts.args = args;
    t->f.ropts.n_args = 1;
    t->f.ropts.timeout_s = 30;
    double held[2], shared[2];
    for (int off = 0; off < 2; off++) {
        if (off) setenv("CUDOJO_GPU_REST_AT_EXIT", "0", 1);
        GpuLockStats s0, s1;
        gpu_lock_stats(&s0);
        assert_null(program_run(p->exe, &t->f.ropts, &t->f.res));
        gpu_lock_stats(&s1);
        unsetenv("CUDOJO_GPU_REST_AT_EXIT");
        GpuLockStats d = gpu_lock_stats_diff(&s1, &s0);
        assert_int_equal(t->f.res.exit_code, 0);
        assert_true(says(t, "done\n"));
        assert_int_equal(d.exclusive_sections, 1);
        assert_int_equal(d.shared_sections, off ? 1 : 2);
        held[off] = d.held_exclusive_s * 1e3;
        shared[off] = d.held_shared_s * 1e3;
        program_result_fini(&t->f.res);
    }
    fprintf(stderr, "1 GiB pinned, one kernel, no frees: alone %.1f ms (shared %.1f ms) resting at the exit, "
            "alone %.1f ms (shared %.1f ms) without\n", held[0], shared[0], held[1], shared[1]);
    assert_true(held[0] < held[1]);
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
    compiled_program_free(&p);
}

/* A group's turn ends once every member said its GPU work is done: the
 * first to say so waits for the others (its answer comes after the lock
 * went back to shared), then all of them run beside untimed work. Without
 * the start barrier, each member is answered at its own ask. The order is
 * made by files, not by times (CI's load skews the members' starts by more
 * than 100 ms): member 0 asks once member 1 runs (a member made after the
 * group's turn began would get no turn channel: CI of session 19 saw
 * "variable: none"), member 1 asks 1 s after member 0 began its rest
 * (CI of session 20 saw member 0 answered at once, member 1 done before it
 * when the two started 100 ms apart by the clock). g0 and g1 are links to
 * member 1's start file and member 0's rest file, so that one "{process}"
 * argument names the file each member waits for. */
static void rest__a_group_goes_back_to_shared__once_every_member_is_done(void **state) {
    TurnFixture *t = *state;
    char made[200], wait[220], rest[200], link[200], to[200];
    snprintf(made, sizeof made, "%s/started{process}", t->f.dir);
    snprintf(rest, sizeof rest, "%s/resting{process}", t->f.dir);
    snprintf(wait, sizeof wait, "{process}000@%s/g{process}", t->f.dir);
    for (int i = 0; i < 2; i++) {
        snprintf(link, sizeof link, "%s/g%d", t->f.dir, i);
        snprintf(to, sizeof to, "%s/%s", t->f.dir, i ? "resting0" : "started1");
        assert_int_equal(symlink(to, link), 0);
    }
    const char *args[] = {t->lockfile, made, wait, "rest", rest};
    t->f.ropts.args = args;
    t->f.ropts.n_args = 5;
    ProgramResult r[2];
    ProgramMps mps;
    setenv("CUDOJO_GROUP_BARRIER_MS", "0", 1);
    assert_null(program_run_processes(t->exe, &t->f.ropts, 2, false, r, &mps));
    unsetenv("CUDOJO_GROUP_BARRIER_MS");
    t->f.ropts.args = NULL;
    t->f.ropts.n_args = 0;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r[i].exit_code, 0);
        assert_true(member_says(&r[i], i, "after: shared busy, exclusive busy\n"));
        assert_true(member_says(&r[i], i, "rested: shared ok, exclusive busy\n"));
    }
    const char *at = strstr(r[0].out, "rest answered in ");
    assert_non_null(at);
    assert_true(atoi(at + strlen("rest answered in ")) >= 500);     /* until member 1 was done: ~1 s */
    for (int i = 0; i < 2; i++) program_result_fini(&r[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(start__waits_for_the_lock__after_the_fork, turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(start__a_child_waiting_for_the_lock__holds_no_descriptor_of_the_worker,
                                        turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(gpu__a_timed_program_runs_alone__when_an_untimed_one_had_work_queued,
                                        turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(
            drain__an_untimed_program_finishes_its_gpu_work__before_a_timed_section_starts, turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(drain__is_bounded__off_with_zero__and_only_for_untimed_programs, turn_setup,
                                        turn_teardown),
        cmocka_unit_test_setup_teardown(yield__a_run_under_a_tool_steps_aside__with_a_program_outside_its_group,
                                        turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(turn__starts_shared_and_is_alone_after_asking__when_the_program_is_timed,
                                        turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(group__is_shared_until_its_turn__then_alone_for_every_member,
                                        turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(group__stops_the_members_that_have_not_asked__while_it_waits_for_the_gpu,
                                        turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(group__steps_aside_as_one__for_a_waiting_timed_section, turn_setup,
                                        turn_teardown),
        cmocka_unit_test_setup_teardown(turn__stays_shared__when_the_program_never_asks, turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(rest__a_timed_program_holds_the_lock_shared__after_it_says_its_gpu_work_is_done,
                                        turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(rest__lets_a_waiting_timed_section_go_first__without_counting_the_wait,
                                        turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(rest__a_group_goes_back_to_shared__once_every_member_is_done, turn_setup,
                                        turn_teardown),
        cmocka_unit_test_setup_teardown(yield__a_program_past_its_exit_record_steps_aside__only_after_a_while,
                                        turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(gpu__a_timed_programs_teardown_runs_shared, turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(turn__is_exclusive_from_the_start__under_CUDOJO_GPU_LOCK_MODE_exclusive,
                                        turn_setup, turn_teardown),
        cmocka_unit_test_setup_teardown(turn__waits_for_another_timed_section__without_counting_the_wait, turn_setup,
                                        turn_teardown),
        cmocka_unit_test_setup_teardown(yield__a_profiled_run_steps_aside__for_a_waiting_timed_section, turn_setup,
                                        turn_teardown),
        cmocka_unit_test_setup_teardown(yield__a_shared_program_steps_aside__for_a_waiting_timed_section, turn_setup,
                                        turn_teardown),
        cmocka_unit_test_setup_teardown(profiler__holds_the_lock_shared__and_the_profilers_lock_alone, turn_setup,
                                        turn_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
