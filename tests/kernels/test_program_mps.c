/* tests/kernels/test_program_mps.c: several copies of a program at once
 * (program_run_processes) and MPS without a GPU: the copies run side by
 * side, each told its index; where there is no nvidia-cuda-mps-control the
 * result says MPS is not available and the copies still run; a stand-in
 * control program (CUDOJO_MPS_CONTROL) is started with -d and its private
 * directories, the copies get the same directories, and it is told "quit"
 * afterwards, also when they fail, and also when the worker running them
 * is killed in the middle (the keeper tells it). And the combined timeline: measured ones
 * placed by their shared clock, modeled ones by the time-slicing and MPS
 * model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/kernels/program_fixture.h"

/* Prints its arguments and the MPS pipe directory it was given, after
 * sleeping `argv[3]` ms; exits with argv[4] when given. */
static const char *PROC_SRC =
    "#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n"
    "int main(int argc, char **argv) {\n"
    "    const char *p = getenv(\"CUDA_MPS_PIPE_DIRECTORY\");\n"
    "    long ms = argc > 3 ? atol(argv[3]) : 0;\n"
    "    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};\n"
    "    nanosleep(&ts, NULL);\n"
    "    printf(\"process %s of %s, pipe %s\\n\", argv[1], argv[2], p ? p : \"(none)\");\n"
    "    return argc > 4 ? atoi(argv[4]) : 0;\n"
    "}\n";

static void results_fini(ProgramResult *r, int n) {
    for (int i = 0; i < n; i++) program_result_fini(&r[i]);
}

static void processes__run_at_once_each_with_its_index__when_n_copies(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "proc", PROC_SRC);
    const char *args[] = {"{process}", "{processes}", "400"};
    f->ropts.args = args;
    f->ropts.n_args = 3;
    ProgramResult r[4];
    ProgramMps mps;
    double t0 = proc_now_ms();
    assert_null(program_run_processes(exe, &f->ropts, 4, false, r, &mps));
    double wall = proc_now_ms() - t0;
    for (int i = 0; i < 4; i++) {
        assert_true(r[i].started);
        assert_int_equal(r[i].exit_code, 0);
        char want[64];
        snprintf(want, sizeof want, "process %d of 4, pipe (none)\n", i);
        assert_string_equal(r[i].out, want);
    }
    assert_false(mps.requested);
    assert_false(mps.running);
    /* one after another they would take 1.6 s */
    assert_true(wall < 1400);
    results_fini(r, 4);
    free(exe);
}

static void mps__says_it_is_not_available_and_runs_them_anyway__when_there_is_no_control_daemon(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "proc", PROC_SRC);
    const char *args[] = {"{process}", "{processes}"};
    f->ropts.args = args;
    f->ropts.n_args = 2;
    setenv("CUDOJO_MPS_CONTROL", "", 1);    /* none */
    ProgramResult r[2];
    ProgramMps mps;
    assert_null(program_run_processes(exe, &f->ropts, 2, true, r, &mps));
    unsetenv("CUDOJO_MPS_CONTROL");
    assert_true(mps.requested);
    assert_false(mps.running);
    assert_non_null(strstr(mps.why, "MPS is not available here"));
    assert_non_null(strstr(mps.why, "nvidia-cuda-mps-control"));
    assert_string_equal(r[1].out, "process 1 of 2, pipe (none)\n");
    results_fini(r, 2);
    free(exe);
}

/* A stand-in for nvidia-cuda-mps-control: "-d" records the directories it
 * was given and makes the control socket a running daemon has in its pipe
 * folder (what a kept daemon's check looks for), or fails when
 * FAKE_MPS_FAIL is set; no argument records what came on stdin. */
static char *fake_control(Fixture *f, const char *record) {
    char *path = xasprintf("%s/fake-mps-control", f->dir);
    char *script = xasprintf("#!/bin/sh\n"
                             "if [ \"$1\" = -d ]; then\n"
                             "  if [ -n \"$FAKE_MPS_FAIL\" ]; then echo 'cannot open /dev/nvidiactl'; exit 1; fi\n"
                             "  : > \"$CUDA_MPS_PIPE_DIRECTORY/control\"\n"
                             "  echo \"start $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY\" >> %s\n"
                             "  exit 0\n"
                             "fi\n"
                             "read cmd\n"
                             "echo \"command $cmd $CUDA_MPS_PIPE_DIRECTORY\" >> %s\n",
                             record, record);
    assert_null(fs_write_file_atomic(path, script, strlen(script)));
    chmod(path, 0755);
    free(script);
    return path;
}

