/* app/runner.h: runs exercises in a worker process so learner code can never
 * take the app down.
 *
 * The worker is this same binary started as `cudojo __worker`; it owns the
 * CUDA context and the Lua state. One JSON request line in, one JSON result
 * line out. A run that outlives its timeout is killed (verdict timeout), a
 * worker that dies is reported (verdict crash) and replaced on the next run,
 * and cancel stops the run, not the program. The TUI uses the start/poll
 * pair with runner_fd() in its event loop; the CLI uses runner_run.
 *
 * A run with work that cannot change its verdict (t:program{ after = }: a
 * profiler's run, lua/API.md) answers twice: a {"verdict": RESULT} line as
 * soon as the verdict is decided, then the final {"result": RESULT} line,
 * which holds everything (the verdict and what came after it). A client
 * takes the first with runner_take_verdict while the run is still BUSY;
 * one that never asks still gets the final result. Should the run be
 * stopped after its verdict (timeout, crash, cancel), the final result is
 * that verdict with a warning saying what did not finish. */
#ifndef CUDOJO_APP_RUNNER_H
#define CUDOJO_APP_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/result.h"
#include "kernels/backend.h"

typedef struct Runner Runner;

/* How long a compile may take, apart from the run's timeout (default). */
#define RUNNER_COMPILE_LIMIT_S 60.0
/* The most a run's timeout leaves out for waiting on the GPU's lock (the
 * others' timed sections): beyond it the wait counts, so a lock that is
 * never let go of still ends the run. */
#define RUNNER_GPU_WAIT_LIMIT_S 900.0

typedef struct RunnerConfig {
    const char *worker_exe;     /* NULL = /proc/self/exe */
    BackendChoice backend;
    int emu_threads;            /* 0 = all cores */
    const char *stderr_path;    /* worker's stderr goes here; NULL = inherit */
    double compile_limit_s;     /* a compile's own limit; 0 = RUNNER_COMPILE_LIMIT_S */
    int nice;                   /* added to the worker's niceness (0 = the app's): grade's
                                   emulator checks yield the CPU to timed GPU work */
} RunnerConfig;

typedef struct RunRequest {
    const char *exercise_id;
    const char *chapter_dir;    /* absolute path of the exercise's chapter folder */
    const char *chapter_shown;  /* how messages name that folder (NULL: "lessons/<folder>") */
    const char *cu_path;        /* file to compile */
    const char *cu_display;     /* how messages name it */
    const char *const *param_keys;
    const char *const *param_values;
    int n_params;
    double timeout_s;           /* wall-clock limit; <= 0 = 10 s */
    bool grading;               /* a grading run: ExerciseRunOptions.grading */
    uint64_t grading_seed;      /* ExerciseRunOptions.grading_seed */
    bool emu_checked;           /* with grading: ExerciseRunOptions.emu_checked (grade's GPU runs, the check on) */
    uint64_t emu_launch_budget; /* ExerciseRunOptions.emu_launch_budget (verify --mutants); 0 = the default */
    int sass_arch;              /* ExerciseRunOptions.sass_arch (grade's emulator check); 0 = none */
} RunRequest;

typedef enum RunnerState {
    RUNNER_IDLE,
    RUNNER_BUSY,
    RUNNER_DONE,
} RunnerState;

Runner *runner_new(const RunnerConfig *cfg);
/* Milliseconds an idle worker has to end after its input closes before
   runner_free (or a restart) kills it. */
#define RUNNER_QUIT_GRACE_MS 3000
/* Stops the worker (an idle one ends by itself within RUNNER_QUIT_GRACE_MS
   or is killed; a busy one is killed) and frees r. */
void runner_free(Runner **r);
/* Sends a request (starting the worker if needed). NULL on success. */
Diag *runner_start(Runner *r, const RunRequest *req);
/* Waits up to timeout_ms for the run in flight. On RUNNER_DONE *out holds the
 * result (caller frees). Enforces the run's timeout. */
RunnerState runner_poll(Runner *r, int timeout_ms, RunResult **out);
/* The verdict of the run in flight, once, when the worker has sent it
 * before the final result (caller frees); NULL otherwise. */
RunResult *runner_take_verdict(Runner *r);
/* Whether the run in flight has sent its verdict (taken or not): what it
 * does now cannot change it. */
bool runner_has_verdict(const Runner *r);
/* Stops the run in flight: its result is verdict "cancelled". */
void runner_cancel(Runner *r);
/* runner_cancel, returning the run's result (caller frees): its verdict
 * with a warning that what came after it was stopped when it had sent
 * one, else verdict "cancelled" (NULL when idle). */
RunResult *runner_cancel_result(Runner *r);
/* The fd to watch for readability while BUSY (-1 when idle). */
int runner_fd(const Runner *r);
/* Seconds since the run in flight started. */
double runner_elapsed_s(const Runner *r);
/* What the run in flight is doing, as the worker last said ("compiling
 * vector-add.cu", "running kernel k (launched at …)"); NULL when idle. */
const char *runner_activity(const Runner *r);
/* Polls the run in flight until it is done; returns early as cancelled when
 * *cancel (may be NULL) becomes nonzero. Never NULL. */
RunResult *runner_wait(Runner *r, volatile sig_atomic_t *cancel);
/* runner_wait, calling on_verdict (may be NULL) with the verdict when the
 * worker sends one before the final result (borrowed, for the call). */
RunResult *runner_wait_verdict(Runner *r, volatile sig_atomic_t *cancel,
                               void (*on_verdict)(void *ud, const RunResult *v), void *ud);
/* start + poll until done; returns early as cancelled when *cancel becomes nonzero. Never NULL. */
RunResult *runner_run(Runner *r, const RunRequest *req, volatile sig_atomic_t *cancel);

/* SIGKILLs every process of session `sid` but the caller (what a worker,
 * the leader of its own session, left behind when it stopped). */
void runner_kill_session(pid_t sid);

/* The worker side: serves requests on stdin/stdout until EOF. */
int runner_worker_main(BackendChoice backend, int emu_threads);

#endif
