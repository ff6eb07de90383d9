/* progress-db/store_merge.c: joining another workspace's progress into this
 * one (`cudojo progress --merge`: the lab machine's and the laptop's).
 *
 * The other side always arrives as a cudojo-progress export (store.h): a
 * progress.json, the progress.json of a submission archive, or another
 * progress.db, of which a copy is exported. An attempt is the same attempt
 * when (exercise, when_unix_ms, source_hash, verdict, backend) agree, so a
 * merge is idempotent and merging A into B and B into A loses or doubles
 * nothing. The whole merge is one transaction: a bad document changes
 * nothing. */
#include "progress-db/store_internal.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

/* Exports of a newer format may change a key's meaning; older ones only lack keys. */
#define STORE_MERGE_FORMAT_MAX 1

/* The first definition seen stays first unless the other side saw it earlier. */
static const char SQL_MERGE_EXERCISE[] =
    "INSERT INTO exercises (exercise_id, first_seen_unix_ms, last_seen_unix_ms, first_def_hash, last_def_hash)\n"
    "    VALUES (?1, ?2, ?3, ?4, ?5)\n"
    "ON CONFLICT (exercise_id) DO UPDATE SET\n"
    "    first_def_hash = CASE WHEN excluded.first_seen_unix_ms < first_seen_unix_ms\n"
    "                          THEN coalesce(excluded.first_def_hash, first_def_hash)\n"
    "                          ELSE coalesce(first_def_hash, excluded.first_def_hash) END,\n"
    "    last_def_hash = CASE WHEN excluded.last_seen_unix_ms > last_seen_unix_ms\n"
    "                         THEN coalesce(excluded.last_def_hash, last_def_hash)\n"
    "                         ELSE coalesce(last_def_hash, excluded.last_def_hash) END,\n"
    "    first_seen_unix_ms = min(first_seen_unix_ms, excluded.first_seen_unix_ms),\n"
    "    last_seen_unix_ms = max(last_seen_unix_ms, excluded.last_seen_unix_ms)";

/* The identity of an attempt; the index attempts_by_exercise narrows it to
 * one exercise and one millisecond. */
static const char SQL_MERGE_FIND[] =
    "SELECT 1 FROM attempts\n"
    "WHERE exercise_id = ?1 AND when_unix_ms = ?2 AND verdict = ?3 AND backend = ?4 AND source_hash IS ?5\n"
    "LIMIT 1";

static const char SQL_MERGE_INSERT[] =
    "INSERT INTO attempts (exercise_id, when_unix_ms, verdict, backend, duration_ms, kernel_ms,\n"
    "                      def_hash, source_hash, app_version, checks_json, metrics_json, diags_json, fast)\n"
    "    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";

static const char SQL_MERGE_HINT[] =
    "INSERT INTO hints (exercise_id, hint_index, first_unix_ms, last_unix_ms)\n"
    "    VALUES (?1, ?2, ?3, ?3)\n"
    "ON CONFLICT (exercise_id, hint_index) DO NOTHING";

static const char SQL_MERGE_RECORD[] =
    "INSERT INTO merged_workspaces (workspace_uuid, first_merged_unix_ms, last_merged_unix_ms, origin,\n"
    "                               attempts_added)\n"
    "    VALUES (?1, ?2, ?2, ?3, ?4)\n"
    "ON CONFLICT (workspace_uuid) DO UPDATE SET\n"
    "    last_merged_unix_ms = excluded.last_merged_unix_ms,\n"
    "    origin = excluded.origin,\n"
    "    attempts_added = attempts_added + excluded.attempts_added";

static const char SQL_MERGED_LIST[] =
    "SELECT workspace_uuid, first_merged_unix_ms, last_merged_unix_ms, attempts_added\n"
    "FROM merged_workspaces ORDER BY first_merged_unix_ms, workspace_uuid";

enum { Q_EXERCISE, Q_FIND, Q_INSERT, Q_HINT, Q_RECORD, Q_COUNT };

typedef struct Merge {
    Store *s;
    const char *origin;
    StoreMergeStats *stats;
    long long exported_unix_ms;
    sqlite3_stmt *q[Q_COUNT];
} Merge;

static const char *const MERGE_SQL[Q_COUNT] = {SQL_MERGE_EXERCISE, SQL_MERGE_FIND, SQL_MERGE_INSERT, SQL_MERGE_HINT,
                                               SQL_MERGE_RECORD};

