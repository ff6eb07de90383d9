/* progress-db/store_export.c: the store as JSON: an exercise's recent attempts
 * (`cudojo progress --json`, the TUI's history) and the whole store for an
 * instructor's gradebook. The shapes are documented in store.h; keys are
 * only ever added, so old graders keep reading new exports. */
#include "progress-db/store_internal.h"

#include <assert.h>
#include <stdlib.h>

#include "base/bytes.h"
#include "base/xalloc.h"

/* Bumped only if a key changes meaning or goes away. */
#define STORE_EXPORT_FORMAT_VERSION 1

json_t *exercise_status_to_json(const ExerciseStatus *st) {
    json_t *o = json_object();
    json_object_set_new(o, "id", bytes_to_json(st->exercise_id ? st->exercise_id : ""));
    json_object_set_new(o, "attempts", json_integer(st->attempts));
    json_object_set_new(o, "passed", json_boolean(st->passed));
    json_object_set_new(o, "passed_fast", json_boolean(st->passed_fast));
    json_object_set_new(o, "first_pass_unix_ms", st->passed ? json_integer(st->first_pass_unix_ms) : json_null());
    json_object_set_new(o, "best_kernel_ms", st->best_kernel_ms >= 0 ? json_real(st->best_kernel_ms) : json_null());
    json_object_set_new(o, "last_verdict", st->last_verdict ? bytes_to_json(st->last_verdict) : json_null());
    json_object_set_new(o, "last_unix_ms", st->attempts ? json_integer(st->last_unix_ms) : json_null());
    json_object_set_new(o, "hints_taken", json_integer(st->hints_taken));
    json_object_set_new(o, "time_spent_ms", json_real(st->time_spent_ms));
    return o;
}

/* A text column as JSON: the stored value parsed back, null when absent,
 * the raw text as a string if someone stored something that is not JSON. */
static json_t *store_column_json(sqlite3_stmt *st, int col) {
    if (sqlite3_column_type(st, col) == SQLITE_NULL) return json_null();
    const char *text = (const char *)sqlite3_column_text(st, col);
    json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
    return j ? j : bytes_to_json(text);
}

static json_t *store_column_string(sqlite3_stmt *st, int col) {
    if (sqlite3_column_type(st, col) == SQLITE_NULL) return json_null();
    return bytes_to_json((const char *)sqlite3_column_text(st, col));   /* ids, hashes: any bytes */
}

/* Newest first; the index attempts_by_exercise gives this order. */
static const char SQL_ATTEMPTS[] =
    "SELECT id, exercise_id, when_unix_ms, verdict, backend, duration_ms, kernel_ms,\n"
    "       def_hash, source_hash, app_version, checks_json, metrics_json, diags_json, fast\n"
    "FROM attempts WHERE exercise_id = ?1\n"
    "ORDER BY when_unix_ms DESC, id DESC\n"
    "LIMIT ?2";

Diag *store_attempts_json(Store *s, const char *exercise_id, int limit, json_t **out) {
    assert(s && exercise_id && out);
    *out = NULL;
    Diag *err = NULL;
    sqlite3_stmt *st = store_stmt(s, STMT_ATTEMPTS, SQL_ATTEMPTS, &err);
    if (!st) return err;
    store_bind_text(st, 1, exercise_id);
    sqlite3_bind_int(st, 2, limit > 0 ? limit : -1);
    json_t *arr = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = json_object();
        json_object_set_new(o, "id", json_integer(sqlite3_column_int64(st, 0)));
        json_object_set_new(o, "exercise", store_column_string(st, 1));
        json_object_set_new(o, "when_unix_ms", json_integer(sqlite3_column_int64(st, 2)));
        json_object_set_new(o, "verdict", store_column_string(st, 3));
        json_object_set_new(o, "backend", store_column_string(st, 4));
        json_object_set_new(o, "duration_ms", json_real(sqlite3_column_double(st, 5)));
        json_object_set_new(o, "kernel_ms",
                            sqlite3_column_type(st, 6) == SQLITE_NULL ? json_null()
                                                                      : json_real(sqlite3_column_double(st, 6)));
        json_object_set_new(o, "def_hash", store_column_string(st, 7));
        json_object_set_new(o, "source_hash", store_column_string(st, 8));
        json_object_set_new(o, "app_version", store_column_string(st, 9));
        json_object_set_new(o, "checks", store_column_json(st, 10));
        json_object_set_new(o, "metrics", store_column_json(st, 11));
        json_object_set_new(o, "diags", store_column_json(st, 12));
        json_object_set_new(o, "fast", json_boolean(sqlite3_column_int(st, 13) != 0));
        json_array_append_new(arr, o);
    }
    if (rc != SQLITE_DONE) {
        err = store_error(s, "reading the attempts", SQL_ATTEMPTS);
        json_decref(arr);
        arr = NULL;
    }
    store_stmt_done(st);
    *out = arr;
    return err;
}