static void mps__starts_a_private_daemon_and_quits_it__when_the_control_program_is_there(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "proc", PROC_SRC);
    char *record = xasprintf("%s/record.txt", f->dir);
    char *control = fake_control(f, record);
    const char *args[] = {"{process}", "{processes}", "0", "{process}"};   /* process 1 fails */
    f->ropts.args = args;
    f->ropts.n_args = 4;
    setenv("CUDOJO_MPS_CONTROL", control, 1);
    unsetenv("CUDOJO_GPU_LOCK_DIR");   /* a workbench: no lock (the server list and its wait: the test below) */
    ProgramResult r[2];
    ProgramMps mps;
    assert_null(program_run_processes(exe, &f->ropts, 2, true, r, &mps));
    unsetenv("CUDOJO_MPS_CONTROL");
    assert_true(mps.running);
    assert_int_equal(r[1].exit_code, 1);
    char *text = NULL;
    size_t len = 0;
    assert_null(fs_read_file_max(record, 1 << 16, &text, &len));
    /* start <pipe> <log>, then command quit <pipe>: the same private pipe directory; without the GPU lock
       the teardown is not waited for, so no server list is asked */
    char pipe_dir[512] = "", log_dir[512] = "", quit_pipe[512] = "";
    assert_int_equal(sscanf(text, "start %511s %511s\ncommand quit %511s", pipe_dir, log_dir, quit_pipe), 3);
    assert_null(strstr(text, "get_server_list"));
    assert_string_equal(pipe_dir, quit_pipe);
    assert_non_null(strstr(pipe_dir, "cudojo-mps-"));
    assert_non_null(strstr(log_dir, "cudojo-mps-"));
    for (int i = 0; i < 2; i++) {
        char want[700];
        snprintf(want, sizeof want, "process %d of 2, pipe %s\n", i, pipe_dir);
        assert_string_equal(r[i].out, want);
    }
    struct stat st;
    assert_int_not_equal(stat(pipe_dir, &st), 0);     /* the private folder is gone */
    free(text);
    results_fini(r, 2);
    free(control);
    free(record);
    free(exe);
}

static int count_lines(const char *path, const char *prefix) {
    char *text = NULL;
    size_t len = 0;
    Diag *d = fs_read_file_max(path, 1 << 16, &text, &len);
    int n = 0;
    for (const char *p = d ? NULL : text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        n += !strncmp(p, prefix, strlen(prefix));
    diag_free(&d);
    free(text);
    return n;
}

/* Without the lock (a workbench) the daemon of a clean run serves the next
 * run (one start, the same pipe folder); a run with a failed copy, or
 * CUDOJO_MPS_KEEP_S=0, quits it. */
static void mps__keeps_the_daemon_for_the_next_run__when_every_copy_ended_cleanly_without_the_lock(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "proc", PROC_SRC);
    char *record = xasprintf("%s/record.txt", f->dir);
    char *control = fake_control(f, record);
    const char *ok[] = {"{process}", "{processes}", "0", "0"}, *bad[] = {"{process}", "{processes}", "0", "{process}"};
    f->ropts.n_args = 4;
    setenv("CUDOJO_MPS_CONTROL", control, 1);
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    unsetenv("CUDOJO_MPS_KEEP_S");
    ProgramResult r[2];
    ProgramMps mps;
    char pipe_dir[2][700];
    for (int run = 0; run < 2; run++) {
        f->ropts.args = ok;
        assert_null(program_run_processes(exe, &f->ropts, 2, true, r, &mps));
        assert_true(mps.running);
        assert_int_equal(sscanf(r[0].out, "process 0 of 2, pipe %699s", pipe_dir[run]), 1);
        results_fini(r, 2);
    }
    assert_string_equal(pipe_dir[0], pipe_dir[1]);
    assert_int_equal(count_lines(record, "start "), 1);
    assert_int_equal(count_lines(record, "command quit"), 0);
    /* a copy that failed: the daemon it ran under is quit, not kept */
    f->ropts.args = bad;
    assert_null(program_run_processes(exe, &f->ropts, 2, true, r, &mps));
    results_fini(r, 2);
    assert_int_equal(count_lines(record, "start "), 1);
    assert_int_equal(count_lines(record, "command quit"), 1);
    struct stat st;
    assert_int_not_equal(stat(pipe_dir[0], &st), 0);
    /* kept for no time: the next run starts its own and the one kept before is quit */
    f->ropts.args = ok;
    assert_null(program_run_processes(exe, &f->ropts, 2, true, r, &mps));
    results_fini(r, 2);
    setenv("CUDOJO_MPS_KEEP_S", "0", 1);
    assert_null(program_run_processes(exe, &f->ropts, 2, true, r, &mps));
    results_fini(r, 2);
    unsetenv("CUDOJO_MPS_KEEP_S");
    unsetenv("CUDOJO_MPS_CONTROL");
    assert_int_equal(count_lines(record, "start "), 3);
    assert_int_equal(count_lines(record, "command quit"), 3);
    free(control);
    free(record);
    free(exe);
}

