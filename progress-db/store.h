/* progress-db/store.h: the learner's progress, kept in SQLite.
 *
 * One database per workspace (.cudojo/progress.db) records every attempt at
 * an exercise (verdict, timings, check messages, metrics), the hints taken,
 * and derives from them what `cudojo list` and the TUI show: passed or not,
 * first pass, best kernel time. Exercises are keyed by their stable id; the
 * hash of the exercise definition is kept per attempt, so a curriculum
 * update neither loses nor mixes up history.
 *
 * Progress must survive everything: the database runs in WAL mode with full
 * syncs, every write is one transaction (a process killed at any point loses
 * no committed attempt), and a file we do not understand (not SQLite,
 * damaged, written by a newer cudojo, some other program's database) is
 * reported and never modified.
 *
 * A Store belongs to one process: open it after fork(), never before (the
 * runner worker has none). Two processes may each hold one on the same file.
 *
 * This header does not include sqlite3.h: only progress-db/ sees SQLite. */
#ifndef CUDOJO_PROGRESS_DB_STORE_H
#define CUDOJO_PROGRESS_DB_STORE_H

#include <jansson.h>
#include <stdbool.h>

#include "base/diag.h"

typedef struct Store Store;

/* Opens (creating, migrating) the database at path: WAL, foreign_keys=ON,
 * busy_timeout. A corrupt file, a file that is not SQLite, another program's
 * database, or a newer schema than we know gives a Diag and leaves the file
 * untouched. The directory must exist. On success *out is the store (close
 * with store_close); on failure *out is NULL. */
Diag *store_open(const char *path, Store **out);
/* Finalizes every statement, closes the database and NULLs *s. */
void store_close(Store **s);

/* The schema version this build creates and understands (PRAGMA user_version). */
int store_schema_latest(void);
/* The schema version of an open store (equal to store_schema_latest()),
 * -1 if it cannot be read. */
int store_schema_version(Store *s);
/* The workspace's uuid, made when the database was created (for merging a
 * class's workspaces). Owned by the store. */
const char *store_workspace_uuid(const Store *s);
/* Creation time of the database, Unix ms. */
long long store_created_unix_ms(const Store *s);
/* Runs PRAGMA integrity_check; NULL when the database is intact, else a Diag
 * listing the first problems (for `cudojo doctor`). */
Diag *store_check_integrity(Store *s);

typedef struct Attempt {
    const char *exercise_id;   /* stable id, required */
    const char *def_hash;      /* hash of the exercise definition, may be NULL */
    const char *source_hash;   /* hash of the learner's source, may be NULL */
    const char *backend;       /* "cuda"/"emu", required */
    const char *verdict;       /* verdict_name(): "pass", "fail", "compile-error"..., required */
    double duration_ms;        /* run wall time */
    double kernel_ms;          /* measured kernel time on GPU, < 0 if none */
    const char *checks_json;   /* may be NULL; must be JSON when given */
    const char *metrics_json;  /* may be NULL; must be JSON when given */
    const char *diags_json;    /* may be NULL; must be JSON when given */
    long long when_unix_ms;    /* 0 = now */
    bool fast;                 /* passed and met every stretch goal (see t:stretch) */
} Attempt;

/* Records one attempt in one transaction; *attempt_id (may be NULL) gets its id. */
Diag *store_record_attempt(Store *s, const Attempt *a, long long *attempt_id);
/* Records that hint hint_index (0-based) of an exercise was shown. Taking the
 * same hint again counts once in store_hints_taken. */
Diag *store_record_hint(Store *s, const char *exercise_id, int hint_index);
/* Number of distinct hints taken for an exercise (0 if unknown). */
Diag *store_hints_taken(Store *s, const char *exercise_id, int *count);
/* Which of an exercise's hints 0..n-1 were taken: seen[i] (indices past n are ignored). */
Diag *store_hints_seen(Store *s, const char *exercise_id, bool *seen, int n);

