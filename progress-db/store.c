/* progress-db/store.c: opening, checking and migrating the progress
 * database, and the helpers every query shares (statement cache,
 * transactions, error messages).
 *
 * Opening is done in two steps. First a read-only connection looks at an
 * existing file: is it SQLite, is it ours, is its schema one we know, is it
 * intact? Only when every answer is yes does a read-write connection switch
 * it to WAL and run the missing migrations. A read-only connection never
 * writes the file nor checkpoints a WAL into it, so a database we refuse
 * keeps every byte it had. */
#include "progress-db/store_internal.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/fs.h"
#include "base/xalloc.h"

/* Waiting for another cudojo (TUI and a `cudojo run` in a second terminal)
 * to finish its write is normal; 5 s without progress is not. */
#define STORE_BUSY_TIMEOUT_MS 5000

long long store_now_unix_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int store_bind_text(sqlite3_stmt *st, int idx, const char *text) {
    if (!text) return sqlite3_bind_null(st, idx);
    return sqlite3_bind_text(st, idx, text, -1, SQLITE_TRANSIENT);
}

char *store_column_strdup(sqlite3_stmt *st, int col) {
    if (sqlite3_column_type(st, col) == SQLITE_NULL) return NULL;
    return xstrdup((const char *)sqlite3_column_text(st, col));
}

/* What a learner can do about a file SQLite cannot read. */
static const char *store_advice(int errcode) {
    switch (errcode & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return "; cudojo will not modify it: move it aside to start a fresh progress "
               "database (or try `sqlite3 FILE .recover`)";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return "; another cudojo is writing to it, try again";
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
        return "; check that the file and its folder are writable";
    case SQLITE_FULL:
        return "; the disk is full";
    default:
        return "";
    }
}

static Diag *store_db_error(sqlite3 *db, const char *path, const char *what, const char *sql) {
    int code = db ? sqlite3_extended_errcode(db) : SQLITE_NOMEM;
    const char *msg = db ? sqlite3_errmsg(db) : "out of memory";
    Diag *d = diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                       "progress database: %s failed: %s%s (SQL: %s)", what, msg,
                       store_advice(code), sql ? sql : "none");
    return d;
}

Diag *store_error(const Store *s, const char *what, const char *sql) {
    return store_db_error(s->db, s->path, what, sql);
}

sqlite3_stmt *store_stmt(Store *s, StmtId id, const char *sql, Diag **err) {
    assert(id >= 0 && id < STMT_COUNT);
    sqlite3_stmt *st = s->stmts[id];
    if (!st) {
        if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
            *err = store_error(s, "preparing a query", sql);
            return NULL;
        }
        s->stmts[id] = st;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return st;
}

void store_stmt_done(sqlite3_stmt *st) {
    if (!st) return;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* Runs a statement that returns no rows we need. */
static Diag *store_step_stmt(Store *s, StmtId id, const char *sql, const char *what) {
    Diag *err = NULL;
    sqlite3_stmt *st = store_stmt(s, id, sql, &err);
    if (!st) return err;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) err = store_error(s, what, sql);
    store_stmt_done(st);
    return err;
}

static const char SQL_BEGIN[] = "BEGIN";
static const char SQL_BEGIN_IMMEDIATE[] = "BEGIN IMMEDIATE";

Diag *store_begin(Store *s, bool immediate) {
    return immediate ? store_step_stmt(s, STMT_BEGIN_IMMEDIATE, SQL_BEGIN_IMMEDIATE, "starting a write")
                     : store_step_stmt(s, STMT_BEGIN, SQL_BEGIN, "starting a read");
}

static const char SQL_COMMIT[] = "COMMIT";

Diag *store_commit(Store *s) {
    Diag *err = store_step_stmt(s, STMT_COMMIT, SQL_COMMIT, "committing");
    if (err) store_rollback(s);
    return err;
}

static const char SQL_ROLLBACK[] = "ROLLBACK";

