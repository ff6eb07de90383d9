/* progress-db/gradedb.c: the grading database: opening (refusing files that
 * are not ours), the schema and its migrations, meta, binding to a course,
 * submissions and runs. The gradebook export and shard merging are in
 * gradedb_export.c. */
#include "progress-db/gradedb_internal.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/fs.h"
#include "base/xalloc.h"

#ifndef CUDOJO_VERSION
#define CUDOJO_VERSION "unknown" /* the Makefile defines it */
#endif

/* GRADEDB_MIGRATIONS[i] takes user_version i to i + 1, in one transaction
 * with the bump. A released entry is never edited: a new step goes at the end. */
static const char *const GRADEDB_MIGRATIONS[] = {
    /* 0 -> 1 */
    "PRAGMA application_id = 1667525223;\n" /* GRADEDB_APPLICATION_ID, "cdjg" */
    "CREATE TABLE meta (\n"
    "    key   TEXT PRIMARY KEY NOT NULL,\n"
    "    value TEXT NOT NULL\n"
    ") WITHOUT ROWID;\n"
    "INSERT INTO meta (key, value)\n"
    "    VALUES ('created_unix_ms', CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER));\n"
    /* The course as graded, so the gradebook can be made from the database
     * alone (the class report has no course). */
    "CREATE TABLE exercise (\n"
    "    id       TEXT PRIMARY KEY NOT NULL,\n"
    "    position INTEGER NOT NULL,\n"
    "    chapter  TEXT NOT NULL,\n"
    "    title    TEXT NOT NULL,\n"
    "    points   REAL NOT NULL,\n"
    "    kind     TEXT NOT NULL,\n"
    "    skipped  INTEGER NOT NULL DEFAULT 0\n"
    ");\n"
    "CREATE TABLE submission (\n"
    "    student                  TEXT PRIMARY KEY NOT NULL,\n"
    "    workspace_uuid           TEXT,\n"
    "    origin                   TEXT NOT NULL,\n"
    "    origin_sha256            TEXT,\n"
    "    submitted_unix_ms        INTEGER,\n"
    "    course_version_submitted TEXT,\n"
    "    progress_json            TEXT,\n"
    "    problems_json            TEXT\n"
    ");\n"
    /* The source of each exercise as submitted ('missing' when absent): the
     * gradebook shows the run of exactly that source. */
    "CREATE TABLE submission_file (\n"
    "    student       TEXT NOT NULL,\n"
    "    exercise      TEXT NOT NULL,\n"
    "    source_sha256 TEXT NOT NULL,\n"
    "    PRIMARY KEY (student, exercise)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE run (\n"
    "    student        TEXT NOT NULL,\n"
    "    exercise       TEXT NOT NULL,\n"
    "    source_sha256  TEXT NOT NULL,\n"
    "    course_version TEXT NOT NULL,\n"
    "    verdict        TEXT NOT NULL,\n"
    "    failure_kind   TEXT,\n"
    "    points         REAL NOT NULL,\n"
    "    max_points     REAL NOT NULL,\n"
    "    fast           INTEGER NOT NULL DEFAULT 0,\n"
    "    duration_ms    REAL,\n"
    "    kernel_ms      REAL,\n"
    "    backend        TEXT,\n"
    "    message        TEXT,\n"
    "    result_json    TEXT,\n"
    "    graded_unix_ms INTEGER NOT NULL,\n"
    "    PRIMARY KEY (student, exercise, source_sha256, course_version)\n"
    ");\n",
    /* 1 -> 2: whether the grading asked the emulator for a second opinion on
     * a GPU pass (cudojo grade --emu-check): part of what a run is reused for. */
    "ALTER TABLE run ADD COLUMN emu_check INTEGER NOT NULL DEFAULT 0;\n",
};
#define GRADEDB_MIGRATION_COUNT ((int)(sizeof GRADEDB_MIGRATIONS / sizeof GRADEDB_MIGRATIONS[0]))

int gradedb_schema_latest(void) { return GRADEDB_MIGRATION_COUNT; }

const char *gradedb_path(const GradeDb *g) { return g->path; }

long long gradedb_now_unix_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

