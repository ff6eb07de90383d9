/* app/attempt.h: one recorded run of an exercise, shared by run, watch,
 * verify and the TUI: build the request, run it in the worker, record it. */
#ifndef CUDOJO_APP_ATTEMPT_H
#define CUDOJO_APP_ATTEMPT_H

#include <signal.h>
#include <stdbool.h>

#include "app/cli.h"
#include "app/runner.h"
#include "app/workspace.h"

typedef struct AttemptParams {
    const char *const *keys;
    const char *const *values;
    int n;
} AttemptParams;

/* A Runner configured from the global options (caller frees). */
Runner *attempt_runner_new(const Cli *cli);
/* Runs `cu_path` (NULL = the learner's workspace copy) for ex; when `record`,
 * stores the attempt (a store failure is added to the result's diags). */
RunResult *attempt_run(Workspace *ws, Runner *runner, const ChapterMeta *ch, const ExerciseMeta *ex,
                       const char *cu_path, const AttemptParams *params, bool record,
                       volatile sig_atomic_t *cancel);
/* attempt_run, calling on_verdict (may be NULL) with the verdict when the
 * run sends it before its final result (a profile after the verdict:
 * runner_wait_verdict); the final result returned holds it too. */
RunResult *attempt_run_verdict(Workspace *ws, Runner *runner, const ChapterMeta *ch, const ExerciseMeta *ex,
                               const char *cu_path, const AttemptParams *params, bool record,
                               volatile sig_atomic_t *cancel, void (*on_verdict)(void *ud, const RunResult *v),
                               void *ud);
/* The non-blocking pair the TUI uses: attempt_start sends the run to the
 * worker and returns NULL while it is in flight (then poll the runner with
 * runner_fd/runner_poll); when it cannot start (missing file, no worker) it
 * returns the result saying why (caller frees). attempt_record stores a
 * finished result as attempt_run would (cancelled runs are not recorded). */
RunResult *attempt_start(Workspace *ws, Runner *runner, const ChapterMeta *ch, const ExerciseMeta *ex,
                         const char *cu_path, const AttemptParams *params);
void attempt_record(Workspace *ws, const ChapterMeta *ch, const ExerciseMeta *ex, const char *cu_path,
                    RunResult *res);
/* The first exercise not yet passed (in course order), NULL when all passed. */
const ExerciseMeta *attempt_next_exercise(Workspace *ws, const ChapterMeta **ch);

#endif
