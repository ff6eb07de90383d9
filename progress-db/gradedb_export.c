/* progress-db/gradedb_export.c: the gradebook (gradedb_export_json, the
 * format of gradebook.json that the class report reads) and merging shard
 * databases (gradedb_merge). */
#include "progress-db/gradedb_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/xalloc.h"

/* A JSON text column parsed (NULL for SQL NULL or text that is not JSON). */
static json_t *column_json(sqlite3_stmt *st, int col) {
    if (sqlite3_column_type(st, col) == SQLITE_NULL) return NULL;
    return json_loads((const char *)sqlite3_column_text(st, col), JSON_DECODE_ANY, NULL);
}

static json_t *column_string(sqlite3_stmt *st, int col) {
    if (sqlite3_column_type(st, col) == SQLITE_NULL) return json_null();
    return json_string((const char *)sqlite3_column_text(st, col));
}

static json_t *column_real(sqlite3_stmt *st, int col) {
    if (sqlite3_column_type(st, col) == SQLITE_NULL) return json_null();
    return json_real(sqlite3_column_double(st, col));
}

/* checks [{name, passed, message, stretch?}] and findings [{severity,
 * message, file, line, code}] out of a stored run_result_to_json. */
static void add_checks_findings(json_t *cell, json_t *result) {
    json_t *checks = json_array(), *findings = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(result, "checks"), i, v) {
        json_t *c = json_pack("{s:O?, s:b, s:O?}", "name", json_object_get(v, "name"), "passed",
                              json_is_true(json_object_get(v, "passed")), "message", json_object_get(v, "message"));
        if (json_is_true(json_object_get(v, "stretch"))) json_object_set_new(c, "stretch", json_true());
        json_array_append_new(checks, c);
    }
    json_array_foreach(json_object_get(result, "diagnostics"), i, v) {
        json_t *line = json_object_get(v, "line");
        json_array_append_new(findings,
                              json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?}", "severity", json_object_get(v, "severity"),
                                        "message", json_object_get(v, "message"), "file", json_object_get(v, "file"),
                                        "line", json_integer_value(line) > 0 ? line : NULL, "code",
                                        json_object_get(v, "code")));
    }
    json_object_set_new(cell, "checks", checks);
    json_object_set_new(cell, "findings", findings);
}

/* time {total_ms, compile_ms, reference_ms, program_ms, gpu_wait_ms,
 * gpu_exclusive_ms, gpu_shared_ms, cpu_ms, emu_check_ms, emu_check_cpu_ms}:
 * where a run's time went, from a stored run_result_to_json's
 * metrics.phases, metrics.gpu_lock and metrics.cpu (those present: gpu_*
 * only where the run took the GPU lock; cpu_ms the worker's and its
 * children's CPU) and its emulator_check (emu_check_*: that second run's,
 * where there was one). */
static void add_time(json_t *cell, json_t *result) {
    json_t *m = json_object_get(result, "metrics");
    json_t *ph = json_object_get(m, "phases"), *lk = json_object_get(m, "gpu_lock");
    json_t *t = json_object();
    static const char *const from_phases[][2] = {
        {"total_ms", "total_ms"}, {"compile_ms", "compile_ms"}, {"reference_ms", "reference_ms"},
        {"program_ms", "program_ms"}};
    static const char *const from_lock[][2] = {
        {"gpu_wait_ms", "wait_ms"}, {"gpu_exclusive_ms", "exclusive_ms"}, {"gpu_shared_ms", "shared_ms"}};
    for (size_t i = 0; i < sizeof from_phases / sizeof from_phases[0]; i++) {
        json_t *v = json_object_get(ph, from_phases[i][1]);
        if (json_is_number(v)) json_object_set_new(t, from_phases[i][0], json_real(json_number_value(v)));
    }
    for (size_t i = 0; i < sizeof from_lock / sizeof from_lock[0]; i++) {
        json_t *v = json_object_get(lk, from_lock[i][1]);
        if (json_is_number(v)) json_object_set_new(t, from_lock[i][0], json_real(json_number_value(v)));
    }
    /* The emulator check's run of a GPU pass (cudojo grade --emu-check), beside the run's own time. */
    json_t *ec = json_object_get(json_object_get(result, "emulator_check"), "duration_ms");
    if (json_is_number(ec)) json_object_set_new(t, "emu_check_ms", json_real(json_number_value(ec)));
    json_t *cpu = json_object_get(m, "cpu");
    if (json_is_object(cpu))
        json_object_set_new(t, "cpu_ms", json_real(json_number_value(json_object_get(cpu, "worker_ms")) +
                                                   json_number_value(json_object_get(cpu, "children_ms"))));
    json_t *ecc = json_object_get(json_object_get(result, "emulator_check"), "cpu_ms");
    if (json_is_number(ecc)) json_object_set_new(t, "emu_check_cpu_ms", json_real(json_number_value(ecc)));
    json_object_set_new(cell, "time", t);
}