Diag *gradedb_error(const GradeDb *g, const char *what, const char *sql) {
    int code = g->db ? sqlite3_extended_errcode(g->db) & 0xff : SQLITE_NOMEM;
    const char *advice = code == SQLITE_BUSY || code == SQLITE_LOCKED ? "; another cudojo is writing to it, try again"
                         : code == SQLITE_FULL                       ? "; free some space on its disk and run again"
                         : code == SQLITE_CORRUPT || code == SQLITE_NOTADB
                             ? "; it is damaged: grade into a new --out folder"
                             : "";
    return diag_new(DIAG_ERROR, "grade-db", g->path, 0, 0, "grading database: %s failed: %s%s (SQL: %s)", what,
                    g->db ? sqlite3_errmsg(g->db) : "out of memory", advice, sql ? sql : "none");
}

sqlite3_stmt *gradedb_prepare(GradeDb *g, const char *sql, Diag **err) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(g->db, sql, -1, &st, NULL) != SQLITE_OK) {
        *err = gradedb_error(g, "preparing a query", sql);
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

Diag *gradedb_exec(GradeDb *g, const char *what, const char *sql) {
    char *msg = NULL;
    if (sqlite3_exec(g->db, sql, NULL, NULL, &msg) == SQLITE_OK) return NULL;
    sqlite3_free(msg);
    return gradedb_error(g, what, sql);
}

int gradedb_bind_text(sqlite3_stmt *st, int idx, const char *text) {
    /* a wrong index only makes SQLite answer SQLITE_RANGE, which callers ignore */
    assert(st && idx >= 1 && idx <= sqlite3_bind_parameter_count(st));
    if (!text) return sqlite3_bind_null(st, idx);
    return sqlite3_bind_text(st, idx, text, -1, SQLITE_TRANSIENT);
}

char *gradedb_column_strdup(sqlite3_stmt *st, int col) {
    assert(st && col >= 0 && col < sqlite3_column_count(st));   /* else SQLite answers NULL */
    if (sqlite3_column_type(st, col) == SQLITE_NULL) return NULL;
    return xstrdup((const char *)sqlite3_column_text(st, col));
}

static void gradedb_rollback(GradeDb *g) {
    if (!sqlite3_get_autocommit(g->db)) sqlite3_exec(g->db, "ROLLBACK", NULL, NULL, NULL);
}

static long long be32(const unsigned char *p) {
    return (long long)((unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3]);
}

/* Whether a database with this identity is ours (or new and empty) and not
 * from a newer cudojo. */
static Diag *gradedb_judge(const char *path, long long version, long long app_id, long long objects) {
    if (app_id == 0x63646a6f)
        return diag_new(DIAG_ERROR, "grade-db", path, 0, 0,
                        "this is a learner's progress database, not a grading database; not touching it "
                        "(grading writes OUT/grade.db: give --out a folder of its own)");
    if (app_id != GRADEDB_APPLICATION_ID && (app_id != 0 || version != 0 || objects != 0))
        return diag_new(DIAG_ERROR, "grade-db", path, 0, 0,
                        "this is another program's SQLite database (application_id %lld), not a cudojo grading "
                        "database; not touching it",
                        app_id);
    if (version > GRADEDB_MIGRATION_COUNT)
        return diag_new(DIAG_ERROR, "grade-db", path, 0, 0,
                        "this grading database was written by a newer cudojo (schema %lld, we know %d); not "
                        "touching it",
                        version, GRADEDB_MIGRATION_COUNT);
    return NULL;
}

/* The 100-byte SQLite header: a file plainly not ours is refused before
 * SQLite opens it (and leaves -wal/-shm files beside it). */
static Diag *gradedb_check_header(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    unsigned char h[100];
    size_t n = fread(h, 1, sizeof h, fp);
    fclose(fp);
    if (n == 0) return NULL;
    if (n < sizeof h || memcmp(h, "SQLite format 3", 16) != 0)
        return diag_new(DIAG_ERROR, "grade-db", path, 0, 0,
                        "this file is not an SQLite database, so not a grading database; not touching it");
    return gradedb_judge(path, be32(h + 60), be32(h + 68), 0);
}

static Diag *gradedb_query_int(GradeDb *g, const char *sql, long long *out) {
    Diag *err = NULL;
    sqlite3_stmt *st = gradedb_prepare(g, sql, &err);
    if (!st) return err;
    if (sqlite3_step(st) == SQLITE_ROW) *out = sqlite3_column_int64(st, 0);
    else err = gradedb_error(g, "reading the database", sql);
    sqlite3_finalize(st);
    return err;
}

/* The identity as SQLite sees it (a WAL not yet checkpointed included). */
static Diag *gradedb_check_identity(GradeDb *g) {
    long long version = 0, app_id = 0, objects = 0;
    Diag *err = gradedb_query_int(g, "PRAGMA user_version", &version);
    if (!err) err = gradedb_query_int(g, "PRAGMA application_id", &app_id);
    if (!err) err = gradedb_query_int(g, "SELECT count(*) FROM sqlite_schema", &objects);
    if (!err) err = gradedb_judge(g->path, version, app_id, objects);
    return err;
}

static Diag *gradedb_migrate(GradeDb *g) {
    for (;;) {
        Diag *err = gradedb_exec(g, "starting a migration", "BEGIN IMMEDIATE");
        if (err) return err;
        long long version = 0;
        err = gradedb_query_int(g, "PRAGMA user_version", &version);
        if (!err && version >= GRADEDB_MIGRATION_COUNT) return gradedb_exec(g, "finishing the migrations", "COMMIT");
        if (!err) err = gradedb_exec(g, "migrating the schema", GRADEDB_MIGRATIONS[version]);
        if (!err) {
            char bump[64];
            snprintf(bump, sizeof bump, "PRAGMA user_version = %lld", version + 1);
            err = gradedb_exec(g, "migrating the schema", bump);
        }
        if (!err && version == 0) {
            sqlite3_stmt *st = gradedb_prepare(g, "INSERT INTO meta (key, value) VALUES ('app_version', ?1)", &err);
            if (st) {
                gradedb_bind_text(st, 1, CUDOJO_VERSION);
                if (sqlite3_step(st) != SQLITE_DONE) err = gradedb_error(g, "migrating the schema", sqlite3_sql(st));
                sqlite3_finalize(st);
            }
        }
        if (!err) err = gradedb_exec(g, "migrating the schema", "COMMIT");
        if (err) {
            gradedb_rollback(g);
            return err;
        }
    }
}

static Diag *gradedb_open_mode(const char *path, bool readonly, GradeDb **out) {
    assert(path && out);
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) == 0) {
        if (!S_ISREG(sb.st_mode))
            return diag_new(DIAG_ERROR, "grade-db", path, 0, 0, "grading database: it is %s, not a file",
                            fs_kind_name(sb.st_mode));
        Diag *err = gradedb_check_header(path);
        if (err) return err;
    } else if (readonly) {
        return diag_new(DIAG_ERROR, "grade-db", path, 0, 0, "grading database: cannot open it: %s", strerror(errno));
    } else {
        char *dir = path_dirname(path);
        bool ok = fs_is_dir(dir);
        Diag *err = ok ? NULL
                       : diag_new(DIAG_ERROR, "grade-db", path, 0, 0,
                                  "grading database: cannot create it, the folder %s does not exist", dir);
        free(dir);
        if (err) return err;
    }
    GradeDb *g = xcalloc(1, sizeof *g);
    g->path = xstrdup(path);
    g->readonly = readonly;
    int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    Diag *err = NULL;
    if (sqlite3_open_v2(path, &g->db, flags, NULL) != SQLITE_OK) err = gradedb_error(g, "opening", NULL);
    if (!err) {
        sqlite3_extended_result_codes(g->db, 1);
        sqlite3_busy_timeout(g->db, GRADEDB_BUSY_TIMEOUT_MS);
        err = gradedb_check_identity(g);
    }
    if (!err && readonly) {
        long long version = 0;
        err = gradedb_query_int(g, "PRAGMA user_version", &version);
        if (!err && version != GRADEDB_MIGRATION_COUNT)
            err = diag_new(DIAG_ERROR, "grade-db", path, 0, 0,
                           "grading database: schema %lld, this cudojo reads %d (open it once with `cudojo grade` "
                           "to migrate it)",
                           version, GRADEDB_MIGRATION_COUNT);
    }
    if (!err && !readonly) {
        /* Each recorded run survives a kill -9 and a power cut. */
        err = gradedb_exec(g, "setting up the connection", "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
        if (!err) err = gradedb_migrate(g);
    }
    if (err) {
        gradedb_close(&g);
        return err;
    }
    *out = g;
    return NULL;
}

