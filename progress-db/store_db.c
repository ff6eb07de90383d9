/* progress-db/store_db.c: the helpers every store file shares: the cache of
 * prepared statements, transactions, running scripts, and error messages
 * that name the database, say what failed, quote sqlite3_errmsg and the
 * SQL, and tell the learner what they can do about it. */
#include "progress-db/store_internal.h"

#include <assert.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"

long long store_now_unix_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int store_bind_text(sqlite3_stmt *st, int idx, const char *text) {
    /* a wrong index only makes SQLite answer SQLITE_RANGE, which callers ignore */
    assert(st && idx >= 1 && idx <= sqlite3_bind_parameter_count(st));
    if (!text) return sqlite3_bind_null(st, idx);
    return sqlite3_bind_text(st, idx, text, -1, SQLITE_TRANSIENT);
}

char *store_column_strdup(sqlite3_stmt *st, int col) {
    assert(st && col >= 0 && col < sqlite3_column_count(st));   /* else SQLite answers NULL */
    if (sqlite3_column_type(st, col) == SQLITE_NULL) return NULL;
    return xstrdup((const char *)sqlite3_column_text(st, col));
}

/* What a learner can do about a file SQLite cannot read. */
const char *store_advice(int errcode) {
    switch (errcode & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return "; cudojo will not modify it: move it aside, with its -wal and -shm files if "
               "any, to start a fresh progress database (or try `sqlite3 FILE .recover`)";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return "; another cudojo is writing to it, try again";
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
        return "; check that the file and its folder are writable";
    case SQLITE_FULL:
        return "; free some space on its disk and try again";
    default:
        return "";
    }
}

/* Whether p names the database or one of its -wal, -shm or -journal files. */
static bool store_is_db_file(const char *p, const char *db) {
    size_t n = strlen(db);
    if (strncmp(p, db, n) != 0) return false;
    return !p[n] || !strcmp(p + n, "-wal") || !strcmp(p + n, "-shm") || !strcmp(p + n, "-journal");
}

char *store_lock_holders(const char *path) {
    char real[PATH_MAX];
    if (!realpath(path, real)) return NULL;
    DIR *proc = opendir("/proc");
    if (!proc) return NULL;
    StrBuf sb;
    strbuf_init(&sb);
    int found = 0;
    long self = (long)getpid();
    struct dirent *pe;
    while ((pe = readdir(proc)) && found < 5) {
        char *end;
        long pid = strtol(pe->d_name, &end, 10);
        if (*end || pid <= 0 || pid == self) continue;
        char fddir[64];
        snprintf(fddir, sizeof fddir, "/proc/%ld/fd", pid);
        DIR *fds = opendir(fddir);
        if (!fds) continue;   /* another user's process: we cannot tell */
        bool holds = false;
        struct dirent *fe;
        while (!holds && (fe = readdir(fds))) {
            char link[384], target[PATH_MAX];
            snprintf(link, sizeof link, "%s/%s", fddir, fe->d_name);
            ssize_t n = readlink(link, target, sizeof target - 1);
            if (n <= 0) continue;
            target[n] = '\0';
            holds = store_is_db_file(target, real);
        }
        closedir(fds);
        if (!holds) continue;
        char comm_path[64], comm[64] = "?";
        snprintf(comm_path, sizeof comm_path, "/proc/%ld/comm", pid);
        FILE *f = fopen(comm_path, "r");
        if (f) {
            if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = '\0';
            fclose(f);
        }
        strbuf_printf(&sb, "%s%s (pid %ld)", found ? ", " : "", comm, pid);
        found++;
    }
    closedir(proc);
    if (!found) {
        strbuf_fini(&sb);
        return NULL;
    }
    char *r = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return r;
}

/* Whether the file system holding path has no room left (an I/O error
 * there is then the full disk, whatever SQLite calls it). */
static bool store_disk_full(const char *path) {
    char *dir = path_dirname(path);
    struct statvfs v;
    bool full = statvfs(dir, &v) == 0 && (unsigned long long)v.f_bavail * v.f_frsize < 64 * 1024;
    free(dir);
    return full;
}

Diag *store_db_error(sqlite3 *db, const char *path, const char *what, const char *sql) {
    int code = db ? sqlite3_extended_errcode(db) : SQLITE_NOMEM;
    const char *msg = db ? sqlite3_errmsg(db) : "out of memory";
    int primary = code & 0xff;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
        /* Said in words, without our step's name: `list` is not "starting a migration". */
        char *who = store_lock_holders(path);
        Diag *d = diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                           "progress database is busy: another program has held its lock for more than %d s "
                           "(%s). Close it or let it finish, then try again.",
                           STORE_BUSY_TIMEOUT_MS / 1000,
                           who ? who : "probably another cudojo window or an sqlite3 shell on this file");
        free(who);
        return d;
    }
    if ((primary == SQLITE_FULL || primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN) && store_disk_full(path)) {
        char *dir = path_dirname(path);
        Diag *d = diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                           "progress database: the disk holding %s is full, so %s failed. Free some space "
                           "there and try again; nothing was lost.",
                           dir, what);
        free(dir);
        return d;
    }
    Diag *d = diag_new(DIAG_ERROR, "progress-db", path, 0, 0,
                       "progress database: %s failed: %s%s (SQL: %s)", what, msg,
                       store_advice(code), sql ? sql : "none");
    return d;
}

Diag *store_error(const Store *s, const char *what, const char *sql) {
    return store_db_error(s->db, s->path, what, sql);
}

sqlite3_stmt *store_stmt(Store *s, StmtId id, const char *sql, Diag **err) {
    assert(s && s->db && id >= 0 && id < STMT_COUNT);
    sqlite3_stmt *st = s->stmts[id];
    /* one slot, one query: a slot reused for other SQL would run the wrong statement */
    assert(!st || !strcmp(sqlite3_sql(st), sql));
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
Diag *store_exec_script(sqlite3 *db, const char *path, const char *what, const char *sql) {
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
Diag *store_query_int(sqlite3 *db, const char *path, const char *sql, long long *out) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return store_db_error(db, path, "reading the database", sql);
    Diag *err = NULL;
    if (sqlite3_step(st) == SQLITE_ROW) *out = sqlite3_column_int64(st, 0);
    else err = store_db_error(db, path, "reading the database", sql);
    sqlite3_finalize(st);
    return err;
}

/* Appends the lines of a quick_check/integrity_check row to sb, "; "
 * separated, leaving out "ok" and SQLite's "*** in database main ***". */
void store_append_problems(StrBuf *sb, const char *text) {
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