static void mps__says_what_the_daemon_said__when_it_fails_to_start(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "proc", PROC_SRC);
    char *record = xasprintf("%s/record.txt", f->dir);
    char *control = fake_control(f, record);
    const char *args[] = {"{process}", "{processes}"};
    f->ropts.args = args;
    f->ropts.n_args = 2;
    setenv("CUDOJO_MPS_CONTROL", control, 1);
    setenv("FAKE_MPS_FAIL", "1", 1);
    ProgramResult r[2];
    ProgramMps mps;
    assert_null(program_run_processes(exe, &f->ropts, 2, true, r, &mps));
    unsetenv("FAKE_MPS_FAIL");
    unsetenv("CUDOJO_MPS_CONTROL");
    assert_false(mps.running);
    assert_non_null(strstr(mps.why, "MPS is not available here"));
    assert_non_null(strstr(mps.why, "cannot open /dev/nvidiactl"));
    assert_string_equal(r[0].out, "process 0 of 2, pipe (none)\n");
    results_fini(r, 2);
    free(control);
    free(record);
    free(exe);
}

/* Whether process `pid` is gone (or a zombie nobody reaped). */
static bool process_gone(pid_t pid) {
    char p[64], st[512];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    FILE *fp = fopen(p, "r");
    if (!fp) return true;
    bool zombie = fgets(st, sizeof st, fp) && strstr(st, ") Z");
    fclose(fp);
    return zombie;
}

/* A stand-in control program whose "-d" leaves a real detached daemon (a
 * sleep in a session of its own, its pid in `pidfile`), which "quit" ends. */
static char *fake_detaching_control(Fixture *f, const char *pidfile) {
    char *path = xasprintf("%s/fake-mps-daemon", f->dir);
    char *script = xasprintf("#!/bin/sh\n"
                             "if [ \"$1\" = -d ]; then\n"
                             "  setsid sleep 60 </dev/null >/dev/null 2>&1 &\n"
                             "  echo $! > %s.tmp && mv %s.tmp %s\n"
                             "  exit 0\n"
                             "fi\n"
                             "read cmd\n"
                             "[ \"$cmd\" = quit ] && kill $(cat %s)\n",
                             pidfile, pidfile, pidfile, pidfile);
    assert_null(fs_write_file_atomic(path, script, strlen(script)));
    chmod(path, 0755);
    free(script);
    return path;
}

/* A stand-in whose "-d" leaves a server (a sleep in a session of its own,
 * its pid in `pidfile`) that get_server_list names and that ends 300 ms
 * after "quit" returns; "quit" also writes to `record` whether the GPU
 * lock (`lockfile`) could be taken at all then (exclusive: the group holds
 * it shared until a member's turn, exclusive after). */
static char *fake_server_control(Fixture *f, const char *pidfile, const char *lockfile, const char *record) {
    char *path = xasprintf("%s/fake-mps-server", f->dir);
    char *script = xasprintf("#!/bin/sh\n"
                             "if [ \"$1\" = -d ]; then\n"
                             "  setsid sleep 60 </dev/null >/dev/null 2>&1 &\n"
                             "  echo $! > %s.tmp && mv %s.tmp %s\n"
                             "  exit 0\n"
                             "fi\n"
                             "read cmd\n"
                             "[ \"$cmd\" = get_server_list ] && cat %s\n"
                             "if [ \"$cmd\" = quit ]; then\n"
                             "  if flock -n -x %s true; then echo 'lock: free' > %s; else echo 'lock: busy' > %s; fi\n"
                             "  (sleep 0.3; kill $(cat %s)) </dev/null >/dev/null 2>&1 &\n"
                             "fi\n",
                             pidfile, pidfile, pidfile, pidfile, lockfile, record, record, pidfile);
    assert_null(fs_write_file_atomic(path, script, strlen(script)));
    chmod(path, 0755);
    free(script);
    return path;
}

