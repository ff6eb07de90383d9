/* tests/progress-db/test_store.c: the progress store as the app uses it:
 * opening, recording attempts and hints, the status `cudojo list` shows,
 * and the JSON of `cudojo progress --json` and the instructor's export. */
#include "tests/progress-db/store_fixture.h"

#include <math.h>
#include <time.h>

#include "base/result.h"

static Store *open_store(StoreFixture *f) {
    Store *s = NULL;
    assert_no_diag(store_open(f->db_path, &s));
    assert_non_null(s);
    return s;
}

static void record(Store *s, const char *id, const char *verdict, long long when, double kernel_ms) {
    Attempt a = store_fixture_attempt(id, verdict, when, kernel_ms);
    assert_no_diag(store_record_attempt(s, &a, NULL));
}

static void store_open__creates_schema_at_latest_version__when_file_missing(void **state) {
    StoreFixture *f = *state;
    assert_false(fs_exists(f->db_path));
    Store *s = open_store(f);
    assert_true(fs_exists(f->db_path));
    assert_true(store_schema_latest() >= 2);
    assert_int_equal(store_schema_version(s), store_schema_latest());
    const char *uuid = store_workspace_uuid(s);
    assert_int_equal(strlen(uuid), 36);
    assert_int_equal(uuid[8], '-');
    assert_int_equal(uuid[14], '4');
    long long now = (long long)time(NULL) * 1000;
    assert_true(llabs(store_created_unix_ms(s) - now) < 60 * 1000);
    assert_no_diag(store_check_integrity(s));
    store_close(&s);
    assert_null(s);
    /* The header's read/write versions are 2 in WAL mode (SQLite file format). */
    size_t len = 0;
    unsigned char *header = (unsigned char *)store_fixture_read(f->db_path, &len);
    assert_true(len >= 100);
    assert_int_equal(header[18], 2);
    assert_int_equal(header[19], 2);
    free(header);
}

static void store_open__keeps_everything_and_changes_no_byte__when_reopened(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    record(s, "vector-add", "pass", 1000, 1.5);
    char *uuid = xstrdup(store_workspace_uuid(s));
    store_close(&s);
    size_t len_before = 0, len_after = 0;
    char *before = store_fixture_read(f->db_path, &len_before);
    assert_non_null(before);

    s = open_store(f);
    assert_int_equal(store_schema_version(s), store_schema_latest());
    assert_string_equal(store_workspace_uuid(s), uuid);
    ExerciseStatus st;
    assert_no_diag(store_exercise_status(s, "vector-add", &st));
    assert_int_equal(st.attempts, 1);
    exercise_status_fini(&st);
    store_close(&s);

    char *after = store_fixture_read(f->db_path, &len_after);
    assert_int_equal(len_before, len_after);
    assert_memory_equal(before, after, len_before);
    free(before);
    free(after);
    free(uuid);
}

static void store_open__initialises__when_file_is_zero_bytes(void **state) {
    StoreFixture *f = *state;
    store_fixture_write(f->db_path, "", 0);
    Store *s = open_store(f);
    assert_int_equal(store_schema_version(s), store_schema_latest());
    record(s, "vector-add", "fail", 0, -1);
    store_close(&s);
}

static void status__counts_attempts_and_gives_last_verdict(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    record(s, "vector-add", "compile-error", 1000, -1);
    record(s, "vector-add", "fail", 2000, -1);
    record(s, "vector-add", "runtime-error", 3000, -1);
    record(s, "grid-stride", "pass", 2500, 1.0);
    ExerciseStatus st;
    assert_no_diag(store_exercise_status(s, "vector-add", &st));
    assert_string_equal(st.exercise_id, "vector-add");
    assert_int_equal(st.attempts, 3);
    assert_false(st.passed);
    assert_int_equal(st.first_pass_unix_ms, 0);
    assert_true(st.best_kernel_ms < 0);
    assert_string_equal(st.last_verdict, "runtime-error");
    assert_int_equal(st.last_unix_ms, 3000);
    assert_true(fabs(st.time_spent_ms - 30.0) < 1e-9);
    exercise_status_fini(&st);
    store_close(&s);
}

