/* progress-db/gradedb_internal.h: what the grading database's .c files
 * share (gradedb.c: opening, schema, writes; gradedb_export.c: the
 * gradebook and merging). Private to progress-db/ (it includes sqlite3.h). */
#ifndef CUDOJO_PROGRESS_DB_GRADEDB_INTERNAL_H
#define CUDOJO_PROGRESS_DB_GRADEDB_INTERNAL_H

#include <sqlite3.h>

#include "progress-db/gradedb.h"

/* Several graders (shards on one node, a class report) may share the file. */
#define GRADEDB_BUSY_TIMEOUT_MS 30000

/* "cdjg": a cudojo grading database (a learner's progress.db is "cdjo"). */
#define GRADEDB_APPLICATION_ID 0x63646a67

/* The source hash a missing file is recorded under. */
#define GRADEDB_NO_SOURCE "missing"

struct GradeDb {
    sqlite3 *db;
    char *path;
    bool readonly;
};

/* A Diag naming the database, what failed, sqlite3_errmsg and the SQL. */
Diag *gradedb_error(const GradeDb *g, const char *what, const char *sql);
/* Prepares sql; NULL with *err set on failure. Caller finalizes. */
sqlite3_stmt *gradedb_prepare(GradeDb *g, const char *sql, Diag **err);
/* Runs a script of statements that return no rows we need. */
Diag *gradedb_exec(GradeDb *g, const char *what, const char *sql);
/* Binds text or NULL. */
int gradedb_bind_text(sqlite3_stmt *st, int idx, const char *text);
/* Column as a fresh string (NULL for SQL NULL); caller frees. */
char *gradedb_column_strdup(sqlite3_stmt *st, int col);
long long gradedb_now_unix_ms(void);

#endif
