/* lua/exercise.h: the course (chapters and exercises written in Lua) and
 * running one exercise against a learner's source on a Backend.
 *
 * Every Lua file is loaded in the sandbox (lua/sandbox.c) with chunkname
 * "@lessons/<chapter dir>/<file>.lua" so errors name the author's file and
 * line. See lua/API.md for what exercise authors can write. */
#ifndef CUDOJO_LUA_EXERCISE_H
#define CUDOJO_LUA_EXERCISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/result.h"
#include "kernels/backend.h"

/* One `mutants_equivalent` entry: a mutant of the solution that is still
 * correct, so `verify --mutants` does not count it as a hole; or, from
 * `mutants_undetected`, a wrong mutant the emulator cannot catch. */
typedef struct MutantEquivalent {
    char *op;              /* the mutation as verify --mutants names it ("drop __syncthreads()") */
    char *line;            /* text of the solution's line it changes (a part of it is enough) */
    char *why;             /* why the mutated code is still correct (or why it cannot be caught) */
    bool undetected;       /* from mutants_undetected: wrong, but an emulator blind spot */
} MutantEquivalent;

typedef struct ExerciseMeta {
    char *id;              /* stable, unique in the course ("vector-add"); never the folder name */
    char *title;
    char *chapter_id;      /* the chapter's stable id ("hello-gpu") */
    char *lua_path;        /* absolute path of the exercise's .lua */
    char *chunkname;       /* "@lessons/01-hello-gpu/vector-add.lua" */
    char *source;          /* starter file, relative to the chapter dir ("vector-add.cu") */
    char *solution;        /* relative to the chapter dir ("solutions/vector-add.cu") */
    char **wrong;          /* relative paths of wrong variants that must fail */
    int n_wrong;
    char **hints;
    int n_hints;
    double timeout_s;      /* wall-clock limit for one run (default 10) */
    bool timeout_given;    /* the author set `timeout` (else the default, 10 s, applies) */
    bool needs_gpu;        /* only meaningful on a real GPU (skipped by verify on the emulator) */
    bool program;          /* kind = "program": the source is a whole program (nvcc, t:program), not kernels */
    bool timed;            /* program exercises: the checks read the program's times (`timed`, default true),
                              so on a GPU it runs alone (kernels/gpu_lock.h); false: it shares the GPU with
                              other untimed work. Always false for kernel exercises (k:time is timed) */
    bool bug_hunt;         /* the starter is a buggy program to fix: on a GPU it may crash, hang or pass by
                              luck, so verify holds it to the wrong variants' rule (fail, runtime-error or
                              timeout; a GPU pass counts when the emulator catches it) */
    char *bug;             /* bug hunts: what the starter must show on the emulator (`bug = "race"`:
                              out-of-bounds, race, barrier, uninitialised, launch-error, runtime-error,
                              wrong-result, timeout); NULL = any failure */
    MutantEquivalent *equivalent;   /* `mutants_equivalent` then `mutants_undetected`: mutants verify
                                       --mutants allows */
    int n_equivalent;
    double points;         /* what passing it is worth when grading (`points = N`, default 1, > 0) */
    int gpus;              /* GPUs its point needs on a real machine (`gpus = N`, default 1): with fewer,
                              verify checks it on the emulator, which emulates several devices */
    char *def_hash;        /* SHA-256 hex of the exercise definition (.lua text + starter text + the
                              chapter's lib/ modules, when it has any) */
    char *title_zh;        /* may be NULL */
    char **hints_zh;       /* Chinese hints, may be empty */
    int n_hints_zh;
    char **hint_for_kind;  /* hint_for: failure kind → the hint (0-based) to offer first */
    int *hint_for_index;
    int n_hint_for;
} ExerciseMeta;

/* The failure kinds hint_for may name: those of grade_failure_kind (app/grade.h). */
#define COURSE_HINT_KINDS                                                                                  \
    "compile-error", "out-of-bounds", "race", "barrier", "uninitialised", "misaligned", "wrong-result",   \
        "too-slow", "timeout", "crash", "runtime-error", "no-launch"
#define COURSE_HINT_KINDS_TEXT                                                                             \
    "compile-error, out-of-bounds, race, barrier, uninitialised, misaligned, wrong-result, too-slow, "   \
    "timeout, crash, runtime-error, no-launch"

typedef struct ChapterMeta {
    char *id;              /* stable ("hello-gpu") */
    char *title;
    char *title_zh;        /* may be NULL */
    char *dir;             /* absolute path of the chapter folder */
    char *rel_dir;         /* "lessons/01-hello-gpu" as shown in messages */
    int order;
    ExerciseMeta *exercises;
    int n_exercises;
} ChapterMeta;

typedef struct Course {
    char *root;            /* absolute path of the lessons/ folder */
    ChapterMeta *chapters; /* sorted by order */
    int n_chapters;
} Course;

/* Loads every chapter folder (one holding chapter.lua) under `lessons_root`.
 * Errors (with the author's file:line) come back as Diags; a broken chapter
 * does not hide the others: *out is set whenever at least the root exists. */
Diag *course_load(const char *lessons_root, Course **out);
/* course_load, naming the chapter folders "<shown_root>/<folder>" in messages
 * and chunknames (NULL: "lessons"), so that a pack outside lessons/ shows
 * its real path (`cudojo verify`, `cudojo lint`). */