void store_rollback(Store *s) {
    /* Nothing useful to report: either the transaction is undone, or SQLite
     * already undid it when the error that brought us here happened. */
    if (sqlite3_get_autocommit(s->db)) return;
    Diag *err = store_step_stmt(s, STMT_ROLLBACK, SQL_ROLLBACK, "rolling back");
    diag_free(&err);
}

/* Runs every statement of a script (a migration, the connection's pragmas);
 * on failure the Diag quotes the one statement that failed. */
static Diag *store_exec_script(sqlite3 *db, const char *path, const char *what, const char *sql) {
    const char *next = sql;
    while (next && *next) {
        sqlite3_stmt *st = NULL;
        const char *tail = NULL;
        if (sqlite3_prepare_v2(db, next, -1, &st, &tail) != SQLITE_OK)
            return store_db_error(db, path, what, next);
        if (!st) break; /* only whitespace or comments left */
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {}
        if (rc != SQLITE_DONE) {
            Diag *d = store_db_error(db, path, what, sqlite3_sql(st));
            sqlite3_finalize(st);
            return d;
        }
        sqlite3_finalize(st);
        next = tail;
    }
    return NULL;
}

/* Reads one integer pragma or a single-value query. */
static Diag *store_query_int(sqlite3 *db, const char *path, const char *sql, long long *out) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return store_db_error(db, path, "reading the database", sql);
    Diag *err = NULL;
    if (sqlite3_step(st) == SQLITE_ROW) *out = sqlite3_column_int64(st, 0);
    else err = store_db_error(db, path, "reading the database", sql);
    sqlite3_finalize(st);
    return err;
}

static const char SQL_USER_VERSION[] = "PRAGMA user_version";
/* One statement, so one snapshot: a cudojo creating the file meanwhile is
 * seen before or after its first migration, never half-way. */
static const char SQL_IDENTITY[] =
    "SELECT (SELECT user_version FROM pragma_user_version),\n"
    "       (SELECT application_id FROM pragma_application_id),\n"
    "       (SELECT count(*) FROM sqlite_schema)";
static const char SQL_QUICK_CHECK[] = "PRAGMA quick_check(5)";

/* Appends the lines of a quick_check/integrity_check row to sb, "; "
 * separated, leaving out "ok" and SQLite's "*** in database main ***". */
static void store_append_problems(StrBuf *sb, const char *text) {
    while (text && *text) {
        size_t n = strcspn(text, "\n");
        bool skip = (n == 2 && strncmp(text, "ok", 2) == 0) || (n > 0 && text[0] == '*');
        if (n > 0 && !skip) {
            if (sb->len) strbuf_append(sb, "; ");
            strbuf_append_n(sb, text, n);
        }
        text += n;
        if (*text == '\n') text++;
    }
}

/* Looks at an existing database through a read-only connection: SQLite,
 * ours, a schema we know, intact. NULL when it is safe to open for writing. */