/* The server's end (its context freed: page tables that change under
 * another grader's timed section slow it) comes before the GPU lock goes:
 * "quit" while the lock is held, and the server gone when the run returns. */
static void mps__the_server_is_gone_before_the_gpu_lock_is_released(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "proc", PROC_SRC);
    char *locks = xasprintf("%s/locks", f->dir), *lockfile = xasprintf("%s/gpu-0.lock", locks);
    char *pidfile = xasprintf("%s/server.pid", f->dir), *record = xasprintf("%s/quit.txt", f->dir);
    mkdir(locks, 0700);
    char *control = fake_server_control(f, pidfile, lockfile, record);
    const char *args[] = {"{process}", "{processes}"};
    f->ropts.args = args;
    f->ropts.n_args = 2;
    setenv("CUDOJO_MPS_CONTROL", control, 1);
    setenv("CUDOJO_GPU_LOCK_DIR", locks, 1);
    unsetenv("CUDOJO_GPU_LOCK_MODE");
    unsetenv("CUDA_VISIBLE_DEVICES");
    ProgramResult r[2];
    ProgramMps mps;
    assert_null(program_run_processes(exe, &f->ropts, 2, true, r, &mps));
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    unsetenv("CUDOJO_MPS_CONTROL");
    assert_true(mps.running);
    FILE *fp = fopen(pidfile, "r");
    int server = 0;
    assert_non_null(fp);
    assert_int_equal(fscanf(fp, "%d", &server), 1);
    fclose(fp);
    bool gone = process_gone(server);
    if (!gone) kill(server, SIGKILL);
    assert_true(gone);
    char *text = NULL;
    size_t len = 0;
    assert_null(fs_read_file_max(record, 1 << 12, &text, &len));
    assert_string_equal(text, "lock: busy\n");
    free(text);
    results_fini(r, 2);
    free(control);
    free(pidfile);
    free(record);
    free(lockfile);
    free(locks);
    free(exe);
}

static void mps__the_daemon_is_told_to_quit__when_the_worker_is_killed_in_the_middle(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "proc", PROC_SRC);
    char *pidfile = xasprintf("%s/daemon.pid", f->dir);
    char *control = fake_detaching_control(f, pidfile);
    const char *args[] = {"{process}", "{processes}", "20000"};
    f->ropts.args = args;
    f->ropts.n_args = 3;
    f->ropts.timeout_s = 30;
    setenv("CUDOJO_MPS_CONTROL", control, 1);
    pid_t worker = fork();
    if (worker == 0) {
        ProgramResult r[2];
        ProgramMps mps;
        program_run_processes(exe, &f->ropts, 2, true, r, &mps);
        _exit(0);
    }
    unsetenv("CUDOJO_MPS_CONTROL");
    assert_true(worker > 0);
    pid_t daemon = 0;
    for (int i = 0; i < 500 && daemon <= 0; i++) {
        FILE *fp = fopen(pidfile, "r");
        if (fp) {
            int v = 0;
            if (fscanf(fp, "%d", &v) == 1) daemon = v;
            fclose(fp);
        }
        if (daemon <= 0) usleep(10000);
    }
    assert_true(daemon > 0);
    assert_false(process_gone(daemon));
    kill(worker, SIGKILL);    /* a worker's timeout */
    waitpid(worker, NULL, 0);
    bool gone = false;
    for (int i = 0; i < 500 && !gone; i++) {
        gone = process_gone(daemon);
        if (!gone) usleep(10000);
    }
    if (!gone) kill(daemon, SIGKILL);
    assert_true(gone);
    free(control);
    free(pidfile);
    free(exe);
}

/* ---- the combined timeline ---- */

static Timeline *one_kernel(double start, double dur, unsigned blocks, double origin) {
    Timeline *t = timeline_new(origin == 0, origin == 0 ? "emu-model" : "cupti", "dev");
    TimelineEntry *e = timeline_add(t, TL_H2D, 0, "copy in", start - 5, 5);
    e->bytes = 4096;
    e = timeline_add(t, TL_KERNEL, 0, "work", start, dur);
    e->grid[0] = blocks, e->grid[1] = e->grid[2] = 1;
    e->block[0] = 256, e->block[1] = e->block[2] = 1;
    timeline_add(t, TL_D2H, 0, "copy out", start + dur, 5);
    t->origin_us = origin;
    return t;
}