static void status__last_verdict_is_the_latest_by_time__when_recorded_out_of_order(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    record(s, "vector-add", "pass", 5000, 2.0);
    record(s, "vector-add", "fail", 4000, -1); /* e.g. merged from another machine */
    ExerciseStatus st;
    assert_no_diag(store_exercise_status(s, "vector-add", &st));
    assert_string_equal(st.last_verdict, "pass");
    assert_int_equal(st.last_unix_ms, 5000);
    exercise_status_fini(&st);
    store_close(&s);
}

static void status__first_pass_and_best_time_come_only_from_passes(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    record(s, "vector-add", "fail", 1000, 0.25); /* fastest, but wrong */
    record(s, "vector-add", "pass", 2000, 3.0);
    record(s, "vector-add", "pass", 3000, 2.0);
    record(s, "vector-add", "pass", 3500, -1); /* no kernel time measured (emulator) */
    record(s, "vector-add", "fail", 4000, 0.1);
    ExerciseStatus st;
    assert_no_diag(store_exercise_status(s, "vector-add", &st));
    assert_int_equal(st.attempts, 5);
    assert_true(st.passed);
    assert_int_equal(st.first_pass_unix_ms, 2000);
    assert_true(fabs(st.best_kernel_ms - 2.0) < 1e-12);
    assert_string_equal(st.last_verdict, "fail");
    exercise_status_fini(&st);
    store_close(&s);
}

static void status__passed_fast_only_from_a_fast_pass(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    Attempt a = store_fixture_attempt("vector-add", "fail", 1000, -1);
    a.fast = true;                      /* a failing run is never fast */
    assert_no_diag(store_record_attempt(s, &a, NULL));
    record(s, "vector-add", "pass", 2000, 1.0);
    ExerciseStatus st;
    assert_no_diag(store_exercise_status(s, "vector-add", &st));
    assert_true(st.passed);
    assert_false(st.passed_fast);
    exercise_status_fini(&st);
    a = store_fixture_attempt("vector-add", "pass", 3000, 0.5);
    a.fast = true;
    assert_no_diag(store_record_attempt(s, &a, NULL));
    record(s, "vector-add", "pass", 4000, 1.0);   /* a later slower pass keeps the star */
    assert_no_diag(store_exercise_status(s, "vector-add", &st));
    assert_true(st.passed_fast);
    exercise_status_fini(&st);
    ExerciseStatus *all = NULL;
    int n = 0;
    assert_no_diag(store_all_status(s, &all, &n));
    assert_int_equal(n, 1);
    assert_true(all[0].passed_fast);
    exercise_status_free_array(&all, n);
    store_close(&s);
}

static void status__best_time_is_none__when_passes_have_no_kernel_time(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    record(s, "vector-add", "pass", 2000, -1);
    ExerciseStatus st;
    assert_no_diag(store_exercise_status(s, "vector-add", &st));
    assert_true(st.passed);
    assert_true(st.best_kernel_ms < 0);
    exercise_status_fini(&st);
    store_close(&s);
}

static void status__is_empty__when_exercise_unknown(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    record(s, "vector-add", "pass", 2000, 1.0);
    ExerciseStatus st;
    assert_no_diag(store_exercise_status(s, "never-seen", &st));
    assert_string_equal(st.exercise_id, "never-seen");
    assert_int_equal(st.attempts, 0);
    assert_false(st.passed);
    assert_null(st.last_verdict);
    assert_int_equal(st.hints_taken, 0);
    assert_true(st.best_kernel_ms < 0);
    exercise_status_fini(&st);
    store_close(&s);
}

static void hints__seen_names_the_hints_taken__in_any_order(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    bool seen[4];
    assert_no_diag(store_record_hint(s, "vector-add", 2));
    assert_no_diag(store_record_hint(s, "vector-add", 7));   /* past n: ignored */
    assert_no_diag(store_record_hint(s, "grid-stride", 0));
    assert_no_diag(store_hints_seen(s, "vector-add", seen, 4));
    assert_false(seen[0]);
    assert_false(seen[1]);
    assert_true(seen[2]);
    assert_false(seen[3]);
    store_close(&s);
}

