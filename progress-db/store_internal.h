/* progress-db/store_internal.h: what the store's .c files share: the Store
 * itself, the cache of prepared statements, transactions and error messages.
 * Private to progress-db/ (it includes sqlite3.h). */
#ifndef CUDOJO_PROGRESS_DB_STORE_INTERNAL_H
#define CUDOJO_PROGRESS_DB_STORE_INTERNAL_H

#include <sqlite3.h>

#include "progress-db/store.h"

/* Waiting for another cudojo (TUI and a `cudojo run` in a second terminal)
 * to finish its write is normal; 5 s without progress is not. */
#define STORE_BUSY_TIMEOUT_MS 5000

/* "cdjo": marks a database as ours (PRAGMA application_id), so we never
 * migrate some other program's SQLite file that happens to be at our path. */
#define STORE_APPLICATION_ID 0x63646a6f

/* One slot per query the store runs more than once. Each is prepared the
 * first time it is used, kept for the life of the Store, finalized on close. */
typedef enum StmtId {
    STMT_BEGIN,
    STMT_BEGIN_IMMEDIATE,
    STMT_COMMIT,
    STMT_ROLLBACK,
    STMT_UPSERT_EXERCISE,
    STMT_INSERT_ATTEMPT,
    STMT_UPSERT_HINT,
    STMT_HINTS_TAKEN,
    STMT_HINTS_SEEN,
    STMT_STATUS_ONE,
    STMT_STATUS_ALL,
    STMT_ATTEMPTS,
    STMT_EXERCISES,
    STMT_HINT_INDICES,
    STMT_COUNT
} StmtId;

struct Store {
    sqlite3 *db;
    char *path;                       /* as given to store_open */
    char *workspace_uuid;
    long long created_unix_ms;
    sqlite3_stmt *stmts[STMT_COUNT];
};

/* The schema: migrations[i] takes user_version i to i + 1 (store_migrations.c). */
extern const char *const STORE_MIGRATIONS[];
extern const int STORE_MIGRATION_COUNT;

/* The cached statement for id (prepared from sql on first use), reset and
 * with no bindings; NULL with *err set when preparing fails. */
sqlite3_stmt *store_stmt(Store *s, StmtId id, const char *sql, Diag **err);
/* Resets a statement after use so it holds no read snapshot. */
void store_stmt_done(sqlite3_stmt *st);
/* A Diag naming the database, what failed, sqlite3_errmsg and the SQL. */
Diag *store_error(const Store *s, const char *what, const char *sql);
/* Transactions; immediate takes the write lock up front (waiting up to the
 * busy timeout), so a writer never fails half-way for a lock. */
Diag *store_begin(Store *s, bool immediate);
Diag *store_commit(Store *s);
void store_rollback(Store *s);

/* The same for a bare connection (before a Store exists); path names the file. */
Diag *store_db_error(sqlite3 *db, const char *path, const char *what, const char *sql);
/* What a learner can do about an error code ("; move it aside..."), or "". */
const char *store_advice(int errcode);
/* Who else has the database (or its -wal/-shm) open, as "comm (pid N), ...";
 * NULL when nobody we can see does. Caller frees. */
char *store_lock_holders(const char *path);
/* Runs every statement of a script; a failure quotes the failing statement. */
Diag *store_exec_script(sqlite3 *db, const char *path, const char *what, const char *sql);
/* The first column of the first row of a query. */
Diag *store_query_int(sqlite3 *db, const char *path, const char *sql, long long *out);
/* Appends the problem lines of a quick_check/integrity_check row to sb. */
void store_append_problems(StrBuf *sb, const char *text);

/* A read-only SQLite URI for path ("file:...?mode=ro", plus "&immutable=1"
 * when asked: no locks, no -wal/-shm made). Caller frees. */
char *store_readonly_uri(const char *path, bool immutable);

/* Binds text or NULL. */
int store_bind_text(sqlite3_stmt *st, int idx, const char *text);
/* Column as a fresh string (NULL for SQL NULL); caller frees. */
char *store_column_strdup(sqlite3_stmt *st, int col);
/* Wall-clock time, Unix ms. */
long long store_now_unix_ms(void);

#endif
