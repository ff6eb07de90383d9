/* lua/run.h: the state of one exercise run, shared by exercise_run.c (the
 * `t` object and the verdict) and kernel.c (compiling, loading and
 * launching the learner's kernels). Not for use outside lua/. */
#ifndef CUDOJO_LUA_RUN_H
#define CUDOJO_LUA_RUN_H

#include <jansson.h>
#include <lua.h>

#include "base/strbuf.h"
#include "kernels/compile.h"
#include "kernels/program.h"
#include "lua/api.h"
#include "lua/exercise.h"

/* One compiled variant of the learner's source (per distinct t:kernel opts). */
typedef struct ModuleEntry {
    char *key;
    CompiledModule *cm;
    BackendModule *bm;
} ModuleEntry;

/* One nvcc build of the learner's program (per distinct t:program defines). */
typedef struct ProgramEntry {
    char *key;
    CompiledProgram *cp;
} ProgramEntry;

typedef struct RunCtx {
    ApiCtx api;                 /* first: the sandbox's user pointer is &api */
    const ExerciseMeta *ex;
    const ExerciseRunOptions *opts;
    Backend *b;
    DeviceInfo dev;
    bool have_dev;
    char *cu_text;
    const char *cu_display;
    RunResult *r;               /* checks are added as they run */
    ModuleEntry *mods;
    int n_mods;
    json_t *metrics;            /* object, owned */
    json_t *last_emu;           /* the last emulator launch's metrics, owned */
    json_t *last_predicted;     /* that launch's predicted time on a GPU (kernels/predict.h), owned; NULL none */
    const json_t *predict_logged; /* the last_emu whose prediction the log has shown */
    int emu_metrics_launch;     /* the launch t:emu_metrics() first read (1-based; 0 none): metrics.launch_log's proxied */
    Diag *diags;                /* compile warnings and launch findings, in order */
    bool finding_error;         /* a finding of severity error: the run fails */
    StrBuf devout;
    bool has_devout;
    int n_launches;
    double t0_ms;               /* when the run started (monotonic), for t:program's share of the timeout */
    ProgramEntry *progs;
    int n_progs;
    int n_programs_run;
    bool ran_program;           /* t:program ran: its timeline is the run's */
    Timeline *prog_timeline;    /* the last program's timeline (owned; NULL when it sent none) */
    int n_after;                /* t:program{ profile =, after = } runs waiting for the verdict (program_tools.c) */
    bool after_verdict;         /* run(t) returned and the verdict is decided: t can only log (exercise_run.c) */
    const char *activity;       /* kind last told to opts->on_activity ("script", "compile", "kernel") */
    double activity_t0;         /* when it began (monotonic ms) */
} RunCtx;

static inline RunCtx *run_ctx(lua_State *L) { return (RunCtx *)api_ctx(L); }

/* On the emulator a runaway kernel is stopped with did-not-finish, at the
 * line its warps loop on, within this share of the time it has (the run's
 * limit; a program's share of it) — before the script's own limit (0.9) and
 * the worker's parent (1.0) stop the run with no line to show. */
#define EMU_DEADLINE_SHARE 0.8

/* The run's timeout in seconds: the runner's, else the exercise's own. */
static inline double run_timeout_s(const RunCtx *ctx) {
    return ctx->opts->timeout_s > 0 ? ctx->opts->timeout_s : ctx->ex->timeout_s > 0 ? ctx->ex->timeout_s : 10;
}

/* run_ctx.c: what every part of a run shares. */
/* Monotonic milliseconds. */
double run_now_ms(void);
/* Tells opts->on_activity what the run does now: kind "script", "compile"
 * or "kernel", and a phrase (printf format). The time a compile takes is
 * given back to the script's wall clock. */
