/* tests/kernels/test_gpu_lock.c: the per-GPU lock (kernels/gpu_lock.h)
 * between processes: with CUDOJO_GPU_LOCK_DIR set, an exclusive holder
 * keeps every other taker waiting; shared holders overlap; an exclusive
 * taker waits for the shared holders and, while it waits, new shared takers
 * queue behind it (the turnstile); a profiler holds it shared and waits
 * only for another profiler or an exclusive holder; what a process spent
 * waiting and holding is counted per mode. Unset, nothing waits, nothing
 * is counted and no file is made. */
#include <fcntl.h>
#include <sys/file.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/gpu_lock.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct Fixture {
    char dir[64];
} Fixture;

static int setup(void **state) {
    Fixture *f = xcalloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/cudojo-gpulock-XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    setenv("CUDOJO_GPU_LOCK_DIR", f->dir, 1);
    unsetenv("CUDA_VISIBLE_DEVICES");
    *state = f;
    return 0;
}

static int teardown(void **state) {
    Fixture *f = *state;
    static const char *const names[] = {"gpu-0.lock", "gpu-0.turnstile", "gpu-0.profiler"};
    for (size_t i = 0; i < 3; i++) {
        char *p = path_join(f->dir, names[i]);
        unlink(p);
        free(p);
    }
    rmdir(f->dir);
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    free(f);
    return 0;
}

/* A child that takes the lock in `mode`, writes one byte to `ready` once it
 * holds it, holds it for hold_ms, lets go and writes the monotonic ms of
 * that moment (a double) to `done` (when done >= 0). */
static pid_t holder(GpuLockMode mode, int ready, int hold_ms, int done) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_take(&l, mode);
    if (l.fd < 0 || write(ready, "x", 1) != 1) _exit(1);
    usleep((useconds_t)hold_ms * 1000);
    gpu_lock_release(&l);
    double t = now_ms();
    if (done >= 0 && write(done, &t, sizeof t) != (ssize_t)sizeof t) _exit(1);
    _exit(l.fd == -1 ? 0 : 1);
}

static void reap(pid_t pid) {
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Waits for a holder's byte. */
static void await(int fd) {
    char c;
    assert_int_equal(read(fd, &c, 1), 1);
}

/* ms this process waits to take the lock in `mode` (then releases it). */
static double time_take(GpuLockMode mode) {
    double t0 = now_ms();
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_take(&l, mode);
    double waited = now_ms() - t0;
    assert_true(l.fd >= 0);
    gpu_lock_release(&l);
    return waited;
}

static void gpu_lock__exclusive_taker_waits__until_the_exclusive_holder_releases(void **state) {
    Fixture *f = *state;
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = holder(GPU_LOCK_EXCLUSIVE, ready[1], 300, -1);
    await(ready[0]);
    double waited = time_take(GPU_LOCK_EXCLUSIVE);
    reap(pid);
    assert_true(waited >= 200);
    char *p = path_join(f->dir, "gpu-0.lock");
    assert_true(fs_exists(p));
    free(p);
    close(ready[0]);
    close(ready[1]);
}

static void gpu_lock__shared_taker_waits__for_an_exclusive_holder(void **state) {
    (void)state;
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = holder(GPU_LOCK_EXCLUSIVE, ready[1], 300, -1);
    await(ready[0]);
    double waited = time_take(GPU_LOCK_SHARED);
    reap(pid);
    assert_true(waited >= 200);
    close(ready[0]);
    close(ready[1]);
}

static void gpu_lock__two_shared_holders__overlap(void **state) {
    (void)state;
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = holder(GPU_LOCK_SHARED, ready[1], 600, -1);
    await(ready[0]);
    /* the child holds it shared for 600 ms: a second shared taker gets it at once */
    double waited = time_take(GPU_LOCK_SHARED);
    reap(pid);
    assert_true(waited < 300);
    close(ready[0]);
    close(ready[1]);
}

static void gpu_lock__exclusive_taker_waits__for_every_shared_holder(void **state) {
    (void)state;
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t a = holder(GPU_LOCK_SHARED, ready[1], 300, -1);
    pid_t b = holder(GPU_LOCK_SHARED, ready[1], 500, -1);
    await(ready[0]);
    await(ready[0]);
    double waited = time_take(GPU_LOCK_EXCLUSIVE);
    reap(a);
    reap(b);
    assert_true(waited >= 400);     /* the longer shared holder's 500 ms, less the start */
    close(ready[0]);
    close(ready[1]);
}

/* A profiler (ncu) is a shared holder that waits for another profiler. */
static void gpu_lock__profilers_take_turns__and_overlap_shared_holders(void **state) {
    (void)state;
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = holder(GPU_LOCK_PROFILER, ready[1], 400, -1);
    await(ready[0]);
    assert_true(time_take(GPU_LOCK_SHARED) < 200);       /* beside untimed work */
    assert_true(time_take(GPU_LOCK_PROFILER) >= 200);    /* never beside another profiler */
    reap(pid);
    pid = holder(GPU_LOCK_SHARED, ready[1], 400, -1);
    await(ready[0]);
    assert_true(time_take(GPU_LOCK_PROFILER) < 200);
    reap(pid);
    pid = holder(GPU_LOCK_EXCLUSIVE, ready[1], 300, -1);
    await(ready[0]);
    assert_true(time_take(GPU_LOCK_PROFILER) >= 200);    /* never beside a timed section */
    reap(pid);
    pid = holder(GPU_LOCK_PROFILER, ready[1], 300, -1);
    await(ready[0]);
    assert_true(time_take(GPU_LOCK_EXCLUSIVE) >= 200);
    reap(pid);
    close(ready[0]);
    close(ready[1]);
}

/* The turnstile: A holds it shared; B asks for it exclusive and waits;
 * then a new shared taker (this process) must wait behind B, though A's
 * shared hold alone would let it in. */
static void gpu_lock__new_shared_taker_queues__behind_a_waiting_exclusive_taker(void **state) {
    (void)state;
    int ready[2], done[2], b_start[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(done), 0);
    assert_int_equal(pipe(b_start), 0);
    pid_t a = holder(GPU_LOCK_SHARED, ready[1], 600, -1);
    await(ready[0]);
    pid_t b = fork();
    if (b == 0) {
        if (write(b_start[1], "x", 1) != 1) _exit(1);
        GpuLock l = GPU_LOCK_INIT;
        gpu_lock_take(&l, GPU_LOCK_EXCLUSIVE);  /* waits for A */
        if (l.fd < 0) _exit(1);
        usleep(200 * 1000);
        gpu_lock_release(&l);
        double t = now_ms();
        _exit(write(done[1], &t, sizeof t) == (ssize_t)sizeof t ? 0 : 1);
    }
    await(b_start[0]);
    usleep(150 * 1000);             /* B is at its flock by now */
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_take(&l, GPU_LOCK_SHARED);
    double got = now_ms();
    assert_true(l.fd >= 0);
    gpu_lock_release(&l);
    double b_released = 0;
    assert_int_equal(read(done[0], &b_released, sizeof b_released), (ssize_t)sizeof b_released);
    reap(a);
    reap(b);
    assert_true(got >= b_released - 5);     /* after B's exclusive section, not beside A */
    int fds[] = {ready[0], ready[1], done[0], done[1], b_start[0], b_start[1]};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) close(fds[i]);
}