static Diag *store_probe(const char *path) {
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        Diag *d = store_db_error(db, path, "opening", NULL);
        sqlite3_close(db);
        return d;
    }
    sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
    long long version = 0, app_id = 0, objects = 0;
    Diag *err = NULL;
    sqlite3_stmt *id = NULL;
    if (sqlite3_prepare_v2(db, SQL_IDENTITY, -1, &id, NULL) != SQLITE_OK || sqlite3_step(id) != SQLITE_ROW) {
        err = store_db_error(db, path, "reading the database", SQL_IDENTITY);
    } else {
        version = sqlite3_column_int64(id, 0);
        app_id = sqlite3_column_int64(id, 1);
        objects = sqlite3_column_int64(id, 2);
    }
    sqlite3_finalize(id);
    if (err) {
        if ((sqlite3_errcode(db) & 0xff) == SQLITE_NOTADB) {
            diag_free(&err);
            err = diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                           "progress database: this file is not an SQLite database, so it is not "
                           "cudojo's progress; not touching it (move it aside and cudojo will make "
                           "a fresh one)");
        }
    } else if (app_id != STORE_APPLICATION_ID && (app_id != 0 || version != 0 || objects != 0)) {
        err = diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                       "progress database: this is another program's SQLite database "
                       "(application_id %lld, user_version %lld, %lld schema objects), not "
                       "cudojo's progress; not touching it",
                       app_id, version, objects);
    } else if (version > store_schema_latest()) {
        err = diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                       "this progress database was written by a newer cudojo (schema %lld, we know %d); "
                       "not touching it. Update cudojo to use this workspace.",
                       version, store_schema_latest());
    } else if (objects > 0) {
        /* A damaged page is better found now than half-way through a write. */
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, SQL_QUICK_CHECK, -1, &st, NULL) != SQLITE_OK) {
            err = store_db_error(db, path, "checking the database", SQL_QUICK_CHECK);
        } else {
            StrBuf problems;
            strbuf_init(&problems);
            int rc;
            while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                store_append_problems(&problems, (const char *)sqlite3_column_text(st, 0));
            }
            if (rc != SQLITE_DONE)
                err = store_db_error(db, path, "checking the database", SQL_QUICK_CHECK);
            else if (problems.len)
                err = diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                               "progress database: the file is damaged (%s)%s", problems.data,
                               store_advice(SQLITE_CORRUPT));
            strbuf_fini(&problems);
            sqlite3_finalize(st);
        }
    }
    sqlite3_close(db);
    return err;
}

/* WAL lets the TUI read while a run records. */
static const char SQL_WAL[] = "PRAGMA journal_mode = WAL";

/* Switching a new file to WAL needs it to ourselves for a moment. When
 * several cudojo start on a new workspace together, SQLite answers "busy"
 * at once rather than wait (two readers both wanting to write could
 * deadlock), so we wait here, as the busy timeout would. If the file system
 * cannot do WAL the database stays in rollback-journal mode, which is just
 * as crash-safe, only with less concurrency. */
static Diag *store_set_wal(Store *s) {
    for (int waited_ms = 0;; waited_ms += 10) {
        int rc = sqlite3_exec(s->db, SQL_WAL, NULL, NULL, NULL);
        if (rc == SQLITE_OK) return NULL;
        if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= STORE_BUSY_TIMEOUT_MS)
            return store_error(s, "switching to WAL mode", SQL_WAL);
        struct timespec ten_ms = {0, 10 * 1000 * 1000};
        nanosleep(&ten_ms, NULL);
    }
}

/* A full sync on each commit means a committed attempt survives a power
 * cut too, not only a killed process (one fsync per run is cheap). */
static const char SQL_CONNECTION[] =
    "PRAGMA synchronous = FULL;\n"
    "PRAGMA foreign_keys = ON;\n";

/* Runs the migrations the database lacks, one transaction each. The version
 * is read again under the write lock: another cudojo may have migrated
 * while we waited for it. */
static Diag *store_migrate(Store *s) {
    for (;;) {
        Diag *err = store_exec_script(s->db, s->path, "starting a migration", "BEGIN IMMEDIATE");
        if (err) return err;
        long long version = 0;
        err = store_query_int(s->db, s->path, SQL_USER_VERSION, &version);
        if (!err && version > STORE_MIGRATION_COUNT)
            err = diag_new(DIAG_ERROR, "progress-db", s->path, 0, 0,
                           "this progress database was written by a newer cudojo (schema %lld, we "
                           "know %d); not touching it",
                           version, STORE_MIGRATION_COUNT);
        if (!err && version == STORE_MIGRATION_COUNT) {
            return store_exec_script(s->db, s->path, "finishing the migrations", "COMMIT");
        }
        if (!err) {
            char *what = xasprintf("migrating the schema from version %lld to %lld", version, version + 1);
            err = store_exec_script(s->db, s->path, what, STORE_MIGRATIONS[version]);
            if (!err) {
                char *bump = xasprintf("PRAGMA user_version = %lld", version + 1);
                err = store_exec_script(s->db, s->path, what, bump);
                free(bump);
            }
            if (!err) err = store_exec_script(s->db, s->path, what, "COMMIT");
            free(what);
        }
        if (err) {
            if (!sqlite3_get_autocommit(s->db)) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            return err;
        }
    }
}