void run_activity(lua_State *L, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The object metrics[key] (created when absent); borrowed. */
json_t *run_metrics_obj(RunCtx *ctx, json_t *parent, const char *key);
/* Keeps metrics.max_launch_warp_instructions, the largest emulated launch's
 * warp-instructions (emu_metrics: a launch's emulator metrics, whose
 * totals.warp_instructions it reads; verify --mutants sizes a mutant's
 * per-launch budget by it), for kernel and program exercises alike. */
void run_note_launch_size(RunCtx *ctx, const json_t *emu_metrics);
/* Raises "call it as t:method(...) (with a colon)" unless t is at index 1. */
void run_check_self(lua_State *L, const char *method);
/* Pushes a JSON value as Lua values (objects and arrays as tables, nulls
 * left out; `depth` is the caller's level, 0 at the top: below level 8 a
 * container becomes nil). */
void run_push_json(lua_State *L, json_t *j, int depth);

/* The userdata behind t:kernel()'s object. User values: 1 the launch name,
 * 2 the compile options {fast_math=, defines={...}, expr=} (to rebuild the
 * module for another architecture). */
#define KERNEL_MT "cudojo.kernel"
typedef struct KernelObj {
    int mod;                    /* index into ctx->mods */
    const KernelInfo *ki;
    /* Resources per thread (registers, local bytes) and per block (static
     * shared): from the loaded function on a GPU, else from ptxas; -1 unknown. */
    int registers, local_bytes, shared_static;
} KernelObj;

/* kernel.c: the prediction of the last emulator launch as a log line,
 * once per launch (t:emu_metrics shows it next to the proxies). */
void run_predict_log(lua_State *L, RunCtx *ctx);
/* kernel.c: t:kernel(name [, opts]) */
int run_t_kernel(lua_State *L);
/* Registers the kernel object's metatable. */
void run_kernel_install(lua_State *L);
/* Unloads and frees every module of the run (after the Lua state closed). */
void run_modules_free(RunCtx *ctx);
/* A deep copy of a Diag chain (caller frees). */
Diag *run_diag_clone(const Diag *d);

/* kernel_occupancy.c: k:occupancy{...} (the kernel object at index 1). */
int run_k_occupancy(lua_State *L);
/* t:expect_occupancy(k, {block=, shared=, arch=, min=, max=, predicted=}). */
int run_t_expect_occupancy(lua_State *L);
/* Records metrics.kernels[name] = {registers, shared_static, shared_dynamic,
 * block, arch} for the kernel object at index kidx after a launch. */
void run_kernel_record_launch(lua_State *L, RunCtx *ctx, int kidx, const char *name, const LaunchConfig *cfg);

/* program.c: adds t:program, t:expect_exit and t:expect_output to the
 * methods table on top of the stack. */
void run_program_add_methods(lua_State *L);
/* Frees the run's compiled programs and the last program's timeline. */
void run_programs_free(RunCtx *ctx);

/* program_tools.c: t:program{ sanitizer = TOOL }. The tool's name (static
 * storage) for the option's value at idx, or a Lua error naming the four. */
const char *run_program_sanitizer_check(lua_State *L, int idx);
/* A second run of the program beside the plain one (program_tools.c), on
 * a thread of its own: under compute-sanitizer, or on the emulator
 * runtime. `exe` and `ro`'s pointers must live until it is joined, and
 * nothing between its start and the join may raise a Lua error; it lives
 * in a box (run_program_beside_box, pushed before the start), which frees
 * whatever a later error leaves in it. */
typedef struct BesideRun BesideRun;
BesideRun **run_program_beside_box(lua_State *L);
/* Waits for it (killing its program first when `cancel`). */
void run_program_beside_join(BesideRun *s, bool cancel);
/* Kills, waits for and frees it (the plain run failed); NULL: nothing. */
void run_program_beside_discard(BesideRun **s);

/* With r on top of the stack: sets r.sanitizer, running `exe` again under
 * compute-sanitizer `tool` with `ro` when `cuda` and the toolkit has it
 * (or taking the run started beside the plain one that `box` holds, if
 * any: the box is emptied, the run freed), its errors also the run's
 * diagnostics (an invalid access, a race, an uninitialised read or a
 * barrier error fails the run). */
void run_program_sanitizer(lua_State *L, RunCtx *ctx, const char *tool, const char *exe,
                           const ProgramRunOptions *ro, bool cuda, bool expect_errors, BesideRun **box);
/* The run under compute-sanitizer started now beside the plain run, for
 * an untimed program on a GPU (nobody reads its times; both hold the GPU
 * lock shared): the verdict waits for the longer of the two, not their
 * sum. NULL when it is not started (then run_program_sanitizer runs it
 * after the plain run, as before): timed, not on a GPU, under the GPU
 * lock (grading), no compute-sanitizer, no thread, or
 * CUDOJO_SANITIZER_BESIDE=0. */
BesideRun *run_program_sanitizer_start(RunCtx *ctx, const char *tool, const char *exe, const ProgramRunOptions *ro,
                                       bool cuda);
/* t:program{ emulator = true } on a GPU: the same executable on the
 * emulator runtime with `emu`, started now beside the GPU's run; NULL (and
 * a warning) when it cannot be (no emulator runtime, no thread). */
BesideRun *run_program_emulator_start(RunCtx *ctx, const char *exe, const ProgramRunOptions *ro,
                                      const EmuOptions *emu);
/* Waits for the emulator's run in *box (emptied, freed) and makes its
 * findings the run's: the kernels' own bugs (a race, an out-of-bounds
 * access, ... diag_code_is_kernel_bug) as they are, any other error a
 * warning (the GPU's run, whose verdict stands, reports CUDA errors
 * itself; the rest are the emulator's limits), plus a warning when it did
 * not finish. */
void run_program_emulator_absorb(RunCtx *ctx, BesideRun **box);
/* t:program{ sanitizer = T, after = function(san) }: the sanitizer's run
 * waits for the verdict (kept like a profile's: run_program_profile_defer);
 * its errors then are warnings, the verdict stands. */
void run_program_sanitizer_defer(lua_State *L, RunCtx *ctx, const char *tool, bool expect_errors, const char *exe,
                                 const ProgramRunOptions *ro);

/* t:program{ profile = "ncu" | "nsys", metrics = {...} } (program_tools.c). */
#define PROFILE_MAX_METRICS 64
typedef struct ProfileRequest {
    const char *tool;               /* "ncu" or "nsys" (static storage); NULL = none */
    bool after;                     /* after = function(prof): the profiled run waits for the verdict */
    const char *metrics[PROFILE_MAX_METRICS];   /* ncu's metrics; the strings live in the options table */
    int n_metrics;                  /* 0 = kernels/program_profile.h's NCU_DEFAULT_METRICS */
} ProfileRequest;
/* Reads `profile`, `metrics` and `after` from the options table at `opts`
 * into *req (a Lua error at the author's line for a bad value). */
void run_program_profile_check(lua_State *L, int opts, ProfileRequest *req);
/* With r on top of the stack: sets r.profile, running `exe` again under
 * ncu or nsys with `ro` when `cuda` and the toolkit has the tool; else
 * r.profile.available = false with the reason. */
void run_program_profile(lua_State *L, RunCtx *ctx, const ProfileRequest *req, const char *exe,
                         const ProgramRunOptions *ro, bool cuda);
/* t:program{ profile =, after = fn }: keeps the profiled run of `exe`
 * with `ro` for after the verdict (the options table at 2, the table
 * anchoring its strings at 3 and the ProgramCall userdata at 4 stay alive
 * with it); ctx->n_after counts them. Not when grading. */
void run_program_profile_defer(lua_State *L, RunCtx *ctx, const ProfileRequest *req, const char *exe,
                               const ProgramRunOptions *ro);
/* Protected (sandbox_call) with the i-th deferred run (1-based) as its
 * argument: runs it as run_program_profile would and calls its `after`
 * function with the profile table. */
int run_program_after_call(lua_State *L);
/* Pushes the i-th deferred run (1-based), for run_program_after_call. */
void run_program_push_after(lua_State *L, int i);
/* t:program{ expect_errors = true }: the findings that are a CUDA error the
 * program sees (a refused launch; a GPU fault: an out-of-bounds or
 * misaligned access, a failed assert, a trap) become warnings: the program
 * makes them on purpose and is checked on how it reports them. */
void run_program_expect_errors(Diag *findings);
/* Pushes r.findings: { {code=, severity="error"|"warning"|"note", file=,
 * line=, message=}, ... } for the chain. */
void run_program_push_findings(lua_State *L, const Diag *findings);

/* program_result.c: t:program's result table r and the checks on it. */
/* Adds t:expect_exit and t:expect_output to the methods table on top of
 * the stack and registers the metatable of the box that holds a result. */
void run_program_add_checks(lua_State *L);
/* Pushes a zeroed box (a userdata freed by __gc) and returns its
 * ProgramResult, for program_run to fill. */
ProgramResult *run_program_push_box(lua_State *L);
/* Pushes r for the box at box_idx: `ending` as program_result_ending says
 * it, the outputs asked for (names, a DType or -1 for bytes) as r.files
 * (r.missing lists those not left). */
void run_program_push_result(lua_State *L, int box_idx, const char *ending, const char *const *want,
                             const int *want_type, int n_want);
/* How the program ended, with the tail of its stderr: the abort message of
 * a program that crashed, hung or never started. Caller frees. */
Diag *run_program_ending_diag(lua_State *L, const ProgramResult *pr, const char *ending);
/* "SIGSEGV" for SIGSEGV; NULL for a signal it does not name. Static. */
const char *run_program_signal_name(int sig);

/* stream.c: adds t:event, t:synchronize, t:elapsed_ms, t:host_work,
 * t:timeline, t:expect_overlap and t:expect_no_default_stream_work to the
 * methods table on top of the stack. */
void run_stream_add_methods(lua_State *L);
/* emu_options.c: adds t:emu_options to the method table on top. */
void run_emu_add_methods(lua_State *L);
/* A run starts with an empty timeline; at its end metrics.timeline gets
 * the timeline (kernels/timeline.h's JSON) when anything is on it. */
void run_timeline_begin(RunCtx *ctx);
void run_timeline_finish(RunCtx *ctx);
/* Pushes a timeline (NULL = empty) as t:timeline() returns it. */
void run_push_timeline(lua_State *L, const Timeline *t);

#endif
