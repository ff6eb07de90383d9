/* progress-db/store_queries.c: recording attempts and hints, and the status of an
 * exercise derived from them (attempts, first pass, best time, hints).
 *
 * Status is never stored, always computed: one aggregate over the covering
 * index attempts_by_exercise, so it cannot drift from the attempts. */
#include "progress-db/store_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#ifndef CUDOJO_VERSION
#define CUDOJO_VERSION "unknown" /* the Makefile defines it */
#endif

/* Makes sure the exercise has a row, and notes the definition it was seen
 * with: the first one stays, the last one follows curriculum updates. */
static const char SQL_UPSERT_EXERCISE[] =
    "INSERT INTO exercises (exercise_id, first_seen_unix_ms, last_seen_unix_ms,\n"
    "                       first_def_hash, last_def_hash)\n"
    "    VALUES (?1, ?2, ?2, ?3, ?3)\n"
    "ON CONFLICT (exercise_id) DO UPDATE SET\n"
    "    first_seen_unix_ms = min(first_seen_unix_ms, excluded.first_seen_unix_ms),\n"
    "    last_seen_unix_ms = max(last_seen_unix_ms, excluded.last_seen_unix_ms),\n"
    "    first_def_hash = coalesce(first_def_hash, excluded.first_def_hash),\n"
    "    last_def_hash = coalesce(excluded.last_def_hash, last_def_hash)";

static Diag *store_touch_exercise(Store *s, const char *exercise_id, const char *def_hash, long long when) {
    Diag *err = NULL;
    sqlite3_stmt *st = store_stmt(s, STMT_UPSERT_EXERCISE, SQL_UPSERT_EXERCISE, &err);
    if (!st) return err;
    store_bind_text(st, 1, exercise_id);
    sqlite3_bind_int64(st, 2, when);
    store_bind_text(st, 3, def_hash);
    if (sqlite3_step(st) != SQLITE_DONE) err = store_error(s, "recording the exercise", SQL_UPSERT_EXERCISE);
    store_stmt_done(st);
    return err;
}

/* A JSON column must hold JSON: export and the TUI parse it back. */
static Diag *store_check_json(const Store *s, const char *field, const char *text) {
    if (!text) return NULL;
    json_error_t jerr;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &jerr);
    if (j) {
        json_decref(j);
        return NULL;
    }
    return diag_new(DIAG_ERROR, "progress-db", s->path, 0, 0,
                    "progress database: the attempt's %s is not JSON (%s at line %d, column %d); "
                    "nothing was recorded",
                    field, jerr.text, jerr.line, jerr.column);
}

static const char SQL_INSERT_ATTEMPT[] =
    "INSERT INTO attempts (exercise_id, when_unix_ms, verdict, backend, duration_ms, kernel_ms,\n"
    "                      def_hash, source_hash, app_version,\n"
    "                      checks_json, metrics_json, diags_json, fast)\n"
    "    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";

Diag *store_record_attempt(Store *s, const Attempt *a, long long *attempt_id) {
    assert(s && a && a->exercise_id && a->exercise_id[0] && a->backend && a->verdict);
    Diag *err = store_check_json(s, "checks_json", a->checks_json);
    if (!err) err = store_check_json(s, "metrics_json", a->metrics_json);
    if (!err) err = store_check_json(s, "diags_json", a->diags_json);
    if (err) return err;

    long long when = a->when_unix_ms ? a->when_unix_ms : store_now_unix_ms();
    err = store_begin(s, true);
    if (err) return err;
    err = store_touch_exercise(s, a->exercise_id, a->def_hash, when);
    sqlite3_stmt *st = err ? NULL : store_stmt(s, STMT_INSERT_ATTEMPT, SQL_INSERT_ATTEMPT, &err);
    if (st) {
        store_bind_text(st, 1, a->exercise_id);
        sqlite3_bind_int64(st, 2, when);
        store_bind_text(st, 3, a->verdict);
        store_bind_text(st, 4, a->backend);
        sqlite3_bind_double(st, 5, a->duration_ms);
        if (a->kernel_ms >= 0) sqlite3_bind_double(st, 6, a->kernel_ms);
        store_bind_text(st, 7, a->def_hash);
        store_bind_text(st, 8, a->source_hash);
        store_bind_text(st, 9, CUDOJO_VERSION);
        store_bind_text(st, 10, a->checks_json);
        store_bind_text(st, 11, a->metrics_json);
        store_bind_text(st, 12, a->diags_json);
        sqlite3_bind_int(st, 13, a->fast && !strcmp(a->verdict, "pass"));
        if (sqlite3_step(st) != SQLITE_DONE) err = store_error(s, "recording the attempt", SQL_INSERT_ATTEMPT);
        else if (attempt_id) *attempt_id = sqlite3_last_insert_rowid(s->db);
        store_stmt_done(st);
    }
    if (!err) return store_commit(s);
    store_rollback(s);
    return err;
}

