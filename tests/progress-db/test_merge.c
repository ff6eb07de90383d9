/* tests/progress-db/test_merge.c: `cudojo progress --merge` underneath
 * (progress-db/store_merge.c): another workspace's attempts and hints join
 * this one's without loss or doubling, a second merge changes nothing, the
 * other workspace's uuid is recorded, and a bad file changes nothing. */
#include "tests/progress-db/store_fixture.h"

#include <sys/stat.h>

typedef struct Pair {
    StoreFixture *f;
    char *other_path;   /* dir/other.db */
    Store *mine, *other;
} Pair;

static int pair_setup(void **state) {
    void *fs = NULL;
    if (store_fixture_setup(&fs)) return -1;
    Pair *p = xcalloc(1, sizeof *p);
    p->f = fs;
    p->other_path = path_join(p->f->dir, "other.db");
    Diag *d = store_open(p->f->db_path, &p->mine);
    if (!d) d = store_open(p->other_path, &p->other);
    if (d) {
        diag_free(&d);
        return -1;
    }
    *state = p;
    return 0;
}

static int pair_teardown(void **state) {
    Pair *p = *state;
    store_close(&p->mine);
    store_close(&p->other);
    void *fs = p->f;
    store_fixture_teardown(&fs);
    free(p->other_path);
    free(p);
    return 0;
}

static void record(Store *s, const char *id, const char *verdict, long long when, const char *source) {
    Attempt a = store_fixture_attempt(id, verdict, when, -1);
    a.source_hash = source;
    assert_no_diag(store_record_attempt(s, &a, NULL));
}

static int attempts_of(Store *s, const char *id) {
    ExerciseStatus st;
    memset(&st, 0, sizeof st);
    assert_no_diag(store_exercise_status(s, id, &st));
    int n = st.attempts;
    exercise_status_fini(&st);
    return n;
}

static int hints_of(Store *s, const char *id) {
    int n = 0;
    assert_no_diag(store_hints_taken(s, id, &n));
    return n;
}

static json_t *export_of(Store *s) {
    json_t *j = NULL;
    assert_no_diag(store_export_json(s, &j));
    return j;
}

static void store_merge_db__adds_the_other_attempts_and_hints__and_records_its_uuid(void **state) {
    Pair *p = *state;
    record(p->mine, "vector-add", "fail", 1000, "a");
    record(p->other, "vector-add", "pass", 2000, "b");
    record(p->other, "block-sum", "fail", 3000, "c");
    assert_no_diag(store_record_hint(p->other, "block-sum", 0));
    assert_no_diag(store_record_hint(p->other, "block-sum", 1));
    StoreMergeStats st;
    assert_no_diag(store_merge_db(p->mine, p->other_path, p->f->dir, &st));
    assert_int_equal(st.attempts_added, 2);
    assert_int_equal(st.attempts_present, 0);
    assert_int_equal(st.hints_added, 2);
    assert_int_equal(st.exercises, 2);
    assert_false(st.same_workspace);
    assert_string_equal(st.source_uuid, store_workspace_uuid(p->other));
    assert_int_equal(attempts_of(p->mine, "vector-add"), 2);
    assert_int_equal(attempts_of(p->mine, "block-sum"), 1);
    assert_int_equal(hints_of(p->mine, "block-sum"), 2);

    ExerciseStatus es;
    memset(&es, 0, sizeof es);
    assert_no_diag(store_exercise_status(p->mine, "vector-add", &es));
    assert_true(es.passed);
    assert_int_equal(es.first_pass_unix_ms, 2000);
    exercise_status_fini(&es);

    json_t *j = export_of(p->mine);
    json_t *merged = json_object_get(j, "merged_workspaces");
    assert_int_equal(json_array_size(merged), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(merged, 0), "uuid")),
                        store_workspace_uuid(p->other));
    assert_int_equal(json_integer_value(json_object_get(json_array_get(merged, 0), "attempts_added")), 2);
    json_decref(j);
}

