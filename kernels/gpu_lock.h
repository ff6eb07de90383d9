/* kernels/gpu_lock.h: the per-GPU lock that keeps graders running side by
 * side (several workers of one `cudojo grade`, or several shards on one
 * node) from disturbing each other's timings, while untimed GPU work of
 * many of them overlaps.
 *
 * Enabled by the environment: when CUDOJO_GPU_LOCK_DIR names a folder, GPU
 * work holds a flock on DIR/gpu-<device>.lock, where <device> is the first
 * entry of CUDA_VISIBLE_DEVICES ("0" when unset: the GPU a process uses
 * first), in one of two modes:
 *   - exclusive (LOCK_EX): work whose time is read, alone on the GPU: a
 *     timed launch's repetitions (k:time) in the cuda backend (its first
 *     run, a correctness run, is shared), a
 *     program of an exercise with `timed = true` (the default) from its
 *     first GPU work to its exit (it starts shared and asks for its turn,
 *     and its teardown after the exit is shared again:
 *     kernels/program_run.c; copies run together take one turn for all,
 *     once every one reached its first GPU work, until all of them exit:
 *     program.h), a whole program under a tool other than a
 *     profiler, the peak measurement of `cudojo doctor`;
 *   - shared (LOCK_SH): GPU work whose time nobody reads: a correctness
 *     launch (k:launch), a synchronous copy or memset of the cuda backend,
 *     its allocations, frees, module loads and unloads and the making of
 *     its context (page tables, code uploads and memory scrubs that would
 *     share the GPU with a timed section), a program of an exercise with
 *     `timed = false`. Not covered: the cuda backend's work on a stream of
 *     its own (a launch, copy or memset with stream = s) runs from its
 *     enqueue to the next synchronisation without the lock.
 *     Any number of shared holders run at once; none runs during an
 *     exclusive section;
 *   - profiler: shared, and one at a time among profilers (a flock on
 *     DIR/gpu-<device>.profiler, taken first and held through the run's
 *     yields): a program under Nsight Compute. ncu cannot profile two
 *     processes on one GPU at once (on the H200 two of three concurrent
 *     runs exit 9), and what the course reads from it are counts and ratios
 *     (sectors per request, occupancy), the same beside other untimed work
 *     as alone (measured: one ncu run beside three GPU loads). Under the
 *     lock ncu runs with --clock-control none (kernels/program_ncu.c): it
 *     yields like any shared holder, and locked clocks would outlast its
 *     stop into another's timed section.
 * Fairness: every taker first holds DIR/gpu-<device>.turnstile (exclusive)
 * until it has the lock, so a waiting exclusive taker blocks new shared
 * ones: a stream of shared holders cannot starve a timed section, and a
 * timed section waits at most for the shared work already running.
 * Yields: a whole program holding the lock shared (an untimed program, a
 * timed one before its first GPU work, a run under compute-sanitizer)
 * would make that wait seconds long, with every other grader queued
 * behind it; its worker looks at the turnstile every 5 ms
 * (CUDOJO_GPU_YIELD_LOOK_MS) and, when
 * someone waits there, stops the program (SIGSTOP to its group and to any
 * descendant a tool put outside it), lets go, takes the lock shared again
 * after the timed section and lets the program go on
 * (kernels/program_run.c). An untimed program's GPU work queued before the
 * stop is drained first (its runtime holds new work back and synchronises,
 * up to CUDOJO_GPU_DRAIN_MS, default 1 s: progwire.h); a program under a
 * tool (no runtime of ours answers there) still finishes such work during
 * the section. Profiled runs yield too, keeping the profilers' lock (before
 * session 12 they never did: on the H200 timed sections then waited 22 of
 * a 103 s grading for ncu runs, with nothing timed on the GPU).
 * CUDOJO_GPU_YIELD=0 turns yields off, =programs keeps runs under a tool
 * from yielding (to compare).
 * CUDOJO_GPU_LOCK_MODE=exclusive makes every take exclusive (all GPU work
 * one at a time, as before the shared mode: to measure what it gains).
 * Compiles and emulator runs never take it. Unset: every call is a no-op.
 * A lock belongs to an open file, so a process killed while holding it
 * releases it. One process holds at most one lock at a time (a second
 * take in the same process would wait for itself). */
#ifndef CUDOJO_KERNELS_GPU_LOCK_H
#define CUDOJO_KERNELS_GPU_LOCK_H

#include <stdbool.h>

typedef enum GpuLockMode {
    GPU_LOCK_EXCLUSIVE = 0,     /* timed: alone on the GPU */
    GPU_LOCK_SHARED,            /* untimed: with other shared holders */
    GPU_LOCK_PROFILER,          /* shared, one profiler at a time */
} GpuLockMode;

