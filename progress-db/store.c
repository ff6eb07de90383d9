/* progress-db/store.c: opening, checking, migrating and closing the
 * progress database.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

static const char SQL_USER_VERSION[] = "PRAGMA user_version";
/* One statement, so one snapshot: a cudojo creating the file meanwhile is
 * seen before or after its first migration, never half-way. */
static const char SQL_IDENTITY[] =
    "SELECT (SELECT user_version FROM pragma_user_version),\n"
    "       (SELECT application_id FROM pragma_application_id),\n"
    "       (SELECT count(*) FROM sqlite_schema)";
static const char SQL_QUICK_CHECK[] = "PRAGMA quick_check(5)";

static Diag *store_not_sqlite(const char *path) {
    return diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                    "progress database: this file is not an SQLite database, so it is not "
                    "cudojo's progress; not touching it (move it aside and cudojo will make "
                    "a fresh one)");
}

/* Whether a database with this identity is one we may open: ours (or a
 * new, empty file) and not from a newer cudojo. */
static Diag *store_judge_identity(const char *path, long long version, long long app_id, long long objects) {
    if (app_id != STORE_APPLICATION_ID && (app_id != 0 || version != 0 || objects != 0))
        return diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                        "progress database: this is another program's SQLite database "
                        "(application_id %lld, user_version %lld, %lld schema objects), not "
                        "cudojo's progress; not touching it",
                        app_id, version, objects);
    if (version > store_schema_latest())
        return diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                        "this progress database was written by a newer cudojo (schema %lld, we know "
                        "%d); not touching it. Update cudojo to use this workspace.",
                        version, store_schema_latest());
    return NULL;
}

static long long store_be32(const unsigned char *p) {
    return (long long)((unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3]);
}

/* Reads the 100-byte SQLite header (file format: magic string, user_version
 * at offset 60, application_id at 68). A file that is plainly not ours is
 * refused here, before SQLite opens it and leaves -wal/-shm files beside
 * it. The header can be older than a WAL not yet checkpointed, so
 * store_probe asks SQLite again. */
static Diag *store_check_header(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL; /* SQLite will say why it cannot open it */
    unsigned char h[100];
    size_t n = fread(h, 1, sizeof h, fp);
    fclose(fp);
    if (n == 0) return NULL; /* an empty file becomes a new database */
    if (n < sizeof h || memcmp(h, "SQLite format 3", 16) != 0) return store_not_sqlite(path);
    long long version = store_be32(h + 60), app_id = store_be32(h + 68);
    if (app_id >= 0x80000000LL) app_id -= 0x100000000LL; /* SQLite reports it signed */
    return store_judge_identity(path, version, app_id, 0);
}

/* The files SQLite adds beside a database while it is in use. */
static bool store_has_side_files(const char *path) {
    static const char *const side[] = {"-wal", "-shm", "-journal"};
    bool any = false;
    for (size_t i = 0; i < sizeof side / sizeof side[0] && !any; i++) {
        char *p = xasprintf("%s%s", path, side[i]);
        any = fs_exists(p);
        free(p);
    }
    return any;
}

/* store_readonly_uri: a read-only SQLite URI for path, immutable when asked: an immutable
 * connection takes no locks and creates no -wal/-shm files. Caller frees. */
char *store_readonly_uri(const char *path, bool immutable) {
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
            strbuf_append_char(&sb, (char)*p);
        else
            strbuf_printf(&sb, "%%%02X", *p);
    }
    strbuf_append(&sb, immutable ? "?mode=ro&immutable=1" : "?mode=ro");
    char *uri = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return uri;
}

static Diag *store_probe_with(const char *path, bool immutable);

/* Looks at an existing database through a read-only connection: SQLite,
 * ours, a schema we know, intact. NULL when it is safe to open for writing.
 * A database nobody has open (no -wal, -shm or -journal beside it) is read
 * immutably, so refusing it leaves its folder exactly as it was; when the
 * file changed meanwhile (another cudojo started writing), the verdict is
 * taken again through an ordinary read-only connection. */
static Diag *store_probe(const char *path) {
    Diag *err = store_check_header(path);
    if (err) return err;
    struct stat before, after;
    bool quiet = !store_has_side_files(path) && stat(path, &before) == 0;
    err = store_probe_with(path, quiet);
    if (!err || !quiet) return err;
    bool same = stat(path, &after) == 0 && !store_has_side_files(path) && after.st_ino == before.st_ino &&
                after.st_size == before.st_size && after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
                after.st_mtim.tv_nsec == before.st_mtim.tv_nsec;
    if (same) return err;
    diag_free(&err);
    return store_probe_with(path, false);
}

static Diag *store_probe_with(const char *path, bool immutable) {
    Diag *err = NULL;
    sqlite3 *db = NULL;
    char *uri = store_readonly_uri(path, immutable);
    int orc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (orc != SQLITE_OK) {
        err = store_db_error(db, path, "opening", NULL);
        sqlite3_close(db);
        return err;
    }
    sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
    long long version = 0, app_id = 0, objects = 0;
    sqlite3_stmt *id = NULL;
    if (sqlite3_prepare_v2(db, SQL_IDENTITY, -1, &id, NULL) != SQLITE_OK || sqlite3_step(id) != SQLITE_ROW) {
        err = (sqlite3_errcode(db) & 0xff) == SQLITE_NOTADB
                  ? store_not_sqlite(path)
                  : store_db_error(db, path, "reading the database", SQL_IDENTITY);
    } else {
        version = sqlite3_column_int64(id, 0);
        app_id = sqlite3_column_int64(id, 1);
        objects = sqlite3_column_int64(id, 2);
    }
    sqlite3_finalize(id);
    if (!err) err = store_judge_identity(path, version, app_id, objects);
    if (!err && objects > 0) {
        /* A damaged page is better found now than half-way through a write. */
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, SQL_QUICK_CHECK, -1, &st, NULL) != SQLITE_OK) {
            err = store_db_error(db, path, "checking the database", SQL_QUICK_CHECK);
        } else {
            StrBuf problems;
            strbuf_init(&problems);
            int rc;
            while ((rc = sqlite3_step(st)) == SQLITE_ROW)
                store_append_problems(&problems, (const char *)sqlite3_column_text(st, 0));
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
    /* Already WAL (every database but a new one): nothing to switch, no lock needed. */
    static const char SQL_MODE[] = "PRAGMA journal_mode";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, SQL_MODE, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
        Diag *err = store_error(s, "opening", SQL_MODE);
        sqlite3_finalize(st);
        return err;
    }
    bool wal = !strcmp((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    if (wal) return NULL;
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
    /* Up to date (the usual case): no write lock, so a command that only reads
       works while another program holds the lock. */
    long long current = -1;
    Diag *first = store_query_int(s->db, s->path, SQL_USER_VERSION, &current);
    if (first) return first;
    if (current == STORE_MIGRATION_COUNT) return NULL;
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