typedef struct ExerciseStatus {
    char *exercise_id;
    int attempts;
    bool passed;                   /* ever passed */
    bool passed_fast;              /* ever passed meeting every stretch goal */
    long long first_pass_unix_ms;  /* 0 if never */
    double best_kernel_ms;         /* best passing kernel time, < 0 if none */
    char *last_verdict;            /* NULL if no attempt */
    long long last_unix_ms;        /* 0 if no attempt */
    int hints_taken;
    double time_spent_ms;          /* sum of run durations, a rough effort measure */
} ExerciseStatus;

/* Status of one exercise; an unknown exercise gives a status with its id,
 * zero counts and best_kernel_ms = -1. Caller finishes *out with
 * exercise_status_fini. */
Diag *store_exercise_status(Store *s, const char *exercise_id, ExerciseStatus *out);
/* Status of every exercise the store knows (attempted or hinted), ordered by
 * id, in one query. Caller frees with exercise_status_free_array. */
Diag *store_all_status(Store *s, ExerciseStatus **out, int *n);
void exercise_status_fini(ExerciseStatus *st);
void exercise_status_free_array(ExerciseStatus **arr, int n);
/* {"id", "attempts", "passed", "first_pass_unix_ms", "best_kernel_ms",
 *  "last_verdict", "last_unix_ms", "hints_taken", "time_spent_ms"}; absent
 * values (never passed, no kernel time, no attempt) are null. New reference. */
json_t *exercise_status_to_json(const ExerciseStatus *st);

/* Recent attempts of one exercise as a JSON array, newest first, at most
 * limit (limit <= 0: all). Each element: {"id", "exercise", "when_unix_ms",
 * "verdict", "backend", "duration_ms", "kernel_ms" (null if none), "def_hash",
 * "source_hash", "app_version", "checks", "metrics", "diags", "fast"} where
 * checks, metrics and diags are the stored JSON values (null when absent).
 * New reference. */
Diag *store_attempts_json(Store *s, const char *exercise_id, int limit, json_t **out);
/* Whole-store export for instructors, a JSON object:
 * {"format": "cudojo-progress", "format_version": 1, "schema": N,
 *  "workspace": {"uuid", "created_unix_ms"}, "exported_unix_ms",
 *  "exercises": [ status fields (as exercise_status_to_json) plus
 *     "first_seen_unix_ms", "last_seen_unix_ms", "first_def_hash",
 *     "last_def_hash", "hints": [indices], "attempts": [as store_attempts_json] ],
 *  "merged_workspaces": [{"uuid", "first_merged_unix_ms", "last_merged_unix_ms",
 *     "attempts_added"}]}
 * Read in one transaction, so it is a consistent snapshot. New reference. */
Diag *store_export_json(Store *s, json_t **out);

/* What a merge did (store_merge_json, store_merge_db). */
typedef struct StoreMergeStats {
    char source_uuid[64];       /* the other workspace's uuid ("" when the export has none) */
    bool same_workspace;        /* it was this workspace's own progress: nothing to do */
    int exercises;              /* exercises in the other workspace's progress */
    int attempts_added;         /* attempts that were new here */
    int attempts_present;       /* attempts already here (a second merge finds them all) */
    int hints_added;            /* hints newly marked as taken */
} StoreMergeStats;

/* Merges another workspace's progress, given as a store_export_json
 * document, into s in one transaction: an attempt is the same when its
 * (exercise, when_unix_ms, source_hash, verdict, backend) are, so merging
 * twice (or the other way round and back) adds nothing the second time;
 * hints taken there count as taken here; the other workspace's uuid is
 * recorded in merged_workspaces. origin names the file for messages and the
 * record. A document that is not a cudojo-progress export, a newer format,
 * or a malformed attempt gives a Diag naming origin and changes nothing. */
Diag *store_merge_json(Store *s, const json_t *export_doc, const char *origin, StoreMergeStats *stats);
/* The same from another workspace's progress.db, which is only read (a
 * consistent copy is taken through SQLite's backup API into tmp_dir, opened,
 * migrated and removed). */
Diag *store_merge_db(Store *s, const char *other_path, const char *tmp_dir, StoreMergeStats *stats);
/* The merged_workspaces list of the export, read inside the caller's transaction. */
Diag *store_merged_workspaces_json(Store *s, json_t **out);

#endif