Diag *gradedb_open(const char *path, GradeDb **out) { return gradedb_open_mode(path, false, out); }

Diag *gradedb_open_readonly(const char *path, GradeDb **out) { return gradedb_open_mode(path, true, out); }

void gradedb_close(GradeDb **gp) {
    GradeDb *g = *gp;
    if (!g) return;
    if (g->db) sqlite3_close(g->db);
    free(g->path);
    free(g);
    *gp = NULL;
}

static const char SQL_META_GET[] = "SELECT value FROM meta WHERE key = ?1";

Diag *gradedb_meta_get(GradeDb *g, const char *key, char **value) {
    *value = NULL;
    Diag *err = NULL;
    sqlite3_stmt *st = gradedb_prepare(g, SQL_META_GET, &err);
    if (!st) return err;
    gradedb_bind_text(st, 1, key);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *value = gradedb_column_strdup(st, 0);
    else if (rc != SQLITE_DONE) err = gradedb_error(g, "reading meta", SQL_META_GET);
    sqlite3_finalize(st);
    return err;
}

static const char SQL_META_SET[] = "INSERT INTO meta (key, value) VALUES (?1, ?2) "
                                   "ON CONFLICT (key) DO UPDATE SET value = excluded.value";
static const char SQL_META_DEL[] = "DELETE FROM meta WHERE key = ?1";

