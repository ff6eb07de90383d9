/* progress-db/gradedb.h: the grading database of `cudojo grade` (one per
 * grading output directory, OUT/grade.db), kept in SQLite.
 *
 * It holds the instructor's course as graded (its version hash, and the
 * exercises with their points, in course order), one row per student's
 * submission with the source hash of each of their exercise files, and one
 * row per run: (student, exercise, source_sha256, course_version) is the key,
 * so an unchanged file under an unchanged course is never run twice, and a
 * grade run killed at any point resumes by skipping the rows present. Every
 * recorded run is its own transaction (WAL, synchronous=FULL): a kill -9
 * loses at most the runs in flight.
 *
 * Shards (one database per Slurm array task) merge with gradedb_merge:
 * INSERT OR IGNORE of their rows after checking the course versions agree,
 * so merging is idempotent and order-free.
 *
 * gradedb_export_json gives the gradebook (gradebook.json, format
 * "cudojo-gradebook"), which is what the class report reads.
 *
 * Like store.h this header does not include sqlite3.h: only progress-db/
 * sees SQLite. A GradeDb belongs to one process. */
#ifndef CUDOJO_PROGRESS_DB_GRADEDB_H
#define CUDOJO_PROGRESS_DB_GRADEDB_H

#include <jansson.h>
#include <stdbool.h>

#include "base/diag.h"

typedef struct GradeDb GradeDb;

/* meta keys (gradedb_meta_get/set). */
#define GRADEDB_META_COURSE_VERSION "course_version"
#define GRADEDB_META_COURSE_ROOT "course_root"
#define GRADEDB_META_CREATED "created_unix_ms"
#define GRADEDB_META_APP_VERSION "app_version"
#define GRADEDB_META_SHARD "shard"             /* "2/4"; absent when not sharded */
#define GRADEDB_META_BACKEND "backend"         /* "emu" or "cuda" */
#define GRADEDB_META_GRADING_SEED "grading_seed"   /* decimal u64: the seed salt of grading runs */
#define GRADEDB_META_SIMILARITY "similarity_json"  /* the gradebook's "similarity" array, as JSON text */

/* The failure kinds of a run (GradeRun.failure_kind), NULL on a pass. */
#define GRADE_FAILURE_KINDS                                                                              \
    "missing", "compile-error", "out-of-bounds", "race", "barrier", "uninitialised", "misaligned",      \
        "wrong-result", "too-slow", "timeout", "crash", "runtime-error", "no-launch", "exercise-error", "other"

/* Opens (creating, migrating) the grading database at path; WAL,
 * synchronous=FULL, busy_timeout. A file that is not SQLite, is damaged, is
 * some other program's database (a learner's progress.db included) or has a
 * newer schema gives a Diag naming it and is left untouched. The directory
 * must exist. *out is NULL on failure. */
Diag *gradedb_open(const char *path, GradeDb **out);
/* Opens an existing grading database for reading only (the class report):
 * never creates, migrates or writes it. */
Diag *gradedb_open_readonly(const char *path, GradeDb **out);
void gradedb_close(GradeDb **g);
/* The schema version this build writes (PRAGMA user_version). */
int gradedb_schema_latest(void);
const char *gradedb_path(const GradeDb *g);

/* A meta value (caller frees; *value = NULL when the key is absent). */
Diag *gradedb_meta_get(GradeDb *g, const char *key, char **value);
/* Sets a meta value (value NULL deletes the key). */
Diag *gradedb_meta_set(GradeDb *g, const char *key, const char *value);

/* One exercise of the course being graded, in course order. */
typedef struct GradeExercise {
    const char *id;
    const char *chapter;        /* chapter id */
    const char *title;
    double points;              /* max points */
    bool program;               /* kind "program" (else "kernel") */
    bool skipped;               /* not graded here (needs_gpu on the emulator): not counted */
} GradeExercise;

/* Binds the database to a course. An empty database (no submission, no
 * run) takes course_version, course_root and the exercise list; one that
 * already has this course_version gets the list refreshed; one graded under
 * another course_version is refused with a Diag saying both versions (grade
 * into a new --out, or empty it). One transaction. */
Diag *gradedb_set_course(GradeDb *g, const char *course_version, const char *course_root, const GradeExercise *ex,
                         int n);

/* One student's submission. problems_json: a JSON array of strings (NULL =
 * none); progress_json: the workspace's cudojo-progress export (NULL = none). */