static const TimelineEntry *kernel_of(const Timeline *t, int process) {
    for (int i = 0; i < t->n; i++)
        if (t->v[i].kind == TL_KERNEL && t->v[i].process == process) return &t->v[i];
    return NULL;
}

static const TimelineEntry *entry_of(const Timeline *t, int process, TimelineKind kind) {
    for (int i = 0; i < t->n; i++)
        if (t->v[i].kind == kind && t->v[i].process == process) return &t->v[i];
    return NULL;
}

static void timeline__time_slices_the_kernels__when_modeled_without_mps(void **state) {
    (void)state;
    Timeline *tls[2] = {one_kernel(10, 100, 8, 0), one_kernel(10, 100, 8, 0)};
    Timeline *t = program_processes_timeline(tls, 2, true, false, 132);
    const TimelineEntry *a = kernel_of(t, 1), *b = kernel_of(t, 2);
    assert_non_null(a);
    assert_non_null(b);
    assert_false(timeline_overlap(a, b));
    assert_true(b->start_us >= a->start_us + a->dur_us - 1e-9);
    /* the second process's copy out waits with its kernel */
    assert_true(entry_of(t, 2, TL_D2H)->start_us >= b->start_us + b->dur_us - 1e-9);
    assert_int_equal(b->stream, 2000);
    for (int i = 0; i < 2; i++) timeline_free(&tls[i]);
    timeline_free(&t);
}

static void timeline__runs_small_kernels_side_by_side__when_modeled_with_mps(void **state) {
    (void)state;
    Timeline *tls[2] = {one_kernel(10, 100, 8, 0), one_kernel(10, 100, 8, 0)};
    Timeline *t = program_processes_timeline(tls, 2, true, true, 132);
    assert_true(timeline_overlap(kernel_of(t, 1), kernel_of(t, 2)));
    assert_true(kernel_of(t, 2)->start_us == 10);
    for (int i = 0; i < 2; i++) timeline_free(&tls[i]);
    timeline_free(&t);
}

static void timeline__serialises_kernels_that_fill_the_gpu__when_modeled_with_mps(void **state) {
    (void)state;
    /* 132 SMs x 8 blocks of 256 threads = 1056 resident blocks; 800 + 800 do not fit */
    Timeline *tls[2] = {one_kernel(10, 100, 800, 0), one_kernel(10, 100, 800, 0)};
    Timeline *t = program_processes_timeline(tls, 2, true, true, 132);
    assert_false(timeline_overlap(kernel_of(t, 1), kernel_of(t, 2)));
    for (int i = 0; i < 2; i++) timeline_free(&tls[i]);
    timeline_free(&t);
}

static void timeline__places_measured_processes_by_their_shared_clock(void **state) {
    (void)state;
    /* from_json made each start at its first entry; origin_us is the shared clock */
    Timeline *tls[2] = {one_kernel(5, 100, 8, 1000), one_kernel(5, 100, 8, 1050)};
    Timeline *t = program_processes_timeline(tls, 2, false, false, 132);
    assert_true(kernel_of(t, 1)->start_us == 5);
    assert_true(kernel_of(t, 2)->start_us == 55);
    assert_true(t->origin_us == 1000);
    for (int i = 0; i < 2; i++) timeline_free(&tls[i]);
    timeline_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(processes__run_at_once_each_with_its_index__when_n_copies, setup, teardown),
        cmocka_unit_test_setup_teardown(mps__says_it_is_not_available_and_runs_them_anyway__when_there_is_no_control_daemon,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(mps__starts_a_private_daemon_and_quits_it__when_the_control_program_is_there,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(mps__says_what_the_daemon_said__when_it_fails_to_start, setup, teardown),
        cmocka_unit_test_setup_teardown(
            mps__keeps_the_daemon_for_the_next_run__when_every_copy_ended_cleanly_without_the_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(mps__the_server_is_gone_before_the_gpu_lock_is_released, setup, teardown),
        cmocka_unit_test_setup_teardown(mps__the_daemon_is_told_to_quit__when_the_worker_is_killed_in_the_middle, setup,
                                        teardown),
        cmocka_unit_test(timeline__time_slices_the_kernels__when_modeled_without_mps),
        cmocka_unit_test(timeline__runs_small_kernels_side_by_side__when_modeled_with_mps),
        cmocka_unit_test(timeline__serialises_kernels_that_fill_the_gpu__when_modeled_with_mps),
        cmocka_unit_test(timeline__places_measured_processes_by_their_shared_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