Diag *gradedb_meta_set(GradeDb *g, const char *key, const char *value) {
    const char *sql = value ? SQL_META_SET : SQL_META_DEL;
    Diag *err = NULL;
    sqlite3_stmt *st = gradedb_prepare(g, sql, &err);
    if (!st) return err;
    gradedb_bind_text(st, 1, key);
    if (value) gradedb_bind_text(st, 2, value);
    if (sqlite3_step(st) != SQLITE_DONE) err = gradedb_error(g, "writing meta", sql);
    sqlite3_finalize(st);
    return err;
}

Diag *gradedb_count(GradeDb *g, long long *runs, long long *submissions) {
    long long r = 0, s = 0;
    Diag *err = gradedb_query_int(g, "SELECT count(*) FROM run", &r);
    if (!err) err = gradedb_query_int(g, "SELECT count(*) FROM submission", &s);
    if (runs) *runs = r;
    if (submissions) *submissions = s;
    return err;
}

static const char SQL_EXERCISE_INSERT[] =
    "INSERT INTO exercise (id, position, chapter, title, points, kind, skipped) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

Diag *gradedb_set_course(GradeDb *g, const char *course_version, const char *course_root, const GradeExercise *ex,
                         int n) {
    Diag *err = gradedb_exec(g, "starting a write", "BEGIN IMMEDIATE");
    if (err) return err;
    char *have = NULL;
    long long runs = 0, subs = 0;
    err = gradedb_meta_get(g, GRADEDB_META_COURSE_VERSION, &have);
    if (!err) err = gradedb_count(g, &runs, &subs);
    if (!err && have && strcmp(have, course_version) && (runs || subs))
        err = diag_new(DIAG_ERROR, "grade-db", g->path, 0, 0,
                       "this grading database holds %lld runs of %lld submissions graded under course version %.12s…, "
                       "and the course given is version %.12s…: the course changed since. Grade into a new --out "
                       "folder (or remove this one to grade everything again).",
                       runs, subs, have, course_version);
    free(have);
    if (!err) err = gradedb_meta_set(g, GRADEDB_META_COURSE_VERSION, course_version);
    if (!err && course_root) err = gradedb_meta_set(g, GRADEDB_META_COURSE_ROOT, course_root);
    if (!err) err = gradedb_exec(g, "replacing the exercise list", "DELETE FROM exercise");
    sqlite3_stmt *st = err ? NULL : gradedb_prepare(g, SQL_EXERCISE_INSERT, &err);
    for (int i = 0; st && !err && i < n; i++) {
        sqlite3_reset(st);
        gradedb_bind_text(st, 1, ex[i].id);
        sqlite3_bind_int(st, 2, i);
        gradedb_bind_text(st, 3, ex[i].chapter);
        gradedb_bind_text(st, 4, ex[i].title ? ex[i].title : ex[i].id);
        sqlite3_bind_double(st, 5, ex[i].points);
        gradedb_bind_text(st, 6, ex[i].program ? "program" : "kernel");
        sqlite3_bind_int(st, 7, ex[i].skipped);
        if (sqlite3_step(st) != SQLITE_DONE) err = gradedb_error(g, "recording the exercise list", SQL_EXERCISE_INSERT);
    }
    sqlite3_finalize(st);
    if (!err) err = gradedb_exec(g, "committing", "COMMIT");
    if (err) gradedb_rollback(g);
    return err;
}