/* Whether the profilers' lock in `dir` is free now (never waits). */
static bool profilers_lock_free(const char *dir) {
    char *p = path_join(dir, "gpu-0.profiler");
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    free(p);
    bool free_now = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (fd >= 0) close(fd);
    return free_now;
}

/* A profiled run yields like any shared holder (kernels/program_run.c):
 * gpu_lock_step_aside lets an exclusive taker B in, waits for B's section
 * and takes the lock again as a profiler, keeping the profilers' lock all
 * the while (B sees it taken: no other profiler started meanwhile). An
 * exclusive taker never waits for the profilers' lock itself. */
static void gpu_lock__a_profiler_stepping_aside__lets_a_timed_section_in_and_keeps_its_place(void **state) {
    Fixture *f = *state;
    int b_done[2];
    assert_int_equal(pipe(b_done), 0);
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_take(&l, GPU_LOCK_PROFILER);
    assert_true(l.fd >= 0);
    pid_t b = fork();
    if (b == 0) {
        GpuLock x = GPU_LOCK_INIT;
        gpu_lock_take(&x, GPU_LOCK_EXCLUSIVE);  /* waits for the profiler's shared hold */
        if (x.fd < 0) _exit(1);
        double r[2] = {profilers_lock_free(f->dir) ? 1 : 0, 0};
        usleep(200 * 1000);
        gpu_lock_release(&x);
        r[1] = now_ms();
        _exit(write(b_done[1], r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
    }
    usleep(150 * 1000);             /* B waits by now */
    gpu_lock_step_aside(&l);
    double back = now_ms();
    double r[2] = {0, 0};
    assert_int_equal(read(b_done[0], r, sizeof r), (ssize_t)sizeof r);
    reap(b);
    assert_true(l.fd >= 0);
    assert_int_equal(l.mode, GPU_LOCK_PROFILER);
    assert_true(back >= r[1] - 5);          /* after B's section */
    assert_true(r[0] == 0);                 /* the profilers' lock stayed taken */
    assert_false(profilers_lock_free(f->dir));
    gpu_lock_release(&l);
    assert_true(profilers_lock_free(f->dir));
    close(b_done[0]);
    close(b_done[1]);
}

static void gpu_lock__takes_everything_exclusive__under_CUDOJO_GPU_LOCK_MODE_exclusive(void **state) {
    (void)state;
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = holder(GPU_LOCK_SHARED, ready[1], 400, -1);
    await(ready[0]);
    setenv("CUDOJO_GPU_LOCK_MODE", "exclusive", 1);
    GpuLock l = GPU_LOCK_INIT;
    double t0 = now_ms();
    gpu_lock_take(&l, GPU_LOCK_SHARED);        /* asked shared, taken exclusive: waits */
    double waited = now_ms() - t0;
    unsetenv("CUDOJO_GPU_LOCK_MODE");
    assert_int_equal(l.mode, GPU_LOCK_EXCLUSIVE);
    gpu_lock_release(&l);
    reap(pid);
    assert_true(waited >= 250);
    close(ready[0]);
    close(ready[1]);
}

static void gpu_lock__counts_waiting_and_holding__per_mode(void **state) {
    (void)state;
    GpuLockStats s0, s1;
    gpu_lock_stats(&s0);
    double waited0 = gpu_lock_waited_s();
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_take(&l, GPU_LOCK_SHARED);
    usleep(100 * 1000);
    gpu_lock_release(&l);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = holder(GPU_LOCK_EXCLUSIVE, ready[1], 300, -1);
    await(ready[0]);
    gpu_lock_take(&l, GPU_LOCK_EXCLUSIVE);      /* waits ~300 ms */
    usleep(200 * 1000);
    gpu_lock_release(&l);
    reap(pid);
    gpu_lock_stats(&s1);
    GpuLockStats d = gpu_lock_stats_diff(&s1, &s0);
    assert_int_equal(d.shared_sections, 1);
    assert_int_equal(d.exclusive_sections, 1);
    assert_true(d.held_shared_s >= 0.09 && d.held_shared_s < 0.09 + 0.5);
    assert_true(d.held_exclusive_s >= 0.19 && d.held_exclusive_s < 0.19 + 0.5);
    assert_true(d.wait_exclusive_s >= 0.2);
    assert_true(d.wait_shared_s < 0.1);
    assert_true(gpu_lock_waited_s() - waited0 >= d.wait_exclusive_s + d.wait_shared_s - 1e-9);
    close(ready[0]);
    close(ready[1]);
}

/* CUDOJO_GPU_LOCK_TRACE: a line per take (with the wait) and per release
 * (with the hold), the mode and the label (with what the holder does, when
 * it says), from every process. */
static void gpu_lock__traces_takes_and_releases__with_mode_and_label(void **state) {
    Fixture *f = *state;
    char *path = path_join(f->dir, "trace.txt");
    setenv("CUDOJO_GPU_LOCK_TRACE", path, 1);
    gpu_lock_set_label("vector add");
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = holder(GPU_LOCK_SHARED, ready[1], 200, -1);
    await(ready[0]);
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_what(&l, "copy to host:%dMiB", 64);    /* one word in the trace */
    gpu_lock_take(&l, GPU_LOCK_EXCLUSIVE);      /* waits ~200 ms for the child */
    gpu_lock_release(&l);
    reap(pid);
    unsetenv("CUDOJO_GPU_LOCK_TRACE");
    gpu_lock_set_label(NULL);
    char *text = NULL;
    size_t len = 0;
    assert_null(fs_read_file_max(path, 1 << 16, &text, &len));
    int lines = 0, mine = 0;
    double waited = -1;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        double at = 0, ms = 0;
        long who = 0;
        char event[16], mode[16], label[96];
        assert_int_equal(sscanf(line, "%lf %ld %15s %15s %lf %95s", &at, &who, event, mode, &ms, label), 6);
        assert_true(at > 0 && ms >= 0);
        if (who == (long)getpid()) {
            assert_string_equal(label, "vector_add/copy_to_host:64MiB");
            mine++;
            assert_string_equal(mode, "exclusive");
            if (!strcmp(event, "take")) waited = ms;
        } else {
            assert_string_equal(label, "vector_add");     /* said nothing of what it does */
            assert_string_equal(mode, "shared");
        }
    }
    assert_int_equal(lines, 4);     /* the child's take and release, then ours */
    assert_int_equal(mine, 2);
    assert_true(waited >= 100);
    free(text);
    unlink(path);
    free(path);
    close(ready[0]);
    close(ready[1]);
}

static void gpu_lock__is_a_no_op__when_no_lock_dir_is_set(void **state) {
    (void)state;
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    GpuLockStats s0, s1;
    gpu_lock_stats(&s0);
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_take(&l, GPU_LOCK_SHARED);
    assert_int_equal(l.fd, -1);
    gpu_lock_release(&l);
    gpu_lock_acquire(&l);
    assert_int_equal(l.fd, -1);
    gpu_lock_release(&l);
    gpu_lock_stats(&s1);
    GpuLockStats d = gpu_lock_stats_diff(&s1, &s0);
    assert_int_equal(d.shared_sections + d.exclusive_sections, 0);
    assert_true(d.held_shared_s + d.held_exclusive_s + d.wait_shared_s + d.wait_exclusive_s == 0);
}

/* What the wait hook saw: "+" a wait began, "-" it ended. */
static char g_waits[64];
static void note_wait(void *ud, bool waiting) {
    (void)ud;
    size_t n = strlen(g_waits);
    if (n + 1 < sizeof g_waits) g_waits[n] = waiting ? '+' : '-';
}

/* A take that blocks (behind another process's exclusive hold) is
 * bracketed for the worker's runner (app/runner.c leaves the wait out of
 * the run's timeout), once per take; a take or a yield's take again that
 * finds the lock free says nothing (most takes: launches); a release says
 * nothing; with no lock dir nothing is said. */
static void gpu_lock__tells_the_wait_hook__only_around_a_take_that_blocks(void **state) {
    (void)state;
    g_waits[0] = 0;
    gpu_lock_on_wait(note_wait, NULL);
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_take(&l, GPU_LOCK_SHARED);
    assert_true(l.fd >= 0);
    gpu_lock_step_aside(&l);
    gpu_lock_release(&l);
    gpu_lock_acquire(&l);
    gpu_lock_release(&l);
    assert_string_equal(g_waits, "");
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = holder(GPU_LOCK_EXCLUSIVE, ready[1], 500, -1);
    await(ready[0]);
    gpu_lock_take(&l, GPU_LOCK_SHARED);
    assert_true(l.fd >= 0);
    gpu_lock_release(&l);
    reap(pid);
    assert_string_equal(g_waits, "+-");
    pid = holder(GPU_LOCK_SHARED, ready[1], 500, -1);
    await(ready[0]);
    gpu_lock_take(&l, GPU_LOCK_SHARED);     /* beside a shared holder: free at once */
    gpu_lock_release(&l);
    gpu_lock_acquire(&l);                   /* behind it: blocks */
    gpu_lock_release(&l);
    reap(pid);
    assert_string_equal(g_waits, "+-+-");
    close(ready[0]);
    close(ready[1]);
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    gpu_lock_take(&l, GPU_LOCK_SHARED);
    gpu_lock_release(&l);
    gpu_lock_on_wait(NULL, NULL);
    assert_string_equal(g_waits, "+-+-");
}

static void gpu_lock_on_emulator__follows_CUDOJO_GPU_LOCK_EMU(void **state) {
    (void)state;
    unsetenv("CUDOJO_GPU_LOCK_EMU");
    assert_false(gpu_lock_on_emulator());
    setenv("CUDOJO_GPU_LOCK_EMU", "0", 1);
    assert_false(gpu_lock_on_emulator());
    setenv("CUDOJO_GPU_LOCK_EMU", "1", 1);
    assert_true(gpu_lock_on_emulator());
    unsetenv("CUDOJO_GPU_LOCK_EMU");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(gpu_lock__exclusive_taker_waits__until_the_exclusive_holder_releases, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(gpu_lock__shared_taker_waits__for_an_exclusive_holder, setup, teardown),
        cmocka_unit_test_setup_teardown(gpu_lock__two_shared_holders__overlap, setup, teardown),
        cmocka_unit_test_setup_teardown(gpu_lock__exclusive_taker_waits__for_every_shared_holder, setup, teardown),
        cmocka_unit_test_setup_teardown(gpu_lock__new_shared_taker_queues__behind_a_waiting_exclusive_taker, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(gpu_lock__profilers_take_turns__and_overlap_shared_holders, setup, teardown),
        cmocka_unit_test_setup_teardown(gpu_lock__takes_everything_exclusive__under_CUDOJO_GPU_LOCK_MODE_exclusive,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(gpu_lock__counts_waiting_and_holding__per_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(gpu_lock__a_profiler_stepping_aside__lets_a_timed_section_in_and_keeps_its_place,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(gpu_lock__traces_takes_and_releases__with_mode_and_label, setup, teardown),
        cmocka_unit_test_setup_teardown(gpu_lock__is_a_no_op__when_no_lock_dir_is_set, setup, teardown),
        cmocka_unit_test_setup_teardown(gpu_lock__tells_the_wait_hook__only_around_a_take_that_blocks, setup, teardown),
        cmocka_unit_test(gpu_lock_on_emulator__follows_CUDOJO_GPU_LOCK_EMU),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