static void hints__count_each_hint_once__when_taken_again(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    int n = -1;
    assert_no_diag(store_hints_taken(s, "vector-add", &n));
    assert_int_equal(n, 0);
    assert_no_diag(store_record_hint(s, "vector-add", 0));
    assert_no_diag(store_record_hint(s, "vector-add", 0));
    assert_no_diag(store_record_hint(s, "vector-add", 1));
    assert_no_diag(store_record_hint(s, "grid-stride", 0));
    assert_no_diag(store_hints_taken(s, "vector-add", &n));
    assert_int_equal(n, 2);
    ExerciseStatus st;
    assert_no_diag(store_exercise_status(s, "vector-add", &st));
    assert_int_equal(st.hints_taken, 2);
    assert_int_equal(st.attempts, 0); /* a hint is not an attempt */
    exercise_status_fini(&st);
    store_close(&s);
}

static void all_status__matches_each_exercise_status__in_id_order(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    record(s, "vector-add", "fail", 1000, -1);
    record(s, "vector-add", "pass", 2000, 4.0);
    record(s, "block-sum", "fail", 1500, -1);
    assert_no_diag(store_record_hint(s, "block-sum", 0));
    assert_no_diag(store_record_hint(s, "hello", 1)); /* only a hint, no attempt */
    ExerciseStatus *all = NULL;
    int n = 0;
    assert_no_diag(store_all_status(s, &all, &n));
    assert_int_equal(n, 3);
    const char *want[] = {"block-sum", "hello", "vector-add"};
    for (int i = 0; i < n; i++) {
        assert_string_equal(all[i].exercise_id, want[i]);
        ExerciseStatus one;
        assert_no_diag(store_exercise_status(s, want[i], &one));
        assert_int_equal(all[i].attempts, one.attempts);
        assert_int_equal(all[i].passed, one.passed);
        assert_int_equal(all[i].first_pass_unix_ms, one.first_pass_unix_ms);
        assert_true(all[i].best_kernel_ms == one.best_kernel_ms);
        assert_int_equal(all[i].hints_taken, one.hints_taken);
        assert_int_equal(all[i].last_unix_ms, one.last_unix_ms);
        if (one.last_verdict) assert_string_equal(all[i].last_verdict, one.last_verdict);
        else assert_null(all[i].last_verdict);
        exercise_status_fini(&one);
    }
    assert_int_equal(all[1].attempts, 0);
    assert_int_equal(all[1].hints_taken, 1);
    assert_true(all[2].passed);
    assert_true(fabs(all[2].best_kernel_ms - 4.0) < 1e-12);
    exercise_status_free_array(&all, n);
    assert_null(all);
    store_close(&s);
}

static void record_attempt__refuses_and_records_nothing__when_metrics_are_not_json(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    Attempt a = store_fixture_attempt("vector-add", "pass", 1000, 1.0);
    a.metrics_json = "{\"ms\": 1.0";
    Diag *d = store_record_attempt(s, &a, NULL);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "metrics_json"));
    diag_free(&d);
    ExerciseStatus st;
    assert_no_diag(store_exercise_status(s, "vector-add", &st));
    assert_int_equal(st.attempts, 0);
    exercise_status_fini(&st);
    store_close(&s);
}

static void record_attempt__gives_increasing_ids(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    Attempt a = store_fixture_attempt("vector-add", "fail", 0, -1);
    long long id1 = 0, id2 = 0;
    assert_no_diag(store_record_attempt(s, &a, &id1));
    assert_no_diag(store_record_attempt(s, &a, &id2));
    assert_true(id1 > 0);
    assert_true(id2 > id1);
    store_close(&s);
}