static const char SQL_SUB_PUT[] =
    "INSERT OR REPLACE INTO submission (student, workspace_uuid, origin, origin_sha256, submitted_unix_ms,\n"
    "                                   course_version_submitted, progress_json, problems_json)\n"
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
static const char SQL_FILE_PUT[] =
    "INSERT OR REPLACE INTO submission_file (student, exercise, source_sha256) VALUES (?1, ?2, ?3)";

Diag *gradedb_put_submission(GradeDb *g, const GradeSubmission *s, const char *const *exercise_ids,
                             const char *const *source_sha256, int n) {
    assert(s->student && s->origin);
    Diag *err = gradedb_exec(g, "starting a write", "BEGIN IMMEDIATE");
    if (err) return err;
    sqlite3_stmt *st = gradedb_prepare(g, SQL_SUB_PUT, &err);
    if (st) {
        gradedb_bind_text(st, 1, s->student);
        gradedb_bind_text(st, 2, s->workspace_uuid);
        gradedb_bind_text(st, 3, s->origin);
        gradedb_bind_text(st, 4, s->origin_sha256);
        if (s->submitted_unix_ms) sqlite3_bind_int64(st, 5, s->submitted_unix_ms);
        gradedb_bind_text(st, 6, s->course_version_submitted);
        gradedb_bind_text(st, 7, s->progress_json);
        gradedb_bind_text(st, 8, s->problems_json);
        if (sqlite3_step(st) != SQLITE_DONE) err = gradedb_error(g, "recording a submission", SQL_SUB_PUT);
        sqlite3_finalize(st);
    }
    if (!err) {
        static const char SQL_FILE_DEL[] = "DELETE FROM submission_file WHERE student = ?1";
        st = gradedb_prepare(g, SQL_FILE_DEL, &err);
        if (st) {
            gradedb_bind_text(st, 1, s->student);
            if (sqlite3_step(st) != SQLITE_DONE) err = gradedb_error(g, "recording a submission", SQL_FILE_DEL);
            sqlite3_finalize(st);
        }
    }
    st = err ? NULL : gradedb_prepare(g, SQL_FILE_PUT, &err);
    for (int i = 0; st && !err && i < n; i++) {
        sqlite3_reset(st);
        gradedb_bind_text(st, 1, s->student);
        gradedb_bind_text(st, 2, exercise_ids[i]);
        gradedb_bind_text(st, 3, source_sha256[i] ? source_sha256[i] : GRADEDB_NO_SOURCE);
        if (sqlite3_step(st) != SQLITE_DONE) err = gradedb_error(g, "recording a submission's files", SQL_FILE_PUT);
    }
    sqlite3_finalize(st);
    if (!err) err = gradedb_exec(g, "committing", "COMMIT");
    if (err) gradedb_rollback(g);
    return err;
}

static const char SQL_HAS_RUN[] = "SELECT 1 FROM run WHERE student = ?1 AND exercise = ?2 AND source_sha256 = ?3 "
                                  "AND course_version = ?4 AND emu_check = ?5";

Diag *gradedb_has_run(GradeDb *g, const char *student, const char *exercise, const char *source_sha256,
                      const char *course_version, bool *has) {
    return gradedb_has_run_checked(g, student, exercise, source_sha256, course_version, false, has);
}

