/* app/grade.h: what the pieces of `cudojo grade` share (app/cmd_grade.c the
 * command, grade_collect.c the submissions, grade_run.c the runs,
 * grade_verdict.c a run's verdict and the emulator's second opinion on a GPU pass,
 * grade_output.c the gradebook files). Not for use outside app/. */
#ifndef CUDOJO_APP_GRADE_H
#define CUDOJO_APP_GRADE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "app/cli.h"
#include "base/result.h"
#include "lua/exercise.h"
#include "progress-db/gradedb.h"

/* One exercise as graded: the course's, with whether it is graded here. */
typedef struct GradeItem {
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    bool skipped;               /* needs a GPU on the emulator, or left out by --exercises */
} GradeItem;

/* One student's submission, collected. */
typedef struct GradeStudent {
    char *name;
    char *origin;               /* the path as given */
    char *dir;                  /* the workspace folder (an archive's unpacked copy) */
    bool unpacked;              /* dir is ours to remove */
    char *snap_dir;             /* a workspace folder's graded files and progress database, copied
                                   into OUT/.unpacked (ours to remove); NULL until needed */
    char *origin_sha256;        /* of an archive */
    char *workspace_uuid;
    char *course_version_submitted;
    long long submitted_unix_ms;
    char *progress_json;
    json_t *problems;           /* array of strings */
    char **paths;               /* per GradeItem: the file graded (a private copy, never the student's
                                   own path), NULL when missing or not graded */
    char **shas;                /* per GradeItem: its SHA-256 hex, NULL when missing */
} GradeStudent;

/* What the runs spent on the GPU lock (kernels/gpu_lock.h, the runs'
 * metrics.gpu_lock), summed: the exclusive seconds bound a grading's
 * throughput on one GPU. */
typedef struct GradeLockTotals {
    double wait_s, exclusive_s, shared_s;
    long long runs;             /* runs that took the lock */
} GradeLockTotals;

/* What compiling ahead did (grade_ahead.c), for the summary. */
typedef struct GradeAheadStats {
    int threads;                /* 0: off (CUDOJO_GRADE_AHEAD=0, no program exercise or no nvcc) */
    long long compiled;         /* nvcc builds run ahead and published */
    long long found;            /* builds ahead that found their entry in the cache already */
    long long failed;           /* builds ahead that failed (a compile error: the worker says it) */
    long long hits;             /* the workers' builds that took an entry compiled ahead */
    long long waited;           /* of those, the ones that waited for its compile to end */
    long long unused;           /* builds compiled ahead that no worker's build took */
    long long worker_compiled;  /* the workers' builds that ran nvcc themselves */
} GradeAheadStats;

typedef struct GradeAhead GradeAhead;

typedef struct Grade {
    Cli *cli;
    Course *course;
    char *course_root;
    char *course_version;
    uint64_t seed;
    GradeItem *items;
    int n_items;
    GradeStudent *students;     /* sorted by name */
    int n_students;
    json_t *problems;           /* problems not tied to a graded student (a rejected archive...) */
    char *out_dir;
    char *tmp_dir;              /* OUT/.unpacked: archives are unpacked here */
    GradeDb *db;
    int jobs;
    int shard_i, shard_k;       /* --shard I/K; k = 0 when not sharded */
    bool quiet;                 /* no progress lines */
    bool have_gpu;              /* grading on a GPU: timed work takes turns (kernels/gpu_lock.h) */
    bool emu_check;             /* a GPU pass is run again on the emulator (--emu-check; only with have_gpu) */
    /* What happened, for the summary. */
    long long runs_executed, runs_reused, runs_missing;
    long long emu_checks, emu_overturned;   /* GPU passes run on the emulator; those it failed */
    int skipped_gpu;            /* exercises skipped: need a GPU */
    GradeLockTotals lock;       /* the GPU lock over the runs executed */
    GradeAhead *ahead;          /* compiling ahead (grade_ahead.c), while grade_run_all runs */
    GradeAheadStats ahead_stats;    /* what it did, for the summary */
    double elapsed_s;
} Grade;