static const char SQL_UPSERT_HINT[] =
    "INSERT INTO hints (exercise_id, hint_index, first_unix_ms, last_unix_ms)\n"
    "    VALUES (?1, ?2, ?3, ?3)\n"
    "ON CONFLICT (exercise_id, hint_index) DO UPDATE SET\n"
    "    times = times + 1,\n"
    "    last_unix_ms = max(last_unix_ms, excluded.last_unix_ms)";

Diag *store_record_hint(Store *s, const char *exercise_id, int hint_index) {
    assert(s && exercise_id && exercise_id[0] && hint_index >= 0);
    long long now = store_now_unix_ms();
    Diag *err = store_begin(s, true);
    if (err) return err;
    err = store_touch_exercise(s, exercise_id, NULL, now);
    sqlite3_stmt *st = err ? NULL : store_stmt(s, STMT_UPSERT_HINT, SQL_UPSERT_HINT, &err);
    if (st) {
        store_bind_text(st, 1, exercise_id);
        sqlite3_bind_int(st, 2, hint_index);
        sqlite3_bind_int64(st, 3, now);
        if (sqlite3_step(st) != SQLITE_DONE) err = store_error(s, "recording the hint", SQL_UPSERT_HINT);
        store_stmt_done(st);
    }
    if (!err) return store_commit(s);
    store_rollback(s);
    return err;
}

static const char SQL_HINTS_TAKEN[] = "SELECT count(*) FROM hints WHERE exercise_id = ?1";

Diag *store_hints_taken(Store *s, const char *exercise_id, int *count) {
    assert(s && exercise_id && count);
    *count = 0;
    Diag *err = NULL;
    sqlite3_stmt *st = store_stmt(s, STMT_HINTS_TAKEN, SQL_HINTS_TAKEN, &err);
    if (!st) return err;
    store_bind_text(st, 1, exercise_id);
    if (sqlite3_step(st) == SQLITE_ROW) *count = sqlite3_column_int(st, 0);
    else err = store_error(s, "counting hints", SQL_HINTS_TAKEN);
    store_stmt_done(st);
    return err;
}

static const char SQL_HINTS_SEEN[] = "SELECT hint_index FROM hints WHERE exercise_id = ?1";

Diag *store_hints_seen(Store *s, const char *exercise_id, bool *seen, int n) {
    assert(s && exercise_id && (seen || n == 0));
    for (int i = 0; i < n; i++) seen[i] = false;
    Diag *err = NULL;
    sqlite3_stmt *st = store_stmt(s, STMT_HINTS_SEEN, SQL_HINTS_SEEN, &err);
    if (!st) return err;
    store_bind_text(st, 1, exercise_id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int i = sqlite3_column_int(st, 0);
        if (i >= 0 && i < n) seen[i] = true;
    }
    if (rc != SQLITE_DONE) err = store_error(s, "reading the hints taken", SQL_HINTS_SEEN);
    store_stmt_done(st);
    return err;
}