static void attempts_json__lists_newest_first_with_stored_json__up_to_limit(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    Attempt a = store_fixture_attempt("vector-add", "fail", 1000, -1);
    a.checks_json = "[{\"name\":\"out\",\"passed\":false}]";
    a.diags_json = "[]";
    assert_no_diag(store_record_attempt(s, &a, NULL));
    a = store_fixture_attempt("vector-add", "pass", 2000, 1.25);
    a.metrics_json = "{\"gbps\": 812.5}";
    assert_no_diag(store_record_attempt(s, &a, NULL));
    a = store_fixture_attempt("vector-add", "pass", 3000, 1.0);
    assert_no_diag(store_record_attempt(s, &a, NULL));
    record(s, "other", "pass", 2500, 1.0);

    json_t *arr = NULL;
    assert_no_diag(store_attempts_json(s, "vector-add", 2, &arr));
    assert_true(json_is_array(arr));
    assert_int_equal(json_array_size(arr), 2);
    json_t *newest = json_array_get(arr, 0), *second = json_array_get(arr, 1);
    assert_int_equal(json_integer_value(json_object_get(newest, "when_unix_ms")), 3000);
    assert_int_equal(json_integer_value(json_object_get(second, "when_unix_ms")), 2000);
    assert_string_equal(json_string_value(json_object_get(second, "exercise")), "vector-add");
    assert_string_equal(json_string_value(json_object_get(second, "verdict")), "pass");
    assert_string_equal(json_string_value(json_object_get(second, "backend")), "emu");
    assert_string_equal(json_string_value(json_object_get(second, "def_hash")), "def-1");
    assert_string_equal(json_string_value(json_object_get(second, "source_hash")), "src-1");
    assert_string_equal(json_string_value(json_object_get(second, "app_version")), CUDOJO_VERSION);
    assert_true(json_is_integer(json_object_get(second, "id")));
    assert_true(fabs(json_real_value(json_object_get(second, "kernel_ms")) - 1.25) < 1e-12);
    assert_true(fabs(json_real_value(json_object_get(second, "duration_ms")) - 10.0) < 1e-12);
    assert_true(fabs(json_real_value(json_object_get(json_object_get(second, "metrics"), "gbps")) - 812.5) < 1e-12);
    assert_true(json_is_null(json_object_get(second, "checks")));
    assert_true(json_is_null(json_object_get(second, "diags")));
    json_decref(arr);

    assert_no_diag(store_attempts_json(s, "vector-add", 0, &arr));
    assert_int_equal(json_array_size(arr), 3);
    json_t *oldest = json_array_get(arr, 2);
    assert_true(json_is_null(json_object_get(oldest, "kernel_ms")));
    json_t *check0 = json_array_get(json_object_get(oldest, "checks"), 0);
    assert_string_equal(json_string_value(json_object_get(check0, "name")), "out");
    assert_true(json_is_array(json_object_get(oldest, "diags")));
    json_decref(arr);

    assert_no_diag(store_attempts_json(s, "never-seen", 10, &arr));
    assert_int_equal(json_array_size(arr), 0);
    json_decref(arr);
    store_close(&s);
}

static void export_json__holds_every_exercise_with_status_hints_and_attempts(void **state) {
    StoreFixture *f = *state;
    Store *s = open_store(f);
    record(s, "vector-add", "fail", 1000, -1);
    Attempt a = store_fixture_attempt("vector-add", "pass", 2000, 2.5);
    a.def_hash = "def-2"; /* the curriculum changed between the two attempts */
    assert_no_diag(store_record_attempt(s, &a, NULL));
    assert_no_diag(store_record_hint(s, "vector-add", 1));
    assert_no_diag(store_record_hint(s, "vector-add", 0));
    assert_no_diag(store_record_hint(s, "hello", 0));

    json_t *root = NULL;
    assert_no_diag(store_export_json(s, &root));
    assert_string_equal(json_string_value(json_object_get(root, "format")), "cudojo-progress");
    assert_int_equal(json_integer_value(json_object_get(root, "format_version")), 1);
    assert_int_equal(json_integer_value(json_object_get(root, "schema")), store_schema_latest());
    json_t *ws = json_object_get(root, "workspace");
    assert_string_equal(json_string_value(json_object_get(ws, "uuid")), store_workspace_uuid(s));
    assert_int_equal(json_integer_value(json_object_get(ws, "created_unix_ms")), store_created_unix_ms(s));
    assert_true(json_is_integer(json_object_get(root, "exported_unix_ms")));
    json_t *list = json_object_get(root, "exercises");
    assert_int_equal(json_array_size(list), 2);

    json_t *hello = json_array_get(list, 0), *va = json_array_get(list, 1);
    assert_string_equal(json_string_value(json_object_get(hello, "id")), "hello");
    assert_int_equal(json_integer_value(json_object_get(hello, "attempts")), 0);
    assert_true(json_is_false(json_object_get(hello, "passed")));
    assert_true(json_is_null(json_object_get(hello, "last_verdict")));
    assert_true(json_is_null(json_object_get(hello, "first_def_hash")));
    assert_int_equal(json_array_size(json_object_get(hello, "attempts")), 0);

    assert_string_equal(json_string_value(json_object_get(va, "id")), "vector-add");
    assert_true(json_is_true(json_object_get(va, "passed")));
    assert_int_equal(json_integer_value(json_object_get(va, "first_pass_unix_ms")), 2000);
    assert_true(fabs(json_real_value(json_object_get(va, "best_kernel_ms")) - 2.5) < 1e-12);
    assert_string_equal(json_string_value(json_object_get(va, "last_verdict")), "pass");
    assert_int_equal(json_integer_value(json_object_get(va, "hints_taken")), 2);
    assert_int_equal(json_integer_value(json_object_get(va, "first_seen_unix_ms")), 1000);
    assert_true(json_integer_value(json_object_get(va, "last_seen_unix_ms")) >= 2000); /* the hints came later */
    assert_string_equal(json_string_value(json_object_get(va, "first_def_hash")), "def-1");
    assert_string_equal(json_string_value(json_object_get(va, "last_def_hash")), "def-2");
    json_t *hints = json_object_get(va, "hints");
    assert_int_equal(json_array_size(hints), 2);
    assert_int_equal(json_integer_value(json_array_get(hints, 0)), 0);
    assert_int_equal(json_integer_value(json_array_get(hints, 1)), 1);
    json_t *attempts = json_object_get(va, "attempts");
    assert_int_equal(json_array_size(attempts), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(attempts, 0), "def_hash")), "def-2");
    assert_string_equal(json_string_value(json_object_get(json_array_get(attempts, 1), "def_hash")), "def-1");
    json_decref(root);
    store_close(&s);
}