typedef struct GpuLock {
    int fd;                     /* -1 when not held */
    GpuLockMode mode;
    double taken_s;             /* when it was taken (monotonic seconds) */
    int profiler_fd;            /* the profilers' lock (GPU_LOCK_PROFILER); -1 when not held */
    int gate_fd;                /* the turnstile, opened once for gpu_lock_contended; -1 = not yet */
    char what[40];              /* what the holder does, for the trace ("copy-to-host:1024MiB"); "" = not said */
} GpuLock;

#define GPU_LOCK_INIT {-1, GPU_LOCK_EXCLUSIVE, 0, -1, -1, ""}

/* Says what the holder of `l` does (printf-like, spaces become '_'), for
 * the trace's label (below): set before gpu_lock_take. */
void gpu_lock_what(GpuLock *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Waits for and takes the lock of this process's GPU in `mode` (a no-op
 * when CUDOJO_GPU_LOCK_DIR is unset or the lock file cannot be made). */
void gpu_lock_take(GpuLock *l, GpuLockMode mode);
/* The mode gpu_lock_take(l, mode) takes (CUDOJO_GPU_LOCK_MODE=exclusive
 * makes every take exclusive), to decide before taking. */
GpuLockMode gpu_lock_mode_for(GpuLockMode mode);
/* A yield: lets go of the GPU's lock and waits to take it again in the
 * same mode, as a new taker would (through the turnstile, behind a waiting
 * timed section). A profiler keeps the profilers' lock all the while. A
 * no-op when not held. */
void gpu_lock_step_aside(GpuLock *l);
/* fn(ud, true) when a take (gpu_lock_take, gpu_lock_step_aside) finds a
 * lock it needs not free and is about to block (another run's timed
 * section, the shared holders a timed section waits for, another
 * profiler), and fn(ud, false) once that take is over; a take that finds
 * everything free at once says nothing. A worker tells its runner, whose
 * timeout leaves the wait out (app/runner.c). Called from any thread that
 * takes; NULL: none. */
void gpu_lock_on_wait(void (*fn)(void *ud, bool waiting), void *ud);
/* gpu_lock_take(l, GPU_LOCK_EXCLUSIVE). */
void gpu_lock_acquire(GpuLock *l);
/* Releases it (a no-op when not held). */
void gpu_lock_release(GpuLock *l);
/* Whether another taker waits at the turnstile: while this process holds
 * the lock shared, that is a timed section waiting for the shared holders
 * to finish (or, for a moment, a shared taker passing through). Never
 * waits. False when not held or the lock is off. */
bool gpu_lock_contended(GpuLock *l);

/* What this process has spent on the lock so far, in all (a worker runs
 * many exercises: subtract a snapshot taken before one to get its share). */
typedef struct GpuLockStats {
    double wait_exclusive_s, wait_shared_s;     /* waiting in gpu_lock_take (profiler: shared) */
    double held_exclusive_s, held_shared_s;     /* holding it */
    long exclusive_sections, shared_sections;   /* times taken */
} GpuLockStats;

void gpu_lock_stats(GpuLockStats *out);

/* The trace, for finding who waits for whom in a grading: with
 * CUDOJO_GPU_LOCK_TRACE=FILE every take and release of every process
 * appends a line "<CLOCK_MONOTONIC s> <pid> take|release
 * exclusive|shared|profiler <ms waited before the take | held> <label>";
 * the label is what this process runs now (a worker sets the exercise's id
 * per run; "-" until then), then "/" and what the holder said it does
 * (gpu_lock_what), if it did. */
void gpu_lock_set_label(const char *label);
/* Appends a line of another event of this process to the trace, in the
 * same form: "<monotonic s> <pid> <event> shared <ms> <label>" (a program's
 * drain before it yields: kernels/program_run.c). */
void gpu_lock_trace_event(const char *event, double ms);
/* after - before, field by field. */
GpuLockStats gpu_lock_stats_diff(const GpuLockStats *after, const GpuLockStats *before);
/* Seconds this process has spent waiting in gpu_lock_take, in all: time
 * limits of a run (the exercise script's wall clock) leave it out, so a
 * grader taking its turn is never a timeout. */
double gpu_lock_waited_s(void);
/* Whether the lock is on (CUDOJO_GPU_LOCK_DIR set): graders share the GPU. */
bool gpu_lock_enabled(void);
/* Whether programs on cudojo's emulator runtime take the lock as programs
 * on a GPU do: CUDOJO_GPU_LOCK_EMU=1, for tests of the lock's modes and
 * accounting on a machine without a GPU. */
bool gpu_lock_on_emulator(void);

#endif
