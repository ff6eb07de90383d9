/* tests/progress-db/test_gradedb.c: the grading database of `cudojo grade`:
 * binding to one course version, submissions and runs keyed so an
 * unchanged file is never run twice, the gradebook export, and merging
 * shard databases (idempotent, any order, refusing another course). */
#include "tests/progress-db/store_fixture.h"

#include "progress-db/gradedb.h"

static const GradeExercise EXS[] = {
    {.id = "vector-add", .chapter = "hello-gpu", .title = "Add two vectors", .points = 1},
    {.id = "saxpy", .chapter = "hello-gpu", .title = "SAXPY", .points = 2},
    {.id = "gpu-only", .chapter = "perf", .title = "Needs a GPU", .points = 5, .skipped = true},
    {.id = "hello-program", .chapter = "programs", .title = "A program", .points = 3, .program = true},
};
#define N_EXS 4

static GradeDb *open_at(const char *path, const char *cv) {
    GradeDb *g = NULL;
    assert_no_diag(gradedb_open(path, &g));
    assert_non_null(g);
    if (cv) assert_no_diag(gradedb_set_course(g, cv, "/course", EXS, N_EXS));
    return g;
}

static void put_student(GradeDb *g, const char *student, const char *va_sha, const char *saxpy_sha) {
    const char *ids[] = {"vector-add", "saxpy", "hello-program"};
    const char *shas[] = {va_sha, saxpy_sha, NULL};
    GradeSubmission s = {.student = student, .origin = student, .workspace_uuid = "uuid-1",
                         .problems_json = "[\"late\"]", .progress_json = "{\"format\":\"cudojo-progress\"}"};
    assert_no_diag(gradedb_put_submission(g, &s, ids, shas, 3));
}

static bool record(GradeDb *g, const char *student, const char *ex, const char *sha, const char *cv, bool pass,
                   double pts) {
    GradeRun r = {.student = student, .exercise = ex, .source_sha256 = sha, .course_version = cv,
                  .verdict = pass ? "pass" : "fail", .failure_kind = pass ? NULL : "wrong-result",
                  .points = pass ? pts : 0, .max_points = pts, .fast = pass, .duration_ms = 12.5, .kernel_ms = -1,
                  .backend = "emu", .message = pass ? "all checks passed" : "c: 3 elements wrong of 10",
                  .result_json = "{\"checks\":[{\"name\":\"c\",\"passed\":false,\"message\":\"3 wrong\"}],"
                                 "\"diagnostics\":[{\"severity\":\"error\",\"code\":\"oob-global\",\"file\":"
                                 "\"vector-add.cu\",\"line\":7,\"message\":\"out of bounds\"}]}"};
    bool inserted = false;
    assert_no_diag(gradedb_record_run(g, &r, &inserted));
    return inserted;
}

static void gradedb_open__refuses_a_learners_progress_db__and_leaves_it_untouched(void **state) {
    StoreFixture *f = *state;
    Store *s = NULL;
    assert_no_diag(store_open(f->db_path, &s));
    store_close(&s);
    size_t n0 = 0, n1 = 0;
    char *before = store_fixture_read(f->db_path, &n0);
    GradeDb *g = NULL;
    Diag *d = gradedb_open(f->db_path, &g);
    assert_non_null(d);
    assert_null(g);
    assert_non_null(strstr(d->message, "progress database"));
    diag_free(&d);
    char *after = store_fixture_read(f->db_path, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before);
    free(after);
}

static void gradedb_open__refuses_a_file_that_is_not_sqlite(void **state) {
    StoreFixture *f = *state;
    static const char text[] = "hello, this is a text file with enough bytes to pass the size "
                               "of an SQLite header and then some more of them";
    assert_no_diag(fs_write_file_atomic(f->db_path, text, sizeof text - 1));
    GradeDb *g = NULL;
    Diag *d = gradedb_open(f->db_path, &g);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "not an SQLite database"));
    assert_string_equal(d->file, f->db_path);
    diag_free(&d);
}