/* timing {KERNEL: {ms_min, ms_median, ms_p90, ms_max, reps, ...}}: each
 * k:time's spread on a GPU (metrics.kernels.KERNEL.timing), so a slow
 * verdict can be told apart from disturbed reps (a slow median with a fast
 * min); absent when no kernel was timed. */
static void add_timing(json_t *cell, json_t *result) {
    json_t *kernels = json_object_get(json_object_get(result, "metrics"), "kernels"), *out = NULL, *k;
    const char *name;
    json_object_foreach(kernels, name, k) {
        json_t *tm = json_object_get(k, "timing");
        if (!json_is_object(tm)) continue;
        if (!out) out = json_object();
        json_object_set(out, name, tm);
    }
    if (out) json_object_set_new(cell, "timing", out);
}

static const char SQL_EXERCISES[] = "SELECT id, chapter, title, points, kind FROM exercise WHERE skipped = 0 "
                                    "ORDER BY position";
static const char SQL_SUBMISSIONS[] =
    "SELECT student, workspace_uuid, origin, submitted_unix_ms, progress_json, problems_json\n"
    "FROM submission ORDER BY student";
/* Each student's current source of each exercise and its run, if any. */
static const char SQL_CELLS[] =
    "SELECT f.student, f.exercise, f.source_sha256, r.verdict, r.failure_kind, r.points, r.max_points, r.fast,\n"
    "       r.duration_ms, r.kernel_ms, r.message, r.result_json\n"
    "FROM submission_file f\n"
    "LEFT JOIN run r ON r.student = f.student AND r.exercise = f.exercise AND r.source_sha256 = f.source_sha256\n"
    "                AND r.course_version = ?1";

/* The cell of one exercise of a student with no run (yet). */
static json_t *empty_cell(double max_points) {
    return json_pack("{s:n, s:n, s:f, s:f, s:b, s:n, s:n, s:n, s:n, s:[], s:[]}", "verdict", "failure_kind", "points",
                     0.0, "max_points", max_points, "fast", 0, "duration_ms", "kernel_ms", "source_sha256", "message",
                     "checks", "findings");
}