/* grade_collect.c: reads every SUBMISSION (a workspace folder or an archive)
 * into g->students (sorted by name, duplicates resolved: the later one
 * wins, the other is a problem); a submission that cannot be read is a
 * problem in g->problems, not an error. */
Diag *grade_collect(Grade *g, char *const *paths, int n);
/* Keeps only the students whose index is i mod k (--shard I/K). */
void grade_shard(Grade *g, int i, int k);
void grade_students_free(Grade *g);

/* grade_run.c: records each student's submission, then runs everything
 * the database lacks with g->jobs workers; each run recorded as it ends. */
Diag *grade_run_all(Grade *g);
/* The order of a grading's runs, in rounds: round r gives every student,
 * in turn, one exercise, so no student waits for another's whole course.
 * Student s of n_students starts grade_order_offset(s) exercises along
 * the n_items in use and goes on from there, wrapping: the runs in flight
 * at once are different exercises, so a class's timed programs (alone on
 * the GPU) come between others' compiles instead of one after another
 * with every worker waiting for the GPU. Returns the index (0..n_items-1)
 * of the exercise student s runs in round r. */
int grade_order_item(int round, int student, int n_students, int n_items);
/* Adds a result's metrics.gpu_lock (if any) to *t. */
void grade_lock_add(GradeLockTotals *t, const json_t *metrics);
/* How a graded run names its file: "<chapter id>/<basename>" (caller frees). */
char *grade_item_display(const GradeItem *it);

/* grade_ahead.c: compile ahead. K threads run the nvcc builds of program
 * exercises before the workers reach them, at a lower priority, into the
 * nvcc cache the workers read; each exercise's builds are learnt per lane
 * from its runs (their metrics.compile.builds). */
typedef enum GradeLane {
    GRADE_LANE_GPU,             /* the run itself (on the emulator when grading there) */
    GRADE_LANE_EMU,             /* the emulator check of a GPU pass */
    GRADE_LANES
} GradeLane;

/* The threads to start beside `jobs` workers: $CUDOJO_GRADE_AHEAD (0 =
 * off), else a quarter of the workers, at least one. A Diag for a value
 * that is not a count. */
Diag *grade_ahead_threads(int jobs, int *n);
/* Starts n_threads (none when no graded exercise is a program, or there is
 * no nvcc: the counts are still kept). g's items and students stay fixed
 * until grade_ahead_stop. */
GradeAhead *grade_ahead_start(const Grade *g, int n_threads);
/* A run of (student, item) on `lane` ended with res: learns the exercise's
 * builds from it and counts which of its builds took one compiled ahead. */
void grade_ahead_took(GradeAhead *a, GradeLane lane, int student, int item, const RunResult *res);
/* Before a worker's run of (student, item) starts on the GPU lane: false
 * (unless `force`) while a build of that file is being compiled ahead (its
 * nvcc runs at a lower priority than the worker's own would: start
 * another run first, and this one once that compile has ended); else true,
 * and none of the file's builds is taken ahead any more. */
bool grade_ahead_claim(GradeAhead *a, int student, int item, bool force);
/* The want list, most urgent first, replaced whole: _begin, a _want per
 * file and lane whose builds are wanted, _end. */
void grade_ahead_want_begin(GradeAhead *a);
void grade_ahead_want(GradeAhead *a, GradeLane lane, int student, int item);
void grade_ahead_want_end(GradeAhead *a);
/* The threads started (0: none). */
int grade_ahead_running(const GradeAhead *a);
/* Stops the threads (a compile in progress ends first), fills *out, frees. */
void grade_ahead_stop(GradeAhead **a, GradeAheadStats *out);
/* The summary's "compile_ahead" object (new reference), and its line for people. */
json_t *grade_ahead_json(const GradeAheadStats *s);
void grade_ahead_print(FILE *out, const json_t *compile_ahead);

/* grade_verdict.c: a graded run's verdict. */

/* The failure kind of a result (NULL for a pass; see GRADE_FAILURE_KINDS). */
const char *grade_failure_kind(const RunResult *r, bool kernel_exercise);
/* The kind of bug an emulator finding's code names ("oob-global" → "out-of-bounds",
 * "race-shared" → "race", barrier, uninitialised, misaligned); NULL for any other code. */