static void gradedb_set_course__refuses_another_course_version__once_runs_are_recorded(void **state) {
    StoreFixture *f = *state;
    GradeDb *g = open_at(f->db_path, "v1");
    /* Empty: another version simply replaces the first. */
    assert_no_diag(gradedb_set_course(g, "v2", "/course", EXS, N_EXS));
    put_student(g, "alice", "sha-a", "sha-b");
    record(g, "alice", "vector-add", "sha-a", "v2", true, 1);
    assert_no_diag(gradedb_set_course(g, "v2", "/course", EXS, N_EXS));
    Diag *d = gradedb_set_course(g, "v3", "/course", EXS, N_EXS);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "course changed"));
    diag_free(&d);
    char *cv = NULL;
    assert_no_diag(gradedb_meta_get(g, GRADEDB_META_COURSE_VERSION, &cv));
    assert_string_equal(cv, "v2");
    free(cv);
    gradedb_close(&g);
}

static void gradedb_record_run__keeps_the_first__when_the_same_file_and_version_come_again(void **state) {
    StoreFixture *f = *state;
    GradeDb *g = open_at(f->db_path, "v1");
    put_student(g, "alice", "sha-a", "sha-b");
    bool has = true;
    assert_no_diag(gradedb_has_run(g, "alice", "vector-add", "sha-a", "v1", &has));
    assert_false(has);
    assert_true(record(g, "alice", "vector-add", "sha-a", "v1", true, 1));
    assert_false(record(g, "alice", "vector-add", "sha-a", "v1", false, 1));
    assert_no_diag(gradedb_has_run(g, "alice", "vector-add", "sha-a", "v1", &has));
    assert_true(has);
    /* Another source of the same exercise is another run. */
    assert_no_diag(gradedb_has_run(g, "alice", "vector-add", "sha-other", "v1", &has));
    assert_false(has);
    long long runs = 0, subs = 0;
    assert_no_diag(gradedb_count(g, &runs, &subs));
    assert_int_equal(runs, 1);
    assert_int_equal(subs, 1);
    gradedb_close(&g);
}

static void gradedb_export_json__shows_the_run_of_each_students_current_source(void **state) {
    StoreFixture *f = *state;
    GradeDb *g = open_at(f->db_path, "v1");
    put_student(g, "bob", "sha-b1", NULL);
    put_student(g, "alice", "sha-a1", "sha-a2");
    record(g, "alice", "vector-add", "sha-a1", "v1", true, 1);
    record(g, "alice", "saxpy", "sha-a2", "v1", false, 2);
    record(g, "bob", "vector-add", "sha-b1", "v1", false, 1);
    record(g, "bob", "vector-add", "sha-old", "v1", true, 1); /* an older source: not shown */
    record(g, "bob", "saxpy", NULL, "v1", false, 2);
    json_t *book = NULL;
    assert_no_diag(gradedb_export_json(g, &book));
    assert_string_equal(json_string_value(json_object_get(book, "format")), "cudojo-gradebook");
    assert_string_equal(json_string_value(json_object_get(book, "course_version")), "v1");
    json_t *exs = json_object_get(book, "exercises");
    assert_int_equal(json_array_size(exs), 3); /* the skipped one is left out */
    assert_string_equal(json_string_value(json_object_get(json_array_get(exs, 2), "kind")), "program");
    json_t *st = json_object_get(book, "students");
    assert_int_equal(json_array_size(st), 2);
    json_t *alice = json_array_get(st, 0), *bob = json_array_get(st, 1);
    assert_string_equal(json_string_value(json_object_get(alice, "student")), "alice");
    assert_true(json_real_value(json_object_get(alice, "total")) == 1.0);
    assert_true(json_real_value(json_object_get(alice, "max_total")) == 6.0);
    json_t *va = json_object_get(json_object_get(alice, "exercises"), "vector-add");
    assert_string_equal(json_string_value(json_object_get(va, "verdict")), "pass");
    assert_true(json_is_null(json_object_get(va, "failure_kind")));
    json_t *sx = json_object_get(json_object_get(alice, "exercises"), "saxpy");
    assert_string_equal(json_string_value(json_object_get(sx, "failure_kind")), "wrong-result");
    json_t *finding = json_array_get(json_object_get(sx, "findings"), 0);
    assert_int_equal(json_integer_value(json_object_get(finding, "line")), 7);
    assert_string_equal(json_string_value(json_object_get(finding, "file")), "vector-add.cu");
    json_t *check = json_array_get(json_object_get(sx, "checks"), 0);
    assert_false(json_is_true(json_object_get(check, "passed")));
    /* An exercise never graded: verdict null. */
    json_t *prog = json_object_get(json_object_get(alice, "exercises"), "hello-program");
    assert_true(json_is_null(json_object_get(prog, "verdict")));
    assert_true(json_real_value(json_object_get(bob, "total")) == 0.0);
    json_t *bva = json_object_get(json_object_get(bob, "exercises"), "vector-add");
    assert_string_equal(json_string_value(json_object_get(bva, "verdict")), "fail");
    json_t *bsx = json_object_get(json_object_get(bob, "exercises"), "saxpy");
    assert_true(json_is_null(json_object_get(bsx, "source_sha256")));
    assert_string_equal(json_string_value(json_array_get(json_object_get(bob, "problems"), 0)), "late");
    assert_true(json_is_object(json_object_get(bob, "progress")));
    assert_true(json_is_array(json_object_get(book, "similarity")));
    json_decref(book);
    gradedb_close(&g);
}