static const char SQL_META[] = "SELECT key, value FROM meta WHERE key IN ('workspace_uuid', 'created_unix_ms')";

static Diag *store_load_meta(Store *s) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, SQL_META, -1, &st, NULL) != SQLITE_OK)
        return store_error(s, "reading the workspace identity", SQL_META);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *key = (const char *)sqlite3_column_text(st, 0);
        if (strcmp(key, "workspace_uuid") == 0) {
            free(s->workspace_uuid);
            s->workspace_uuid = store_column_strdup(st, 1);
        } else {
            s->created_unix_ms = sqlite3_column_int64(st, 1);
        }
    }
    Diag *err = rc == SQLITE_DONE ? NULL : store_error(s, "reading the workspace identity", SQL_META);
    sqlite3_finalize(st);
    if (!err && !s->workspace_uuid) s->workspace_uuid = xstrdup("");
    return err;
}

Diag *store_open(const char *path, Store **out) {
    assert(path && out);
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) == 0) {
        Diag *err = store_probe(path);
        if (err) return err;
    } else if (errno == ENOENT) {
        char *dir = path_dirname(path);
        bool ok = fs_is_dir(dir);
        Diag *err = ok ? NULL
                       : diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                                  "progress database: cannot create it, the folder %s does not exist",
                                  dir);
        free(dir);
        if (err) return err;
    }

    Store *s = xcalloc(1, sizeof *s);
    s->path = xstrdup(path);
    s->created_unix_ms = 0;
    Diag *err = NULL;
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        err = store_error(s, "opening", NULL);
    if (!err) {
        sqlite3_extended_result_codes(s->db, 1);
        sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
        err = store_set_wal(s);
        if (!err) err = store_exec_script(s->db, path, "setting up the connection", SQL_CONNECTION);
    }
    if (!err) err = store_migrate(s);
    if (!err) err = store_load_meta(s);
    if (err) {
        store_close(&s);
        return err;
    }
    *out = s;
    return NULL;
}

void store_close(Store **sp) {
    Store *s = *sp;
    if (!s) return;
    for (int i = 0; i < STMT_COUNT; i++) sqlite3_finalize(s->stmts[i]);
    if (s->db) {
        int rc = sqlite3_close(s->db);
        assert(rc == SQLITE_OK); /* every statement is finalized above */
        (void)rc;
    }
    free(s->path);
    free(s->workspace_uuid);
    free(s);
    *sp = NULL;
}

int store_schema_latest(void) { return STORE_MIGRATION_COUNT; }

int store_schema_version(Store *s) {
    long long v = -1;
    Diag *err = store_query_int(s->db, s->path, SQL_USER_VERSION, &v);
    diag_free(&err);
    return (int)v;
}

const char *store_workspace_uuid(const Store *s) { return s->workspace_uuid; }

long long store_created_unix_ms(const Store *s) { return s->created_unix_ms; }

static const char SQL_INTEGRITY[] = "PRAGMA integrity_check(10)";

Diag *store_check_integrity(Store *s) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, SQL_INTEGRITY, -1, &st, NULL) != SQLITE_OK)
        return store_error(s, "checking integrity", SQL_INTEGRITY);
    StrBuf problems;
    strbuf_init(&problems);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) store_append_problems(&problems, (const char *)sqlite3_column_text(st, 0));
    Diag *err = NULL;
    if (rc != SQLITE_DONE) err = store_error(s, "checking integrity", SQL_INTEGRITY);
    else if (problems.len)
        err = diag_new(DIAG_ERROR, "progress-db", s->path, 0, 0, "progress database: the file is damaged (%s)%s",
                       problems.data, store_advice(SQLITE_CORRUPT));
    strbuf_fini(&problems);
    sqlite3_finalize(st);
    return err;
}