const char *grade_finding_kind(const char *code);
/* Whether a failed check is about speed rather than the answer (a
 * performance target: "slower", "GB/s", "speedup"...). */
bool grade_check_is_speed(const CheckResult *c);

/* The emulator's second opinion on a GPU pass. A race or
 * a stray read is undefined behaviour that real hardware often lets pass;
 * the emulator (adversarial warp order, poisoned shared memory, every access
 * checked) finds it. Pure functions of the results: the runs are
 * grade_run.c's. */

/* The most GPUs the emulator runtime emulates (kernels/emurt's RT_MAX_DEVICES). */
#define GRADE_EMU_MAX_GPUS 8

/* Whether a GPU run of ex will be run again on the emulator should it pass:
 * the check is on and the exercise is one the emulator can judge (not
 * needs_gpu, no more GPUs than it emulates). Known before the run: its
 * request says so (RunRequest.emu_checked). */
bool grade_emu_check_planned(bool check_on, const ExerciseMeta *ex);

/* Whether a GPU run is to be run again on the emulator: it was planned
 * (above), and the run was on the GPU and passed. A failure never is. */
bool grade_emu_check_wanted(bool check_on, const ExerciseMeta *ex, const RunResult *gpu);

/* What an emulator run says about the correctness of a GPU pass. */
typedef struct GradeEmuFinding {
    const char *kind;           /* the failure kind that overturns the pass (a finding's kind,
                                   runtime-error, timeout, wrong-result); NULL: none */
    bool inconclusive;          /* the emulator could not judge it (its own limits, its worker
                                   crashed, a compile or exercise error): the GPU's verdict stands */
    const Diag *diag;           /* where (the finding or error), may be NULL; borrowed from emu */
    const CheckResult *check;   /* the failed check of a wrong result, may be NULL; borrowed */
} GradeEmuFinding;

/* Reads an emulator run of a file that passed on the GPU (gpu: that run,
 * whose checks tell a correctness check the GPU made from the emulator's own
 * measurements). A failure of speed or of an emulator-only measurement
 * (sectors per request, bank conflicts, occupancy, overlap) is not a
 * correctness failure: the GPU's time is the truth. */
GradeEmuFinding grade_emu_finding(const RunResult *emu, const RunResult *gpu, bool kernel_exercise);

/* A graded run's verdict, from the run and (when it was checked) the
 * emulator's run of the same file. */
typedef struct GradeVerdict {
    bool pass;
    const char *verdict;        /* verdict_name(run), or "fail" when a pass was overturned */
    const char *failure_kind;   /* NULL on a pass */
    char *message;              /* the message to record; NULL: the run's summary (freed by _fini) */
    json_t *emulator_check;     /* with an emulator run: {"verdict","failure_kind","overturned",
                                   "inconclusive","message","duration_ms","findings"}; else NULL (owned) */
} GradeVerdict;

GradeVerdict grade_verdict_judge(const RunResult *run, const RunResult *emu, bool kernel_exercise);
void grade_verdict_fini(GradeVerdict *v);

/* grade_output.c: gradebook.csv, gradebook.json, students/<s>/results.json
 * and feedback.md, similarity.md, from the database (+ the course for hints). */
Diag *grade_write_outputs(Grade *g, json_t **book_out);

/* grade_time.c: where the time went, from a gradebook (gradebook.json's
 * per-run "time"), per exercise, in seconds summed over its runs. */
typedef struct GradeTime {
    const char *id;             /* the exercise (borrowed from the book), "all" for the sums */
    const char *kind;           /* "kernel" or "program" (borrowed), NULL when the book does not say */
    int runs;                   /* runs with a "time" */
    double total_s, compile_s, reference_s, program_s;
    double wait_s, alone_s, shared_s;   /* the GPU lock: waited, held exclusive (timed), held shared */
    double emu_check_s;         /* the emulator check's runs of GPU passes (not in total_s) */
    int emu_checks;
    double cpu_s, emu_check_cpu_s;  /* CPU (user + system) of the runs (the worker and the processes it
                                       waited for) and of their emulator checks */
} GradeTime;