static Diag *export_read(GradeDb *g, json_t *book) {
    Diag *err = NULL;
    char *cv = NULL, *backend = NULL, *sim = NULL;
    err = gradedb_meta_get(g, GRADEDB_META_COURSE_VERSION, &cv);
    if (!err) err = gradedb_meta_get(g, GRADEDB_META_BACKEND, &backend);
    if (!err) err = gradedb_meta_get(g, GRADEDB_META_SIMILARITY, &sim);
    json_object_set_new(book, "course_version", cv ? json_string(cv) : json_null());
    json_object_set_new(book, "backend", backend ? json_string(backend) : json_null());
    json_object_set_new(book, "generated_unix_ms", json_integer(gradedb_now_unix_ms()));
    json_t *exercises = json_array(), *students = json_array();
    json_object_set_new(book, "exercises", exercises);
    json_object_set_new(book, "students", students);
    json_t *simj = sim ? json_loads(sim, 0, NULL) : NULL;
    json_object_set_new(book, "similarity", json_is_array(simj) ? simj : json_array());
    if (simj && !json_is_array(simj)) json_decref(simj);
    free(sim);
    free(backend);

    /* Exercises, and their max points by id. */
    json_t *maxp = json_object();
    double max_total = 0;
    sqlite3_stmt *st = err ? NULL : gradedb_prepare(g, SQL_EXERCISES, &err);
    int rc = SQLITE_DONE;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        double pts = sqlite3_column_double(st, 3);
        json_array_append_new(exercises, json_pack("{s:o, s:o, s:o, s:f, s:o}", "id", column_string(st, 0), "chapter",
                                                   column_string(st, 1), "title", column_string(st, 2), "points", pts,
                                                   "kind", column_string(st, 4)));
        json_object_set_new(maxp, (const char *)sqlite3_column_text(st, 0), json_real(pts));
        max_total += pts;
    }
    if (st && rc != SQLITE_DONE) err = gradedb_error(g, "reading the exercises", SQL_EXERCISES);
    sqlite3_finalize(st);

    /* Students, each with an empty cell per exercise. */
    json_t *by_name = json_object();
    st = err ? NULL : gradedb_prepare(g, SQL_SUBMISSIONS, &err);
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *problems = column_json(st, 5), *progress = column_json(st, 4);
        json_t *cells = json_object();
        size_t i;
        json_t *ex;
        json_array_foreach(exercises, i, ex) {
            const char *id = json_string_value(json_object_get(ex, "id"));
            json_object_set_new(cells, id, empty_cell(json_real_value(json_object_get(maxp, id))));
        }
        json_t *s = json_pack("{s:o, s:o, s:o, s:o, s:f, s:f, s:o, s:o, s:o}", "student", column_string(st, 0),
                              "workspace_uuid", column_string(st, 1), "origin", column_string(st, 2),
                              "submitted_unix_ms",
                              sqlite3_column_type(st, 3) == SQLITE_NULL ? json_null()
                                                                        : json_integer(sqlite3_column_int64(st, 3)),
                              "total", 0.0, "max_total", max_total, "problems",
                              json_is_array(problems) ? json_incref(problems) : json_array(), "exercises", cells,
                              "progress", progress ? json_incref(progress) : json_null());
        json_decref(problems);
        json_decref(progress);
        json_array_append_new(students, s);
        json_object_set(by_name, (const char *)sqlite3_column_text(st, 0), s);
    }
    if (st && rc != SQLITE_DONE) err = gradedb_error(g, "reading the submissions", SQL_SUBMISSIONS);
    sqlite3_finalize(st);

    /* Cells. */
    st = err ? NULL : gradedb_prepare(g, SQL_CELLS, &err);
    if (st) gradedb_bind_text(st, 1, cv ? cv : "");
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *s = json_object_get(by_name, (const char *)sqlite3_column_text(st, 0));
        json_t *cell = json_object_get(json_object_get(s, "exercises"), (const char *)sqlite3_column_text(st, 1));
        if (!cell) continue; /* a skipped exercise */
        const char *sha = (const char *)sqlite3_column_text(st, 2);
        json_object_set_new(cell, "source_sha256", strcmp(sha, GRADEDB_NO_SOURCE) ? json_string(sha) : json_null());
        if (sqlite3_column_type(st, 3) == SQLITE_NULL) continue; /* not graded yet */
        double pts = sqlite3_column_double(st, 5);
        json_object_set_new(cell, "verdict", column_string(st, 3));
        json_object_set_new(cell, "failure_kind", column_string(st, 4));
        json_object_set_new(cell, "points", json_real(pts));
        json_object_set_new(cell, "max_points", json_real(sqlite3_column_double(st, 6)));
        json_object_set_new(cell, "fast", json_boolean(sqlite3_column_int(st, 7)));
        json_object_set_new(cell, "duration_ms", column_real(st, 8));
        json_object_set_new(cell, "kernel_ms", column_real(st, 9));
        json_object_set_new(cell, "message", column_string(st, 10));
        json_t *result = column_json(st, 11);
        if (result) add_checks_findings(cell, result);
        if (result) add_time(cell, result);
        if (result) add_timing(cell, result);
        /* The emulator's second opinion on a GPU pass (app/grade_emucheck.c), as recorded. */
        json_t *ec = json_object_get(result, "emulator_check");
        if (json_is_object(ec)) json_object_set(cell, "emulator_check", ec);
        json_decref(result);
        json_object_set_new(s, "total", json_real(json_real_value(json_object_get(s, "total")) + pts));
    }
    if (st && rc != SQLITE_DONE) err = gradedb_error(g, "reading the runs", SQL_CELLS);
    sqlite3_finalize(st);
    json_decref(by_name);
    json_decref(maxp);
    free(cv);
    return err;
}

Diag *gradedb_export_json(GradeDb *g, json_t **out) {
    *out = NULL;
    Diag *err = gradedb_exec(g, "starting a read", "BEGIN");
    if (err) return err;
    json_t *book = json_pack("{s:s, s:i}", "format", "cudojo-gradebook", "format_version", 1);
    err = export_read(g, book);
    sqlite3_exec(g->db, "COMMIT", NULL, NULL, NULL);
    if (err) {
        json_decref(book);
        return err;
    }
    *out = book;
    return NULL;
}

/* Meta keys a merge takes from a shard into a database that has no course yet. */
static const char *const MERGE_META[] = {GRADEDB_META_COURSE_VERSION, GRADEDB_META_COURSE_ROOT,
                                         GRADEDB_META_BACKEND, GRADEDB_META_GRADING_SEED};

