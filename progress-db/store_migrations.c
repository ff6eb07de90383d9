/* progress-db/store_migrations.c: the schema, as the list of steps that built it.
 *
 * STORE_MIGRATIONS[i] takes a database from PRAGMA user_version i to i + 1;
 * store_open runs the missing ones in order, each in its own transaction
 * together with the user_version bump, so a crash leaves a database at one
 * version or the next, never between.
 *
 * A released entry is never edited, reordered or removed: learners' files
 * were built by it. A schema change is a new entry at the end. */
#include "progress-db/store_internal.h"

const char *const STORE_MIGRATIONS[] = {
    /* 0 -> 1: the tables. One database is one workspace (one learner);
     * `meta` carries the workspace's identity so the workspaces of a class
     * can be merged and graded without mixing learners up. */
    "PRAGMA application_id = 1667525231;\n" /* STORE_APPLICATION_ID, "cdjo" */
    "CREATE TABLE meta (\n"
    "    key   TEXT PRIMARY KEY NOT NULL,\n"
    "    value TEXT NOT NULL\n"
    ") WITHOUT ROWID;\n"
    "INSERT INTO meta (key, value)\n"
    "    SELECT 'workspace_uuid',\n"
    "           substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-' ||\n"
    "           substr('89ab', 1 + (random() & 3), 1) || substr(h, 18, 3) || '-' || substr(h, 21, 12)\n"
    "    FROM (SELECT lower(hex(randomblob(16))) AS h);\n"
    "INSERT INTO meta (key, value)\n"
    "    VALUES ('created_unix_ms', CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER));\n"
    /* Keyed by the stable exercise id, not by folder: chapters can be
     * renumbered. The definition hashes show when the curriculum changed
     * under the learner. */
    "CREATE TABLE exercises (\n"
    "    exercise_id        TEXT PRIMARY KEY NOT NULL,\n"
    "    first_seen_unix_ms INTEGER NOT NULL,\n"
    "    last_seen_unix_ms  INTEGER NOT NULL,\n"
    "    first_def_hash     TEXT,\n"
    "    last_def_hash      TEXT\n"
    ");\n"
    /* Small columns first and the JSON last: SQLite reads a row's columns
     * in order, so the status queries never touch the big values. */
    "CREATE TABLE attempts (\n"
    "    id           INTEGER PRIMARY KEY,\n"
    "    exercise_id  TEXT NOT NULL REFERENCES exercises (exercise_id) ON UPDATE CASCADE,\n"
    "    when_unix_ms INTEGER NOT NULL,\n"
    "    verdict      TEXT NOT NULL,\n"
    "    backend      TEXT NOT NULL,\n"
    "    duration_ms  REAL NOT NULL,\n"
    "    kernel_ms    REAL,\n" /* NULL: no kernel time was measured */
    "    def_hash     TEXT,\n"
    "    source_hash  TEXT,\n"
    "    app_version  TEXT,\n"
    "    checks_json  TEXT,\n"
    "    metrics_json TEXT,\n"
    "    diags_json   TEXT\n"
    ");\n"
    "CREATE TABLE hints (\n"
    "    exercise_id   TEXT NOT NULL REFERENCES exercises (exercise_id) ON UPDATE CASCADE,\n"
    "    hint_index    INTEGER NOT NULL CHECK (hint_index >= 0),\n"
    "    first_unix_ms INTEGER NOT NULL,\n"
    "    last_unix_ms  INTEGER NOT NULL,\n"
    "    times         INTEGER NOT NULL DEFAULT 1,\n"
    "    PRIMARY KEY (exercise_id, hint_index)\n"
    ") WITHOUT ROWID;\n",

    /* 1 -> 2: the index behind `cudojo list`. It covers every column the
     * status aggregate reads, so a status is computed from the index alone,
     * and its order (time, then id for ties) gives "newest attempt first"
     * without a sort. */
    "CREATE INDEX attempts_by_exercise\n"
    "    ON attempts (exercise_id, when_unix_ms, id, verdict, kernel_ms, duration_ms);\n",

    /* 2 -> 3: `fast` marks a passing attempt that also met the exercise's
     * stretch goals (t:stretch), behind the "passed-fast" status. The index
     * is rebuilt so the status aggregate still reads it alone. */
    "ALTER TABLE attempts ADD COLUMN fast INTEGER NOT NULL DEFAULT 0;\n"
    "DROP INDEX attempts_by_exercise;\n"
    "CREATE INDEX attempts_by_exercise\n"
    "    ON attempts (exercise_id, when_unix_ms, id, verdict, kernel_ms, duration_ms, fast);\n",

    /* 3 -> 4: the other workspaces whose progress was merged into this one
     * (`cudojo progress --merge`: a lab machine and a laptop), so a grader
     * can see that two workspaces' histories were joined. */
    "CREATE TABLE merged_workspaces (\n"
    "    workspace_uuid       TEXT PRIMARY KEY NOT NULL,\n"
    "    first_merged_unix_ms INTEGER NOT NULL,\n"
    "    last_merged_unix_ms  INTEGER NOT NULL,\n"
    "    origin               TEXT,\n" /* the file last merged from, as given */
    "    attempts_added       INTEGER NOT NULL DEFAULT 0\n"
    ") WITHOUT ROWID;\n",
};

const int STORE_MIGRATION_COUNT = (int)(sizeof STORE_MIGRATIONS / sizeof STORE_MIGRATIONS[0]);