static void status_json__uses_null_for_absent_values(void **state) {
    (void)state;
    ExerciseStatus st = {.exercise_id = "x", .best_kernel_ms = -1};
    json_t *o = exercise_status_to_json(&st);
    assert_true(json_is_null(json_object_get(o, "first_pass_unix_ms")));
    assert_true(json_is_null(json_object_get(o, "best_kernel_ms")));
    assert_true(json_is_null(json_object_get(o, "last_verdict")));
    assert_true(json_is_null(json_object_get(o, "last_unix_ms")));
    assert_int_equal(json_integer_value(json_object_get(o, "hints_taken")), 0);
    json_decref(o);
}

static void two_stores__see_each_others_attempts__on_one_file(void **state) {
    StoreFixture *f = *state;
    Store *tui = open_store(f);
    Store *cli = open_store(f);
    record(cli, "vector-add", "fail", 1000, -1);
    record(tui, "vector-add", "pass", 2000, 1.0);
    ExerciseStatus st;
    assert_no_diag(store_exercise_status(tui, "vector-add", &st));
    assert_int_equal(st.attempts, 2);
    exercise_status_fini(&st);
    assert_no_diag(store_exercise_status(cli, "vector-add", &st));
    assert_int_equal(st.attempts, 2);
    assert_true(st.passed);
    exercise_status_fini(&st);
    store_close(&cli);
    store_close(&tui);
}

/* The status SQL says 'pass'; it must be what the engine calls a pass. */
static void status_sql__pass_is_the_engines_pass_verdict(void **state) {
    (void)state;
    assert_string_equal(verdict_name(VERDICT_PASS), "pass");
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, store_fixture_setup, store_fixture_teardown)
    const struct CMUnitTest tests[] = {
        T(store_open__creates_schema_at_latest_version__when_file_missing),
        T(store_open__keeps_everything_and_changes_no_byte__when_reopened),
        T(store_open__initialises__when_file_is_zero_bytes),
        T(status__counts_attempts_and_gives_last_verdict),
        T(status__passed_fast_only_from_a_fast_pass),
        T(status__last_verdict_is_the_latest_by_time__when_recorded_out_of_order),
        T(status__first_pass_and_best_time_come_only_from_passes),
        T(status__best_time_is_none__when_passes_have_no_kernel_time),
        T(status__is_empty__when_exercise_unknown),
        T(hints__count_each_hint_once__when_taken_again),
        T(hints__seen_names_the_hints_taken__in_any_order),
        T(all_status__matches_each_exercise_status__in_id_order),
        T(record_attempt__refuses_and_records_nothing__when_metrics_are_not_json),
        T(record_attempt__gives_increasing_ids),
        T(attempts_json__lists_newest_first_with_stored_json__up_to_limit),
        T(export_json__holds_every_exercise_with_status_hints_and_attempts),
        cmocka_unit_test(status_json__uses_null_for_absent_values),
        T(two_stores__see_each_others_attempts__on_one_file),
        cmocka_unit_test(status_sql__pass_is_the_engines_pass_verdict),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
