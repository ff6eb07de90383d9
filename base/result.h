/* base/result.h: the outcome of one exercise run, as the worker returns it.
 *
 * A RunResult crosses the worker pipe as JSON (run_result_to_json /
 * run_result_from_json), is printed by the CLI, drawn by the TUI and stored
 * by progress-db (metrics and checks as JSON). */
#ifndef CUDOJO_BASE_RESULT_H
#define CUDOJO_BASE_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/diag.h"

typedef enum Verdict {
    VERDICT_PASS = 0,          /* every check passed */
    VERDICT_FAIL,              /* ran, a check failed or the kernel misbehaved (OOB, race...) */
    VERDICT_COMPILE_ERROR,     /* the learner's .cu did not compile */
    VERDICT_RUNTIME_ERROR,     /* launch failed, sticky CUDA error, trap */
    VERDICT_TIMEOUT,           /* killed after the exercise's time limit */
    VERDICT_CRASH,             /* the worker died (signal) */
    VERDICT_CANCELLED,         /* the user stopped it */
    VERDICT_EXERCISE_ERROR,    /* the exercise script itself is broken (author's bug) */
} Verdict;

typedef struct Mismatch {
    long long index;           /* flat element index */
    char *got, *want;          /* formatted values */
} Mismatch;

typedef struct CheckResult {
    char *name;                /* "out", or the author's label */
    bool passed;
    bool stretch;              /* a stretch goal (t:stretch): missing it does not fail the run */
    char *message;             /* one line; for failures says what and how many */
    long long n_wrong, n_total;
    Mismatch *mismatches;      /* the first few, in index order */
    int n_mismatches;
} CheckResult;

typedef struct RunResult {
    Verdict verdict;
    char *exercise_id;
    char *backend;             /* "cuda" or "emu" */
    char *summary;             /* one line for humans */
    CheckResult *checks;
    int n_checks;
    Diag *diags;               /* compile errors, emulator findings, Lua errors... */
    json_t *metrics;           /* object; owned; may be NULL (timings, emulator counters) */
    char *device_output;       /* device printf, in order; may be NULL */
    char *log;                 /* t:log() lines from the exercise; may be NULL */
    char *after_log;           /* t:log() lines of what ran after the verdict (t:program{ after = }: a
                                  profiler's figures); may be NULL. Never changes the verdict */
    double duration_ms;        /* wall time of the whole run in the worker */
    CheckResult *spill;        /* internal: where a check past RESULT_MAX_CHECKS is written before it is folded */
} RunResult;

/* What one result keeps, so a script checking in a loop cannot grow the
 * worker or progress.db without bound: the checks past the cap fold into
 * the last one (how many, how many failed); names and messages are cut. */
#define RESULT_MAX_CHECKS 1000
#define RESULT_MAX_NAME 200       /* bytes of a check's name */
#define RESULT_MAX_TEXT 4096      /* bytes of a check's message or a mismatch's value */

RunResult *run_result_new(Verdict v);
void run_result_free(RunResult **r);
/* Adds a check; strings are copied (cut to the limits above). Returns it so
 * mismatches can be added (past RESULT_MAX_CHECKS: a scratch check whose
 * pass/fail has been counted in the last one). */
CheckResult *run_result_add_check(RunResult *r, const char *name, bool passed, const char *message);
void check_result_add_mismatch(CheckResult *c, long long index, const char *got, const char *want);
json_t *run_result_to_json(const RunResult *r);           /* new reference */
RunResult *run_result_from_json(const json_t *j);         /* never NULL for an object */
/* The kernel time in ms: the last k:time median, which the exercise runtime
 * writes as metrics "time_ms" (lua/API.md); < 0 when nothing was timed. */
double run_result_kernel_ms(const RunResult *r);
/* Passed, has at least one stretch goal, and met every one: "passed-fast". */
bool run_result_fast(const RunResult *r);
const char *verdict_name(Verdict v);                      /* "pass", "fail", "compile-error"... */
Verdict verdict_from_name(const char *s);
/* The verdict in plain words in the language shown ("compile error", "编译错误"). */
const char *verdict_words(Verdict v);
/* Human rendering for the CLI. */
void run_result_print(const RunResult *r, FILE *out, bool color);
/* What run_result_print shows of the part after the verdict (r->after_log
 * under its heading), alone: for a client that printed the verdict when it
 * came. Nothing when there is none. */
void run_result_print_after(const RunResult *r, FILE *out, bool color);
/* The heading of the part after the verdict: "What Nsight Compute measured
 * (after the verdict)" when metrics.after.tools names ncu, ... (English;
 * static). */
const char *run_result_after_title(const RunResult *r);
/* What the verdict `r` says runs after it (metrics.after.kept: the tools of
 * the runs t:program kept for after it), for a client that shows the
 * verdict while they run. */
typedef enum RunAfterKind {
    RUN_AFTER_PROFILE,          /* ncu or nsys (or nothing said): a profiler */
    RUN_AFTER_SANITIZER,        /* compute-sanitizer alone */
    RUN_AFTER_BOTH,             /* a profiler and compute-sanitizer */
} RunAfterKind;
RunAfterKind run_result_after_kind(const RunResult *r);
/* That as a phrase: "profiling after the verdict…", "checking with
 * compute-sanitizer after the verdict…", ... (English; static: _() it). */
const char *run_result_after_doing(const RunResult *r);

#endif