static const char SQL_EXERCISES[] =
    "SELECT first_seen_unix_ms, last_seen_unix_ms, first_def_hash, last_def_hash\n"
    "FROM exercises WHERE exercise_id = ?1";

/* Adds the exercise's first/last seen times and definition hashes to o. */
static Diag *store_exercise_history(Store *s, const char *exercise_id, json_t *o) {
    Diag *err = NULL;
    sqlite3_stmt *st = store_stmt(s, STMT_EXERCISES, SQL_EXERCISES, &err);
    if (!st) return err;
    store_bind_text(st, 1, exercise_id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        json_object_set_new(o, "first_seen_unix_ms", json_integer(sqlite3_column_int64(st, 0)));
        json_object_set_new(o, "last_seen_unix_ms", json_integer(sqlite3_column_int64(st, 1)));
        json_object_set_new(o, "first_def_hash", store_column_string(st, 2));
        json_object_set_new(o, "last_def_hash", store_column_string(st, 3));
    } else {
        err = store_error(s, "reading the exercise", SQL_EXERCISES);
    }
    store_stmt_done(st);
    return err;
}

static const char SQL_HINT_INDICES[] =
    "SELECT hint_index FROM hints WHERE exercise_id = ?1 ORDER BY hint_index";

static Diag *store_hint_indices(Store *s, const char *exercise_id, json_t **out) {
    *out = NULL;
    Diag *err = NULL;
    sqlite3_stmt *st = store_stmt(s, STMT_HINT_INDICES, SQL_HINT_INDICES, &err);
    if (!st) return err;
    store_bind_text(st, 1, exercise_id);
    json_t *arr = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) json_array_append_new(arr, json_integer(sqlite3_column_int(st, 0)));
    if (rc != SQLITE_DONE) {
        err = store_error(s, "reading the hints", SQL_HINT_INDICES);
        json_decref(arr);
        arr = NULL;
    }
    store_stmt_done(st);
    *out = arr;
    return err;
}

static Diag *store_export_exercises(Store *s, json_t *list) {
    ExerciseStatus *all = NULL;
    int n = 0;
    Diag *err = store_all_status(s, &all, &n);
    for (int i = 0; !err && i < n; i++) {
        json_t *o = exercise_status_to_json(&all[i]);
        json_array_append_new(list, o);
        err = store_exercise_history(s, all[i].exercise_id, o);
        json_t *part = NULL;
        if (!err) err = store_hint_indices(s, all[i].exercise_id, &part);
        if (!err) json_object_set_new(o, "hints", part);
        if (!err) err = store_attempts_json(s, all[i].exercise_id, 0, &part);
        if (!err) json_object_set_new(o, "attempts", part);
    }
    exercise_status_free_array(&all, n);
    return err;
}

Diag *store_export_json(Store *s, json_t **out) {
    assert(s && out);
    *out = NULL;
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string("cudojo-progress"));
    json_object_set_new(root, "format_version", json_integer(STORE_EXPORT_FORMAT_VERSION));
    json_object_set_new(root, "schema", json_integer(store_schema_latest()));
    json_t *ws = json_object();
    json_object_set_new(ws, "uuid", bytes_to_json(s->workspace_uuid));
    json_object_set_new(ws, "created_unix_ms", json_integer(s->created_unix_ms));
    json_object_set_new(root, "workspace", ws);
    json_object_set_new(root, "exported_unix_ms", json_integer(store_now_unix_ms()));
    json_t *list = json_array();
    json_object_set_new(root, "exercises", list);

    /* One read transaction: a run recorded meanwhile is either wholly in
     * the export or not at all. */
    Diag *err = store_begin(s, false);
    if (!err) {
        err = store_export_exercises(s, list);
        json_t *merged = NULL;
        if (!err) err = store_merged_workspaces_json(s, &merged);
        if (!err) json_object_set_new(root, "merged_workspaces", merged);
        if (err) store_rollback(s);
        else err = store_commit(s);
    }
    if (err) {
        json_decref(root);
        return err;
    }
    *out = root;
    return NULL;
}