/* A timed kernel's spread (metrics.kernels.K.timing) shows per cell under
 * "timing", to tell a slow kernel from disturbed reps; kernels that were
 * not timed are left out, and so is "timing" when none was. */
static void gradedb_export_json__keeps_each_timed_kernels_spread(void **state) {
    StoreFixture *f = *state;
    GradeDb *g = open_at(f->db_path, "v1");
    put_student(g, "alice", "sha-a1", "sha-a2");
    GradeRun r = {.student = "alice", .exercise = "vector-add", .source_sha256 = "sha-a1", .course_version = "v1",
                  .verdict = "fail", .failure_kind = "too-slow", .points = 0, .max_points = 1, .duration_ms = 500,
                  .kernel_ms = 0.552, .backend = "cuda", .message = "14% slower than the target",
                  .result_json = "{\"metrics\":{\"kernels\":{\"reduce_sum\":{\"timing\":{\"ms_min\":0.4839,"
                                 "\"ms_median\":0.552,\"ms_p90\":0.5549,\"ms_max\":0.556,\"reps\":20}},"
                                 "\"fill\":{\"launches\":1}}}}"};
    bool inserted = false;
    assert_no_diag(gradedb_record_run(g, &r, &inserted));
    record(g, "alice", "saxpy", "sha-a2", "v1", true, 2);
    json_t *book = NULL;
    assert_no_diag(gradedb_export_json(g, &book));
    json_t *cells = json_object_get(json_array_get(json_object_get(book, "students"), 0), "exercises");
    json_t *timing = json_object_get(json_object_get(cells, "vector-add"), "timing");
    assert_int_equal(json_object_size(timing), 1);
    json_t *rs = json_object_get(timing, "reduce_sum");
    assert_true(json_real_value(json_object_get(rs, "ms_min")) == 0.4839);
    assert_true(json_real_value(json_object_get(rs, "ms_median")) == 0.552);
    assert_int_equal(json_integer_value(json_object_get(rs, "reps")), 20);
    assert_null(json_object_get(json_object_get(cells, "saxpy"), "timing"));
    json_decref(book);
    gradedb_close(&g);
}