/* Fills a status from a row of SQL_STATUS_ONE / SQL_STATUS_ALL (same columns). */
static void store_read_status(sqlite3_stmt *st, ExerciseStatus *out) {
    out->exercise_id = store_column_strdup(st, 0);
    out->attempts = sqlite3_column_int(st, 1);
    out->passed = sqlite3_column_type(st, 2) != SQLITE_NULL;
    out->first_pass_unix_ms = sqlite3_column_int64(st, 2);
    out->best_kernel_ms = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1.0 : sqlite3_column_double(st, 3);
    out->last_unix_ms = sqlite3_column_int64(st, 4);
    out->time_spent_ms = sqlite3_column_double(st, 5);
    out->hints_taken = sqlite3_column_int(st, 6);
    out->last_verdict = store_column_strdup(st, 7);
    out->passed_fast = sqlite3_column_int(st, 8) != 0;
}

/* The columns store_read_status reads, shared by both status queries.
 * 'pass' is verdict_name(VERDICT_PASS); a test keeps the two in step. */
#define SQL_STATUS_SELECT \
    "SELECT e.exercise_id,\n" \
    "       count(a.id),\n" \
    "       min(CASE WHEN a.verdict = 'pass' THEN a.when_unix_ms END),\n" \
    "       min(CASE WHEN a.verdict = 'pass' THEN a.kernel_ms END),\n" \
    "       max(a.when_unix_ms),\n" \
    "       total(a.duration_ms),\n" \
    "       (SELECT count(*) FROM hints h WHERE h.exercise_id = e.exercise_id),\n" \
    "       (SELECT l.verdict FROM attempts l WHERE l.exercise_id = e.exercise_id\n" \
    "        ORDER BY l.when_unix_ms DESC, l.id DESC LIMIT 1),\n" \
    "       max(a.fast)\n" \
    "FROM exercises e LEFT JOIN attempts a ON a.exercise_id = e.exercise_id\n"

static const char SQL_STATUS_ONE[] =
    SQL_STATUS_SELECT
    "WHERE e.exercise_id = ?1\n"
    "GROUP BY e.exercise_id";

Diag *store_exercise_status(Store *s, const char *exercise_id, ExerciseStatus *out) {
    assert(s && exercise_id && out);
    memset(out, 0, sizeof *out);
    Diag *err = NULL;
    sqlite3_stmt *st = store_stmt(s, STMT_STATUS_ONE, SQL_STATUS_ONE, &err);
    if (!st) return err;
    store_bind_text(st, 1, exercise_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        store_read_status(st, out);
    } else if (rc == SQLITE_DONE) {
        out->exercise_id = xstrdup(exercise_id);
        out->best_kernel_ms = -1.0;
    } else {
        err = store_error(s, "reading the exercise's status", SQL_STATUS_ONE);
    }
    store_stmt_done(st);
    return err;
}

static const char SQL_STATUS_ALL[] =
    SQL_STATUS_SELECT
    "GROUP BY e.exercise_id\n"
    "ORDER BY e.exercise_id";

Diag *store_all_status(Store *s, ExerciseStatus **out, int *n) {
    assert(s && out && n);
    *out = NULL;
    *n = 0;
    Diag *err = NULL;
    sqlite3_stmt *st = store_stmt(s, STMT_STATUS_ALL, SQL_STATUS_ALL, &err);
    if (!st) return err;
    ExerciseStatus *arr = NULL;
    int len = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (len == cap) {
            cap = cap ? cap * 2 : 16;
            arr = xrealloc(arr, (size_t)cap * sizeof *arr);
        }
        memset(&arr[len], 0, sizeof arr[len]);
        store_read_status(st, &arr[len++]);
    }
    if (rc != SQLITE_DONE) {
        err = store_error(s, "reading the status of every exercise", SQL_STATUS_ALL);
        exercise_status_free_array(&arr, len);
        len = 0;
    }
    store_stmt_done(st);
    *out = arr;
    *n = len;
    return err;
}

void exercise_status_fini(ExerciseStatus *st) {
    if (!st) return;
    free(st->exercise_id);
    free(st->last_verdict);
    memset(st, 0, sizeof *st);
}

void exercise_status_free_array(ExerciseStatus **arr, int n) {
    if (!*arr) return;
    for (int i = 0; i < n; i++) exercise_status_fini(&(*arr)[i]);
    free(*arr);
    *arr = NULL;
}