static Diag *merge_step(GradeDb *g, const char *what, const char *sql, long long *changes) {
    Diag *err = gradedb_exec(g, what, sql);
    if (!err && changes) *changes = sqlite3_changes(g->db);
    return err;
}

Diag *gradedb_merge(GradeDb *into, const char *shard_path, GradeMergeStats *stats) {
    GradeMergeStats st0 = {0};
    if (!stats) stats = &st0;
    memset(stats, 0, sizeof *stats);
    /* Open the shard on its own first: it must be a grading database of our schema. */
    GradeDb *shard = NULL;
    Diag *err = gradedb_open_readonly(shard_path, &shard);
    if (err) return err;
    char *scv = NULL, *sseed = NULL, *cv = NULL, *seed = NULL;
    long long shard_runs = 0;
    err = gradedb_meta_get(shard, GRADEDB_META_COURSE_VERSION, &scv);
    if (!err) err = gradedb_meta_get(shard, GRADEDB_META_GRADING_SEED, &sseed);
    if (!err) err = gradedb_count(shard, &shard_runs, NULL);
    gradedb_close(&shard);
    if (!err) err = gradedb_meta_get(into, GRADEDB_META_COURSE_VERSION, &cv);
    if (!err) err = gradedb_meta_get(into, GRADEDB_META_GRADING_SEED, &seed);
    if (!err && !scv && shard_runs)
        err = diag_new(DIAG_ERROR, "grade-db", shard_path, 0, 0, "shard has runs but no course version; not merging it");
    if (!err && scv && cv && strcmp(scv, cv))
        err = diag_new(DIAG_ERROR, "grade-db", shard_path, 0, 0,
                       "shard was graded under course version %.12s…, and %s under %.12s…: they cannot be merged "
                       "(grade every shard with the same course)",
                       scv, into->path, cv);
    if (!err && scv && cv && sseed && seed && strcmp(sseed, seed))
        err = diag_new(DIAG_ERROR, "grade-db", shard_path, 0, 0,
                       "shard was graded with another grading seed (%s) than %s (%s): they cannot be merged", sseed,
                       into->path, seed);
    bool take_course = !err && scv && !cv;
    free(scv);
    free(sseed);
    free(cv);
    free(seed);
    if (err) return err;

    sqlite3_stmt *at = gradedb_prepare(into, "ATTACH DATABASE ?1 AS shard", &err);
    if (!at) return err;
    gradedb_bind_text(at, 1, shard_path);
    if (sqlite3_step(at) != SQLITE_DONE) err = gradedb_error(into, "opening the shard", "ATTACH DATABASE ?1 AS shard");
    sqlite3_finalize(at);
    if (err) return err;
    err = gradedb_exec(into, "starting the merge", "BEGIN IMMEDIATE");
    if (!err && take_course) {
        for (size_t i = 0; !err && i < sizeof MERGE_META / sizeof MERGE_META[0]; i++) {
            char *sql = xasprintf("INSERT OR REPLACE INTO main.meta (key, value) "
                                  "SELECT key, value FROM shard.meta WHERE key = '%s'",
                                  MERGE_META[i]);
            err = merge_step(into, "merging the course", sql, NULL);
            free(sql);
        }
        if (!err)
            err = merge_step(into, "merging the course",
                             "DELETE FROM main.exercise; INSERT INTO main.exercise SELECT * FROM shard.exercise", NULL);
    }
    /* A student already here is kept, with the files recorded for them. */
    if (!err)
        err = merge_step(into, "merging the submission files",
                         "INSERT OR IGNORE INTO main.submission_file SELECT * FROM shard.submission_file f\n"
                         "WHERE NOT EXISTS (SELECT 1 FROM main.submission s WHERE s.student = f.student)",
                         NULL);
    if (!err)
        err = merge_step(into, "merging the submissions",
                         "INSERT OR IGNORE INTO main.submission SELECT * FROM shard.submission", &stats->submissions_added);
    if (!err)
        err = merge_step(into, "merging the runs", "INSERT OR IGNORE INTO main.run SELECT * FROM shard.run",
                         &stats->runs_added);
    if (!err) err = gradedb_exec(into, "committing the merge", "COMMIT");
    if (err) sqlite3_exec(into->db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_exec(into->db, "DETACH DATABASE shard", NULL, NULL, NULL);
    stats->runs_present = shard_runs - stats->runs_added;
    return err;
}