static void store_merge_db__changes_nothing__when_merged_twice(void **state) {
    Pair *p = *state;
    record(p->other, "vector-add", "fail", 1000, "a");
    record(p->other, "vector-add", "pass", 2000, "b");
    assert_no_diag(store_record_hint(p->other, "vector-add", 0));
    StoreMergeStats st;
    assert_no_diag(store_merge_db(p->mine, p->other_path, p->f->dir, &st));
    assert_int_equal(st.attempts_added, 2);
    assert_no_diag(store_merge_db(p->mine, p->other_path, p->f->dir, &st));
    assert_int_equal(st.attempts_added, 0);
    assert_int_equal(st.attempts_present, 2);
    assert_int_equal(st.hints_added, 0);
    assert_int_equal(attempts_of(p->mine, "vector-add"), 2);
    assert_int_equal(hints_of(p->mine, "vector-add"), 1);
}

static void store_merge_db__gives_both_the_same_history__when_merged_both_ways(void **state) {
    Pair *p = *state;
    record(p->mine, "vector-add", "fail", 1000, "a");
    record(p->mine, "vector-add", "pass", 1500, "a2");
    record(p->other, "vector-add", "fail", 2000, "b");
    /* Same time, same verdict and backend but another source: a different attempt. */
    record(p->other, "vector-add", "fail", 1000, "other-source");
    StoreMergeStats st;
    assert_no_diag(store_merge_db(p->mine, p->other_path, p->f->dir, &st));
    assert_int_equal(st.attempts_added, 2);
    assert_no_diag(store_merge_db(p->other, p->f->db_path, p->f->dir, &st));
    assert_int_equal(st.attempts_added, 2);   /* mine's own two; other's came back and were found */
    assert_int_equal(st.attempts_present, 2);
    assert_int_equal(attempts_of(p->mine, "vector-add"), 4);
    assert_int_equal(attempts_of(p->other, "vector-add"), 4);
}

static void store_merge_json__keeps_fast_kernel_time_checks_and_app_version(void **state) {
    Pair *p = *state;
    Attempt a = store_fixture_attempt("vector-add", "pass", 5000, 0.25);
    a.fast = true;
    a.checks_json = "[{\"name\":\"c\",\"passed\":true}]";
    assert_no_diag(store_record_attempt(p->other, &a, NULL));
    json_t *doc = export_of(p->other);
    json_t *att = json_array_get(json_object_get(json_array_get(json_object_get(doc, "exercises"), 0), "attempts"), 0);
    json_object_set_new(att, "app_version", json_string("0.0.9"));
    StoreMergeStats st;
    assert_no_diag(store_merge_json(p->mine, doc, "laptop/progress.json", &st));
    assert_int_equal(st.attempts_added, 1);
    json_decref(doc);

    ExerciseStatus es;
    memset(&es, 0, sizeof es);
    assert_no_diag(store_exercise_status(p->mine, "vector-add", &es));
    assert_true(es.passed_fast);
    assert_true(es.best_kernel_ms > 0.24 && es.best_kernel_ms < 0.26);
    exercise_status_fini(&es);
    json_t *mine = NULL;
    assert_no_diag(store_attempts_json(p->mine, "vector-add", 0, &mine));
    json_t *m0 = json_array_get(mine, 0);
    assert_string_equal(json_string_value(json_object_get(m0, "app_version")), "0.0.9");
    assert_true(json_is_true(json_object_get(m0, "fast")));
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(m0, "checks"), 0), "name")),
                        "c");
    json_decref(mine);
}

static void store_merge_json__does_nothing__when_it_is_this_workspace(void **state) {
    Pair *p = *state;
    record(p->mine, "vector-add", "fail", 1000, "a");
    json_t *doc = export_of(p->mine);
    StoreMergeStats st;
    assert_no_diag(store_merge_json(p->mine, doc, "self.json", &st));
    assert_true(st.same_workspace);
    assert_int_equal(st.attempts_added, 0);
    assert_int_equal(attempts_of(p->mine, "vector-add"), 1);
    json_decref(doc);
    doc = export_of(p->mine);
    assert_int_equal(json_array_size(json_object_get(doc, "merged_workspaces")), 0);
    json_decref(doc);
}

/* Merging doc must fail naming origin and leave mine exactly as it was. */
static void expect_merge_refused(Pair *p, json_t *doc, const char *needle) {
    record(p->mine, "vector-add", "fail", 1000, "a");
    StoreMergeStats st;
    Diag *d = store_merge_json(p->mine, doc, "bad/progress.json", &st);
    assert_non_null(d);
    assert_string_equal(d->file, "bad/progress.json");
    if (!strstr(d->message, needle)) {
        print_error("'%s' not in: %s\n", needle, d->message);
        fail();
    }
    diag_free(&d);
    assert_int_equal(st.attempts_added, 0);
    assert_int_equal(attempts_of(p->mine, "vector-add"), 1);
    assert_int_equal(attempts_of(p->mine, "block-sum"), 0);
    json_t *j = export_of(p->mine);
    assert_int_equal(json_array_size(json_object_get(j, "merged_workspaces")), 0);
    json_decref(j);
}