Diag *gradedb_has_run_checked(GradeDb *g, const char *student, const char *exercise, const char *source_sha256,
                              const char *course_version, bool emu_check, bool *has) {
    *has = false;
    Diag *err = NULL;
    sqlite3_stmt *st = gradedb_prepare(g, SQL_HAS_RUN, &err);
    if (!st) return err;
    gradedb_bind_text(st, 1, student);
    gradedb_bind_text(st, 2, exercise);
    gradedb_bind_text(st, 3, source_sha256 ? source_sha256 : GRADEDB_NO_SOURCE);
    gradedb_bind_text(st, 4, course_version);
    sqlite3_bind_int(st, 5, emu_check);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *has = true;
    else if (rc != SQLITE_DONE) err = gradedb_error(g, "looking up a run", SQL_HAS_RUN);
    sqlite3_finalize(st);
    return err;
}

/* A run present under the same emu_check is kept; one graded the other way
 * (with or without the emulator's second opinion) is replaced. */
static const char SQL_RUN_PUT[] =
    "INSERT INTO run (student, exercise, source_sha256, course_version, verdict, failure_kind, points,\n"
    "                 max_points, fast, duration_ms, kernel_ms, backend, message, result_json,\n"
    "                 graded_unix_ms, emu_check)\n"
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)\n"
    "ON CONFLICT (student, exercise, source_sha256, course_version) DO UPDATE SET\n"
    "    verdict = excluded.verdict, failure_kind = excluded.failure_kind, points = excluded.points,\n"
    "    max_points = excluded.max_points, fast = excluded.fast, duration_ms = excluded.duration_ms,\n"
    "    kernel_ms = excluded.kernel_ms, backend = excluded.backend, message = excluded.message,\n"
    "    result_json = excluded.result_json, graded_unix_ms = excluded.graded_unix_ms, emu_check = excluded.emu_check\n"
    "WHERE run.emu_check <> excluded.emu_check";

Diag *gradedb_record_run(GradeDb *g, const GradeRun *r, bool *inserted) {
    assert(r->student && r->exercise && r->course_version && r->verdict);
    if (inserted) *inserted = false;
    Diag *err = NULL;
    sqlite3_stmt *st = gradedb_prepare(g, SQL_RUN_PUT, &err);
    if (!st) return err;
    gradedb_bind_text(st, 1, r->student);
    gradedb_bind_text(st, 2, r->exercise);
    gradedb_bind_text(st, 3, r->source_sha256 ? r->source_sha256 : GRADEDB_NO_SOURCE);
    gradedb_bind_text(st, 4, r->course_version);
    gradedb_bind_text(st, 5, r->verdict);
    gradedb_bind_text(st, 6, r->failure_kind);
    sqlite3_bind_double(st, 7, r->points);
    sqlite3_bind_double(st, 8, r->max_points);
    sqlite3_bind_int(st, 9, r->fast);
    if (r->duration_ms >= 0) sqlite3_bind_double(st, 10, r->duration_ms);
    if (r->kernel_ms >= 0) sqlite3_bind_double(st, 11, r->kernel_ms);
    gradedb_bind_text(st, 12, r->backend);
    gradedb_bind_text(st, 13, r->message);
    gradedb_bind_text(st, 14, r->result_json);
    sqlite3_bind_int64(st, 15, r->graded_unix_ms ? r->graded_unix_ms : gradedb_now_unix_ms());
    sqlite3_bind_int(st, 16, r->emu_check);
    /* One statement in autocommit mode is one transaction. */
    if (sqlite3_step(st) != SQLITE_DONE) err = gradedb_error(g, "recording a run", SQL_RUN_PUT);
    else if (inserted) *inserted = sqlite3_changes(g->db) > 0;
    sqlite3_finalize(st);
    return err;
}

static const char SQL_STUDENTS[] = "SELECT student FROM submission ORDER BY student";

Diag *gradedb_students(GradeDb *g, char ***names, int *n) {
    *names = NULL;
    *n = 0;
    Diag *err = NULL;
    sqlite3_stmt *st = gradedb_prepare(g, SQL_STUDENTS, &err);
    if (!st) return err;
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *names = xrealloc(*names, (size_t)cap * sizeof **names);
        }
        (*names)[(*n)++] = gradedb_column_strdup(st, 0);
    }
    if (rc != SQLITE_DONE) err = gradedb_error(g, "listing the students", SQL_STUDENTS);
    sqlite3_finalize(st);
    return err;
}