/* The gradebook without its time stamp, as text. */
static char *book_text(GradeDb *g) {
    json_t *book = NULL;
    assert_no_diag(gradedb_export_json(g, &book));
    json_object_del(book, "generated_unix_ms");
    char *s = json_dumps(book, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(book);
    return s;
}

static void gradedb_merge__joins_shards_in_any_order_and_twice_to_the_same_gradebook(void **state) {
    StoreFixture *f = *state;
    char *p1 = path_join(f->dir, "s1.db"), *p2 = path_join(f->dir, "s2.db"), *whole = path_join(f->dir, "w.db");
    char *m1 = path_join(f->dir, "m1.db"), *m2 = path_join(f->dir, "m2.db");
    GradeDb *a = open_at(p1, "v1"), *b = open_at(p2, "v1"), *w = open_at(whole, "v1");
    GradeDb *targets[] = {a, w};
    for (int i = 0; i < 2; i++) {
        put_student(targets[i], "alice", "sha-a1", "sha-a2");
        record(targets[i], "alice", "vector-add", "sha-a1", "v1", true, 1);
        record(targets[i], "alice", "saxpy", "sha-a2", "v1", true, 2);
    }
    targets[0] = b;
    for (int i = 0; i < 2; i++) {
        put_student(targets[i], "bob", "sha-b1", NULL);
        record(targets[i], "bob", "vector-add", "sha-b1", "v1", false, 1);
    }
    gradedb_close(&a);
    gradedb_close(&b);
    GradeDb *x = open_at(m1, NULL), *y = open_at(m2, NULL);
    GradeMergeStats st;
    assert_no_diag(gradedb_merge(x, p1, &st));
    assert_int_equal(st.runs_added, 2);
    assert_no_diag(gradedb_merge(x, p2, &st));
    assert_no_diag(gradedb_merge(x, p1, &st)); /* again: nothing changes */
    assert_int_equal(st.runs_added, 0);
    assert_int_equal(st.runs_present, 2);
    assert_no_diag(gradedb_merge(y, p2, NULL));
    assert_no_diag(gradedb_merge(y, p1, NULL));
    char *tw = book_text(w), *tx = book_text(x), *ty = book_text(y);
    assert_string_equal(tx, tw);
    assert_string_equal(ty, tw);
    free(tw);
    free(tx);
    free(ty);
    gradedb_close(&w);
    gradedb_close(&x);
    gradedb_close(&y);
    free(p1);
    free(p2);
    free(whole);
    free(m1);
    free(m2);
}

static void gradedb_merge__refuses_a_shard_of_another_course_version__and_changes_nothing(void **state) {
    StoreFixture *f = *state;
    char *p1 = path_join(f->dir, "s1.db"), *p2 = path_join(f->dir, "s2.db");
    GradeDb *a = open_at(p1, "v1");
    put_student(a, "alice", "sha-a1", NULL);
    record(a, "alice", "vector-add", "sha-a1", "v1", true, 1);
    gradedb_close(&a);
    GradeDb *into = open_at(p2, "v2");
    put_student(into, "bob", "sha-b1", NULL);
    Diag *d = gradedb_merge(into, p1, NULL);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "course version"));
    assert_string_equal(d->file, p1);
    diag_free(&d);
    long long runs = -1, subs = -1;
    assert_no_diag(gradedb_count(into, &runs, &subs));
    assert_int_equal(runs, 0);
    assert_int_equal(subs, 1);
    gradedb_close(&into);
    free(p1);
    free(p2);
}

static void gradedb_open_readonly__refuses_a_missing_file__and_creates_nothing(void **state) {
    StoreFixture *f = *state;
    GradeDb *g = NULL;
    Diag *d = gradedb_open_readonly(f->db_path, &g);
    assert_non_null(d);
    assert_null(g);
    diag_free(&d);
    assert_false(fs_exists(f->db_path));
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, store_fixture_setup, store_fixture_teardown)
    const struct CMUnitTest tests[] = {
        T(gradedb_open__refuses_a_learners_progress_db__and_leaves_it_untouched),
        T(gradedb_open__refuses_a_file_that_is_not_sqlite),
        T(gradedb_set_course__refuses_another_course_version__once_runs_are_recorded),
        T(gradedb_record_run__keeps_the_first__when_the_same_file_and_version_come_again),
        T(gradedb_export_json__shows_the_run_of_each_students_current_source),
        T(gradedb_export_json__keeps_each_timed_kernels_spread),
        T(gradedb_merge__joins_shards_in_any_order_and_twice_to_the_same_gradebook),
        T(gradedb_merge__refuses_a_shard_of_another_course_version__and_changes_nothing),
        T(gradedb_open_readonly__refuses_a_missing_file__and_creates_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