static void store_merge_json__refuses_a_document_that_is_not_a_progress_export(void **state) {
    json_t *doc = json_pack("{s:s, s:i, s:[]}", "format", "cudojo-gradebook", "format_version", 1, "exercises");
    expect_merge_refused(*state, doc, "not a cudojo progress export");
    json_decref(doc);
}

static void store_merge_json__refuses_a_newer_format(void **state) {
    json_t *doc = json_pack("{s:s, s:i, s:[]}", "format", "cudojo-progress", "format_version", 99, "exercises");
    expect_merge_refused(*state, doc, "newer cudojo");
    json_decref(doc);
}

static void store_merge_json__merges_nothing__when_one_attempt_is_malformed(void **state) {
    /* The first attempt is fine; the second lacks a verdict: the first must not stay either. */
    json_t *doc = json_pack("{s:s, s:i, s:{s:s}, s:[{s:s, s:[{s:I, s:s, s:s}, {s:I, s:s}]}]}", "format",
                            "cudojo-progress", "format_version", 1, "workspace", "uuid",
                            "11111111-2222-4333-8444-555555555555", "exercises", "id", "block-sum", "attempts",
                            "when_unix_ms", (json_int_t)7000, "verdict", "pass", "backend", "emu", "when_unix_ms",
                            (json_int_t)8000, "backend", "emu");
    assert_non_null(doc);
    expect_merge_refused(*state, doc, "attempt 2 of exercise 'block-sum'");
    json_decref(doc);
}

static void store_merge_db__names_the_file_and_leaves_it_untouched__when_not_a_progress_db(void **state) {
    Pair *p = *state;
    char *junk = path_join(p->f->dir, "junk.db");
    store_fixture_write(junk, "not sqlite at all, just text that is long enough to be read.....", 64);
    StoreMergeStats st;
    Diag *d = store_merge_db(p->mine, junk, p->f->dir, &st);
    assert_non_null(d);
    assert_string_equal(d->file, junk);
    diag_free(&d);
    size_t len = 0;
    char *after = store_fixture_read(junk, &len);
    assert_int_equal(len, 64);
    assert_memory_equal(after, "not sqlite at all", 17);
    free(after);
    free(junk);
}

static void store_merge_db__reads_the_other_db_without_writing_it(void **state) {
    Pair *p = *state;
    record(p->other, "vector-add", "pass", 2000, "b");
    store_close(&p->other);   /* closed: no -wal beside it */
    size_t before_len = 0, after_len = 0;
    char *before = store_fixture_read(p->other_path, &before_len);
    struct stat sb;
    StoreMergeStats st;
    assert_no_diag(store_merge_db(p->mine, p->other_path, p->f->dir, &st));
    assert_int_equal(st.attempts_added, 1);
    char *after = store_fixture_read(p->other_path, &after_len);
    assert_int_equal(before_len, after_len);
    assert_memory_equal(before, after, before_len);
    char *shm = xasprintf("%s-shm", p->other_path);
    assert_int_not_equal(stat(shm, &sb), 0);
    free(shm);
    free(before);
    free(after);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, pair_setup, pair_teardown)
    const struct CMUnitTest tests[] = {
        T(store_merge_db__adds_the_other_attempts_and_hints__and_records_its_uuid),
        T(store_merge_db__changes_nothing__when_merged_twice),
        T(store_merge_db__gives_both_the_same_history__when_merged_both_ways),
        T(store_merge_json__keeps_fast_kernel_time_checks_and_app_version),
        T(store_merge_json__does_nothing__when_it_is_this_workspace),
        T(store_merge_json__refuses_a_document_that_is_not_a_progress_export),
        T(store_merge_json__refuses_a_newer_format),
        T(store_merge_json__merges_nothing__when_one_attempt_is_malformed),
        T(store_merge_db__names_the_file_and_leaves_it_untouched__when_not_a_progress_db),
        T(store_merge_db__reads_the_other_db_without_writing_it),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