/* One GradeTime per exercise of the book, sorted by time alone on the GPU,
 * then by run time (caller frees); *all the sums. */
GradeTime *grade_time_collect(const json_t *book, int *n, GradeTime *all);
/* The sums, the GPU lock's line (what the timed sections allow, per wall_s
 * when > 0), the `top` exercises of grade_time_collect as a table, then
 * the `top` that held the lock shared longest and those that took the most
 * CPU. */
void grade_time_print(FILE *out, const json_t *book, double wall_s, int top);

/* How far one kernel's timings spread over a class that handed in the same
 * files (bench_grade's): the fairness of timing under grading's load ("a
 * run never affects another's timing"), to judge a change to the GPU lock
 * by. Per kernel exercise, over its passing runs with kernel_ms > 0 (not
 * the pairs "student/exercise" in `skip`, may be NULL: wrong variants
 * handed in), at least GRADE_SPREAD_MIN_RUNS of them: (max - min) /
 * median. Prints the median of those spreads and the `top` widest, each
 * with its runs, median, min and max; nothing when no exercise has enough
 * runs. Returns how many exercises it measured. */
#define GRADE_SPREAD_MIN_RUNS 3
int grade_time_print_spread(FILE *out, const json_t *book, const json_t *skip, int top);

/* grade_lock_trace.c: a GPU lock trace (CUDOJO_GPU_LOCK_TRACE's lines,
 * kernels/gpu_lock.h) summed up: spans are unions over all processes. */
#define LOCK_TRACE_BLOCKERS 16
#define LOCK_TRACE_LONG_WAIT_MS 50.0
typedef struct LockTraceBlocker {
    char label[96], mode[12];   /* the shared or profiler holder that let go last before the take */
    int waits;                  /* exclusive takes that waited over LOCK_TRACE_LONG_WAIT_MS */
    double wait_s;              /* their waiting, summed */
} LockTraceBlocker;
/* Exclusive waits by length: under 5 ms, 5-20, 20-50, 50-200, 200-1000, 1000 ms and more. */
#define LOCK_TRACE_BUCKETS 6
typedef struct LockTraceSummary {
    double wall_s;                  /* first to last event */
    double exclusive_waiting_s;     /* an exclusive taker waiting */
    double exclusive_held_s;        /* an exclusive holder */
    double exclusive_blocking_s;    /* either: the turnstile keeps new shared takers out */
    double profiler_held_s;         /* a profiler holding it */
    double waiting_on_profiler_s;   /* an exclusive taker waiting while a profiler held it */
    int exclusive_takes;
    LockTraceBlocker blockers[LOCK_TRACE_BLOCKERS];     /* the most waiting first, of all of them */
    int n_blockers;
    int wait_count[LOCK_TRACE_BUCKETS];     /* every exclusive take by how long it waited */
    double wait_s[LOCK_TRACE_BUCKETS];
    /* Every exclusive take's wait (short ones too) by the kind of hold that
       let go last before it: what the holder said it does ("program-exit",
       "pin-pieces", "launch"), without the exercise, the mode or a ":" detail. */
    LockTraceBlocker kinds[LOCK_TRACE_BLOCKERS];
    int n_kinds;
} LockTraceSummary;

/* Reads the trace at `path`; false when it is missing or has no event. */
bool grade_lock_trace_read(const char *path, LockTraceSummary *out);
/* The summary line and the `top` blockers. */
void grade_lock_trace_print(FILE *out, const LockTraceSummary *s, int top);
/* The GPU time a grading spends one thing at a time, whatever the cores:
 * timed sections (exclusive) and profiled runs (one profiler at a time,
 * and stopped while a timed section runs, so the two never overlap), in
 * seconds. */
double grade_lock_trace_serial_s(const LockTraceSummary *s);
/* That time for `submissions` graded ones, scaled to a class of
 * `class_size`: the least wall time one GPU needs for the class; and the
 * time no new shared GPU work could start (exclusive takers waiting or
 * holding: exclusive_blocking_s), scaled the same way. */
void grade_lock_trace_print_floor(FILE *out, const LockTraceSummary *s, int submissions, int class_size);

#endif