static Diag *merge_bad(const Merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static Diag *merge_bad(const Merge *m, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *why = xvasprintf(fmt, ap);
    va_end(ap);
    Diag *d = diag_new(DIAG_ERROR, "progress-merge", m->origin, 0, 0,
                       "cannot merge this progress: %s; nothing was merged", why);
    free(why);
    return d;
}

/* A string member as bytes (caller frees); NULL when absent or null. *bad is
 * set when present but not a string. */
static char *merge_string(const json_t *o, const char *key, bool *bad) {
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return NULL;
    char *s = bytes_from_json(v);
    if (!s) *bad = true;
    return s;
}

/* A JSON member stored as text (caller frees); NULL when absent or null. */
static char *merge_json_text(const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return NULL;
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static long long merge_int(const json_t *o, const char *key, long long fallback) {
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? json_integer_value(v) : fallback;
}

static Diag *merge_step(Merge *m, int q, const char *what) {
    int rc = sqlite3_step(m->q[q]);
    Diag *err = rc == SQLITE_DONE || rc == SQLITE_ROW ? NULL : store_error(m->s, what, MERGE_SQL[q]);
    sqlite3_reset(m->q[q]);
    sqlite3_clear_bindings(m->q[q]);
    return err;
}

/* Adds one attempt unless an equal one is here. */
static Diag *merge_attempt(Merge *m, const char *exercise_id, const json_t *a, size_t index) {
    bool bad = !json_is_object(a) || !json_is_integer(json_object_get(a, "when_unix_ms"));
    char *verdict = merge_string(a, "verdict", &bad), *backend = merge_string(a, "backend", &bad);
    char *source_hash = merge_string(a, "source_hash", &bad), *def_hash = merge_string(a, "def_hash", &bad);
    char *app_version = merge_string(a, "app_version", &bad);
    const json_t *duration = json_object_get(a, "duration_ms"), *kernel = json_object_get(a, "kernel_ms");
    if ((duration && !json_is_number(duration)) || (kernel && !json_is_null(kernel) && !json_is_number(kernel)))
        bad = true;
    Diag *err = NULL;
    if (bad || !verdict || !*verdict || !backend || !*backend)
        err = merge_bad(m, "attempt %zu of exercise '%s' lacks when_unix_ms, verdict or backend, or has a "
                           "field of the wrong type", index + 1, exercise_id);
    long long when = err ? 0 : json_integer_value(json_object_get(a, "when_unix_ms"));
    if (!err) {
        sqlite3_stmt *st = m->q[Q_FIND];
        store_bind_text(st, 1, exercise_id);
        sqlite3_bind_int64(st, 2, when);
        store_bind_text(st, 3, verdict);
        store_bind_text(st, 4, backend);
        store_bind_text(st, 5, source_hash);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        if (rc == SQLITE_ROW) {
            m->stats->attempts_present++;
        } else if (rc != SQLITE_DONE) {
            err = store_error(m->s, "looking for an attempt", SQL_MERGE_FIND);
        } else {
            char *checks = merge_json_text(a, "checks"), *metrics = merge_json_text(a, "metrics");
            char *diags = merge_json_text(a, "diags");
            st = m->q[Q_INSERT];
            store_bind_text(st, 1, exercise_id);
            sqlite3_bind_int64(st, 2, when);
            store_bind_text(st, 3, verdict);
            store_bind_text(st, 4, backend);
            sqlite3_bind_double(st, 5, duration ? json_number_value(duration) : 0.0);
            if (json_is_number(kernel)) sqlite3_bind_double(st, 6, json_number_value(kernel));
            store_bind_text(st, 7, def_hash);
            store_bind_text(st, 8, source_hash);
            store_bind_text(st, 9, app_version);
            store_bind_text(st, 10, checks);
            store_bind_text(st, 11, metrics);
            store_bind_text(st, 12, diags);
            sqlite3_bind_int(st, 13, json_is_true(json_object_get(a, "fast")) && !strcmp(verdict, "pass"));
            err = merge_step(m, Q_INSERT, "adding an attempt");
            if (!err) m->stats->attempts_added++;
            free(checks);
            free(metrics);
            free(diags);
        }
    }
    free(verdict);
    free(backend);
    free(source_hash);
    free(def_hash);
    free(app_version);
    return err;
}

/* The exercise's row, its attempts and its hints. */
static Diag *merge_exercise(Merge *m, const json_t *ex, size_t index) {
    bool bad = !json_is_object(ex);
    char *id = bad ? NULL : merge_string(ex, "id", &bad);
    const json_t *attempts = json_object_get(ex, "attempts"), *hints = json_object_get(ex, "hints");
    if (bad || !id || !*id || (attempts && !json_is_array(attempts)) || (hints && !json_is_array(hints))) {
        free(id);
        return merge_bad(m, "exercise %zu has no id, or its attempts or hints are not lists", index + 1);
    }
    /* Seen times: the export's, else the attempts' own span. */
    long long first = merge_int(ex, "first_seen_unix_ms", 0), last = merge_int(ex, "last_seen_unix_ms", 0);
    size_t i;
    const json_t *a;
    json_array_foreach(attempts, i, a) {
        long long w = merge_int(a, "when_unix_ms", 0);
        if (w && (!first || w < first)) first = w;
        if (w > last) last = w;
    }
    if (!first) first = m->exported_unix_ms;
    if (!last) last = first;
    char *first_def = merge_string(ex, "first_def_hash", &bad), *last_def = merge_string(ex, "last_def_hash", &bad);
    sqlite3_stmt *st = m->q[Q_EXERCISE];
    store_bind_text(st, 1, id);
    sqlite3_bind_int64(st, 2, first);
    sqlite3_bind_int64(st, 3, last);
    store_bind_text(st, 4, first_def);
    store_bind_text(st, 5, last_def);
    Diag *err = merge_step(m, Q_EXERCISE, "recording the exercise");
    free(first_def);
    free(last_def);
    json_array_foreach(attempts, i, a) {
        if (err) break;
        err = merge_attempt(m, id, a, i);
    }
    const json_t *h;
    json_array_foreach(hints, i, h) {
        if (err) break;
        if (!json_is_integer(h) || json_integer_value(h) < 0 || json_integer_value(h) > 1000000) {
            err = merge_bad(m, "hint %zu of exercise '%s' is not a hint number", i + 1, id);
            break;
        }
        st = m->q[Q_HINT];
        store_bind_text(st, 1, id);
        sqlite3_bind_int64(st, 2, json_integer_value(h));
        sqlite3_bind_int64(st, 3, m->exported_unix_ms);
        err = merge_step(m, Q_HINT, "recording a hint");
        if (!err) m->stats->hints_added += sqlite3_changes(m->s->db);
    }
    free(id);
    return err;
}

/* Checks the document is an export we understand; fills the stats' uuid. */
static Diag *merge_check_document(Merge *m, const json_t *doc) {
    const json_t *format = json_object_get(doc, "format"), *version = json_object_get(doc, "format_version");
    if (!json_is_object(doc) || !json_is_string(format) || strcmp(json_string_value(format), "cudojo-progress"))
        return merge_bad(m, "it is not a cudojo progress export (no \"format\": \"cudojo-progress\")");
    if (!json_is_integer(version) || json_integer_value(version) < 1)
        return merge_bad(m, "its format_version is missing");
    if (json_integer_value(version) > STORE_MERGE_FORMAT_MAX)
        return merge_bad(m, "it was written by a newer cudojo (format_version %lld, we read up to %d)",
                         (long long)json_integer_value(version), STORE_MERGE_FORMAT_MAX);
    if (!json_is_array(json_object_get(doc, "exercises"))) return merge_bad(m, "it has no \"exercises\" list");
    const json_t *uuid = json_object_get(json_object_get(doc, "workspace"), "uuid");
    const char *u = json_is_string(uuid) ? json_string_value(uuid) : "";
    for (const char *p = u; *p; p++)
        if (!strchr("0123456789abcdefABCDEF-", *p)) return merge_bad(m, "its workspace uuid is not a uuid");
    if (strlen(u) >= sizeof m->stats->source_uuid) return merge_bad(m, "its workspace uuid is not a uuid");
    snprintf(m->stats->source_uuid, sizeof m->stats->source_uuid, "%s", u);
    m->stats->same_workspace = *u && !strcmp(u, m->s->workspace_uuid);
    m->stats->exercises = (int)json_array_size(json_object_get(doc, "exercises"));
    m->exported_unix_ms = merge_int(doc, "exported_unix_ms", 0);
    if (m->exported_unix_ms <= 0) m->exported_unix_ms = store_now_unix_ms();
    return NULL;
}

static Diag *merge_run(Merge *m, const json_t *doc) {
    Diag *err = NULL;
    const json_t *ex;
    size_t i;
    json_array_foreach(json_object_get(doc, "exercises"), i, ex) {
        err = merge_exercise(m, ex, i);
        if (err) return err;
    }
    if (!m->stats->source_uuid[0]) return NULL;
    sqlite3_stmt *st = m->q[Q_RECORD];
    store_bind_text(st, 1, m->stats->source_uuid);
    sqlite3_bind_int64(st, 2, store_now_unix_ms());
    store_bind_text(st, 3, m->origin);
    sqlite3_bind_int(st, 4, m->stats->attempts_added);
    return merge_step(m, Q_RECORD, "recording the merged workspace");
}

Diag *store_merge_json(Store *s, const json_t *export_doc, const char *origin, StoreMergeStats *stats) {
    assert(s && export_doc && origin && stats);
    memset(stats, 0, sizeof *stats);
    Merge m = {.s = s, .origin = origin, .stats = stats};
    Diag *err = merge_check_document(&m, export_doc);
    if (err || stats->same_workspace) return err;
    for (int q = 0; q < Q_COUNT && !err; q++)
        if (sqlite3_prepare_v2(s->db, MERGE_SQL[q], -1, &m.q[q], NULL) != SQLITE_OK)
            err = store_error(s, "preparing the merge", MERGE_SQL[q]);
    if (!err) err = store_begin(s, true);
    if (!err) {
        err = merge_run(&m, export_doc);
        if (err) store_rollback(s);
        else err = store_commit(s);
    }
    for (int q = 0; q < Q_COUNT; q++) sqlite3_finalize(m.q[q]);
    if (err) {
        StoreMergeStats none = {0};
        memcpy(none.source_uuid, stats->source_uuid, sizeof none.source_uuid);
        *stats = none;
    }
    return err;
}

/* Copies the database at src (read-only, a consistent snapshot even while
 * another cudojo writes it) to the new file dst. */
static Diag *merge_backup(const char *src, const char *dst) {
    sqlite3 *from = NULL, *to = NULL;
    /* Nobody has it open (no -wal beside it): read it immutably, so not even
     * a -shm file appears in the other workspace. */
    char *wal = xasprintf("%s-wal", src);
    char *uri = store_readonly_uri(src, !fs_exists(wal));
    free(wal);
    Diag *err = NULL;
    if (sqlite3_open_v2(uri, &from, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK)
        err = store_db_error(from, src, "opening it to merge", NULL);
    if (!err && sqlite3_open_v2(dst, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        err = store_db_error(to, dst, "making a copy to merge", NULL);
    if (!err) {
        sqlite3_busy_timeout(from, STORE_BUSY_TIMEOUT_MS);
        sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
        int rc = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
        if (b) sqlite3_backup_finish(b);
        if (rc != SQLITE_DONE) err = store_db_error(b ? from : to, src, "copying it to merge", NULL);
    }
    sqlite3_close(from);
    sqlite3_close(to);
    free(uri);
    return err;
}

static void merge_unlink_db(const char *path) {
    static const char *const side[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof side / sizeof side[0]; i++) {
        char *p = xasprintf("%s%s", path, side[i]);
        unlink(p);
        free(p);
    }
}

Diag *store_merge_db(Store *s, const char *other_path, const char *tmp_dir, StoreMergeStats *stats) {
    assert(s && other_path && stats);
    memset(stats, 0, sizeof *stats);
    char *dir = xasprintf("%s/cudojo-merge-XXXXXX", tmp_dir && *tmp_dir ? tmp_dir : "/tmp");
    if (!mkdtemp(dir)) {
        Diag *d = diag_new(DIAG_ERROR, "io", tmp_dir, 0, 0, "cannot make a folder to copy %s into (%s)", other_path,
                           strerror(errno));
        free(dir);
        return d;
    }
    char *copy = path_join(dir, "progress.db");
    Diag *err = merge_backup(other_path, copy);
    Store *other = NULL;
    if (!err) {
        err = store_open(copy, &other);
        if (err) {
            /* The copy's checks speak of the copy: name the user's file. */
            Diag *named = diag_new(DIAG_ERROR, "progress-merge", other_path, 0, 0, "cannot merge it: %s", err->message);
            diag_free(&err);
            err = named;
        }
    }
    json_t *doc = NULL;
    if (!err) err = store_export_json(other, &doc);
    store_close(&other);
    merge_unlink_db(copy);
    rmdir(dir);
    free(copy);
    free(dir);
    if (!err) err = store_merge_json(s, doc, other_path, stats);
    json_decref(doc);
    return err;
}

Diag *store_merged_workspaces_json(Store *s, json_t **out) {
    *out = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, SQL_MERGED_LIST, -1, &st, NULL) != SQLITE_OK)
        return store_error(s, "reading the merged workspaces", SQL_MERGED_LIST);
    json_t *arr = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = json_object();
        json_object_set_new(o, "uuid", bytes_to_json((const char *)sqlite3_column_text(st, 0)));
        json_object_set_new(o, "first_merged_unix_ms", json_integer(sqlite3_column_int64(st, 1)));
        json_object_set_new(o, "last_merged_unix_ms", json_integer(sqlite3_column_int64(st, 2)));
        json_object_set_new(o, "attempts_added", json_integer(sqlite3_column_int64(st, 3)));
        json_array_append_new(arr, o);
    }
    Diag *err = rc == SQLITE_DONE ? NULL : store_error(s, "reading the merged workspaces", SQL_MERGED_LIST);
    sqlite3_finalize(st);
    if (err) json_decref(arr);
    else *out = arr;
    return err;
}