Diag *course_load_as(const char *lessons_root, const char *shown_root, Course **out);
/* Loads only the chapter folders named (for `cudojo verify DIR...`). */
Diag *course_load_dirs(const char *const *dirs, int n_dirs, Course **out);
/* course_load_dirs naming chapter i's folder shown[i] in messages (shown or
 * shown[i] NULL: "lessons/<folder>"). */
Diag *course_load_dirs_as(const char *const *dirs, const char *const *shown, int n_dirs, Course **out);
void course_free(Course **c);
/* Finds by exercise id, or "chapter-id/exercise-id". *chapter may be NULL. */
const ExerciseMeta *course_find_exercise(const Course *c, const char *id, const ChapterMeta **chapter);
/* A chapter's Lua modules: <chapter>/lib/<name>.lua (what require loads:
 * lua/sandbox.h's SANDBOX_MODULE_DIR). */
#define COURSE_MODULE_DIR "lib"
/* Why require(name) in a run of chapter ch's scripts would not load the
 * module: a bad name, no lib/<name>.lua, a symlink out of the chapter, a
 * folder, a syntax error (with the module's file:line); NULL when it
 * would. Nothing runs. The Diag has no place: the caller knows the
 * requiring line (cudojo lint). Caller frees. */
Diag *course_check_module(const ChapterMeta *ch, const char *name);
/* The course's version: SHA-256 hex of the sorted lines
 * "<chapter-id>/<exercise-id> <def_hash> <points>" (points as %g), one per
 * exercise, each ended by '\n'. A submission records the version it was
 * made against; a grading database is bound to one. Caller frees. */
char *course_version(const Course *c);

typedef struct ExerciseRunOptions {
    const char *cu_path;        /* the file to compile (learner's copy, solution or wrong variant) */
    const char *cu_display;     /* how messages name it ("vector-add.cu"); NULL = cu_path */
    const char *const *param_keys;  /* overrides of t:param() defaults */
    const char *const *param_values;
    int n_params;
    const char *cache_dir;      /* NVRTC cache; NULL = default */
    uint64_t instruction_budget;  /* Lua VM instructions for the whole run; 0 = default (1e9) */
    size_t memory_cap;          /* bytes of Lua heap; 0 = default (512 MiB) */
    size_t array_cap;           /* bytes of gpu.array host data alive at once; 0 = default (4 GiB) */
    /* Told what the run is doing whenever that changes (may be NULL): kind
     * "script", "compile" or "kernel" and a phrase ("compiling vector-add.cu",
     * "running the exercise script (at lessons/…/x.lua:12)"). The worker
     * passes it to its parent, whose timeout message says it. */
    void (*on_activity)(void *ud, const char *kind, const char *what);
    void *activity_ud;
    /* A grading run (`cudojo grade`): t:grading() is true, so hidden checks
     * run, and every data seed (a:random's, t:seed()) is mixed with
     * grading_seed, so the data differ from what the learner saw. */
    bool grading;
    uint64_t grading_seed;
    /* With grading, on a GPU: grade checks this run again on the emulator
     * should it pass (app/grade_run.c's emulator check, on for the
     * exercise), so t:program{ emulator = true } leaves its own emulator
     * run to that check (the kernels' bugs it finds fail the pair there).
     * Nothing else changes. */
    bool emu_checked;
    double timeout_s;           /* the run's timeout as the runner enforces it; 0 = ex->timeout_s */
    /* Warp-instructions one emulated launch may execute before it stops with
     * did-not-finish, whatever the time (verify --mutants: a mutant that
     * loops is told from a slow one); 0 = the emulator's default. The
     * script's t:emu_options{instruction_budget} still overrides it. */
    uint64_t emu_launch_budget;
    /* Off a GPU: build as a GPU of sm_XX does. Program exercises get SASS
     * for sm_XX too (compute_XX PTX beside it up to sm_90), kernel
     * exercises a cubin for sm_XX from the one NVRTC program whose PTX
     * (compute_XX, or compute_80 where the emulator cannot decode that) the
     * emulator runs; 0 = compute_80 PTX only.
     * Grading's emulator check sets it from the GPU run it checks, so the
     * very build the GPU ran is found in the nvcc or NVRTC cache and run on
     * the emulator instead of compiling again. */
    int sass_arch;
    /* bench/bench_predict: metrics.launch_log lists every launch ({kernel,
     * grid, block, predicted_ms} on the emulator, {..., ms} measured on a
     * GPU; "proxied": the launch t:emu_metrics() read). emulator_path runs
     * the script's emulator path on a GPU: t:device().backend says "emu",
     * t:emu_metrics() is a table of zeros, and every launch is timed. */
    bool launch_log;
    bool emulator_path;
    /* Told the verdict as soon as run(t) has returned, when the run still
     * has work that cannot change it: t:program{ profile =, after = fn }'s
     * profiled runs (lua/API.md). r is the result as it stands (borrowed,
     * for the call only); the result exercise_run returns is the same
     * verdict with what came after it (r->after_log, metrics.after). Not
     * called when nothing waits for the verdict. May be NULL. */
    void (*on_verdict)(void *ud, const RunResult *r);
    void *verdict_ud;
} ExerciseRunOptions;

/* Runs ex's run(t) against opts->cu_path on `backend`. Never NULL. Compile
 * errors, launch errors, failed checks, emulator findings and Lua errors are
 * all inside the result. Must be called in the worker process. */
RunResult *exercise_run(const ExerciseMeta *ex, Backend *backend, const ExerciseRunOptions *opts);

#endif