typedef struct GradeSubmission {
    const char *student;
    const char *workspace_uuid;          /* may be NULL */
    const char *origin;                  /* the path as given on the command line */
    const char *origin_sha256;           /* of an archive; NULL for a directory */
    long long submitted_unix_ms;         /* 0 = unknown */
    const char *course_version_submitted;  /* the manifest's; NULL when unknown */
    const char *progress_json;
    const char *problems_json;
} GradeSubmission;

/* Records (replacing) a student's submission and the current source of each
 * of their exercises: source_sha256[i] of exercise_ids[i], NULL when the file
 * is missing. The gradebook shows, per exercise, the run of that source. One
 * transaction. */
Diag *gradedb_put_submission(GradeDb *g, const GradeSubmission *s, const char *const *exercise_ids,
                             const char *const *source_sha256, int n);

/* One graded run. */
typedef struct GradeRun {
    const char *student, *exercise, *source_sha256, *course_version;
    const char *verdict;        /* verdict_name(), or "missing" */
    const char *failure_kind;   /* NULL on pass; else one of GRADE_FAILURE_KINDS */
    double points, max_points;
    bool fast;
    double duration_ms;         /* < 0: none */
    double kernel_ms;           /* < 0: none */
    const char *backend;        /* may be NULL */
    const char *message;        /* one line, may be NULL */
    const char *result_json;    /* run_result_to_json text, may be NULL */
    long long graded_unix_ms;   /* 0 = now */
    bool emu_check;             /* graded with the emulator's second opinion on a GPU pass (grade --emu-check):
                                   part of the key a run is reused under */
} GradeRun;

/* Whether the run of (student, exercise, source_sha256, course_version) is
 * recorded, graded without the emulator check. */
Diag *gradedb_has_run(GradeDb *g, const char *student, const char *exercise, const char *source_sha256,
                      const char *course_version, bool *has);
/* The same, graded with (emu_check) or without the emulator check: a run
 * graded the other way is not the one asked for. */
Diag *gradedb_has_run_checked(GradeDb *g, const char *student, const char *exercise, const char *source_sha256,
                              const char *course_version, bool emu_check, bool *has);
/* Records a run in one transaction; a run already present with the same
 * emu_check is left as it is (*inserted = false; inserted may be NULL), one
 * graded the other way is replaced (*inserted = true). */
Diag *gradedb_record_run(GradeDb *g, const GradeRun *r, bool *inserted);
/* Number of run rows and of submission rows. */
Diag *gradedb_count(GradeDb *g, long long *runs, long long *submissions);
/* Students of the database, sorted by name (caller frees each and the array). */
Diag *gradedb_students(GradeDb *g, char ***names, int *n);

/* What a merge did. */
typedef struct GradeMergeStats {
    long long submissions_added, runs_added, runs_present;
} GradeMergeStats;

/* Merges a shard database into `into`: its course (when `into` has none
 * yet), submissions (a student already present is kept) and runs (INSERT OR
 * IGNORE). A shard of another course_version, or one that is not a grading
 * database, is refused with a Diag naming it and nothing is changed. One
 * transaction; idempotent; any order. stats may be NULL. */
Diag *gradedb_merge(GradeDb *into, const char *shard_path, GradeMergeStats *stats);

/* The gradebook (the format of gradebook.json, see the issue-13 design):
 * {"format":"cudojo-gradebook","format_version":1,"course_version","backend",
 *  "generated_unix_ms","exercises":[{"id","chapter","title","points","kind"}],
 *  "students":[{"student","workspace_uuid","origin","submitted_unix_ms","total",
 *    "max_total","problems":[…],"exercises":{id:{"verdict","failure_kind",
 *    "points","max_points","fast","duration_ms","kernel_ms","source_sha256",
 *    "message","checks":[{"name","passed","message"}],
 *    "findings":[{"severity","message","file","line"}],
 *    "emulator_check":{…} (only where the emulator checked a GPU pass: its
 *    "verdict","failure_kind","overturned","message","findings")}},"progress"}],
 *  "similarity":[…]}
 * Students sorted by name, exercises in course order (skipped exercises are
 * left out); an exercise of a student with no run yet has verdict null.
 * Read in one transaction. New reference in *out. */
Diag *gradedb_export_json(GradeDb *g, json_t **out);

#endif
