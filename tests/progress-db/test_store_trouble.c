/* tests/progress-db/test_store_trouble.c: what the store says and does when
 * something outside it goes wrong: another program holding the write lock
 * (reading still works; a write says the database is busy, not "starting a
 * migration"), and a damaged database refused without a -wal or -shm file
 * appearing beside it. (A full disk needs a tiny file system: see
 * tests/app/test_hardening.sh.) */
#include "tests/progress-db/store_fixture.h"

#include <sqlite3.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void make_store(const char *path) {
    Store *s = NULL;
    assert_no_diag(store_open(path, &s));
    Attempt a = store_fixture_attempt("vector-add", "fail", 1000, -1);
    assert_no_diag(store_record_attempt(s, &a, NULL));
    store_close(&s);
}

/* The folder's entries, sorted, one per line (caller frees). */
static char *listing(const char *dir) {
    char *cmd = xasprintf("ls -a '%s'", dir);
    FILE *p = popen(cmd, "r");
    free(cmd);
    assert_non_null(p);
    StrBuf sb;
    strbuf_init(&sb);
    char line[512];
    while (fgets(line, sizeof line, p)) strbuf_append(&sb, line);
    pclose(p);
    char *r = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return r;
}

static void store_open__reads_at_once__when_another_program_holds_the_write_lock(void **state) {
    StoreFixture *f = *state;
    make_store(f->db_path);
    sqlite3 *other = NULL;
    assert_int_equal(sqlite3_open(f->db_path, &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO meta VALUES ('held', 'x')", NULL, NULL, NULL),
                     SQLITE_OK);
    double t0 = now_s();
    Store *s = NULL;
    assert_no_diag(store_open(f->db_path, &s));
    assert_true(now_s() - t0 < 2.0);
    ExerciseStatus st;
    memset(&st, 0, sizeof st);
    assert_no_diag(store_exercise_status(s, "vector-add", &st));
    assert_int_equal(st.attempts, 1);
    exercise_status_fini(&st);

    /* A write waits its 5 s, then says what happened in words. */
    Attempt a = store_fixture_attempt("vector-add", "pass", 2000, 1.0);
    Diag *d = store_record_attempt(s, &a, NULL);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "busy"));
    assert_non_null(strstr(d->message, "try again"));
    assert_null(strstr(d->message, "migration"));
    diag_free(&d);
    store_close(&s);
    sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(other);
}

static void store_open__leaves_the_folder_as_it_was__when_it_refuses_a_damaged_database(void **state) {
    StoreFixture *f = *state;
    make_store(f->db_path);
    size_t len = 0;
    char *bytes = store_fixture_read(f->db_path, &len);
    assert_non_null(bytes);
    assert_true(len >= 4 * 4096);
    for (size_t off = 4096; off < len; off++) bytes[off] = 0x55;   /* every page but the first */
    store_fixture_write(f->db_path, bytes, len);
    char *before = listing(f->dir);
    Store *s = NULL;
    Diag *d = store_open(f->db_path, &s);
    assert_non_null(d);
    assert_null(s);
    assert_non_null(strstr(d->message, "damaged"));
    diag_free(&d);
    char *after = listing(f->dir);
    assert_string_equal(before, after);
    size_t len2 = 0;
    char *again = store_fixture_read(f->db_path, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(bytes, again, len);
    free(again);
    free(before);
    free(after);
    free(bytes);
}

static void store_open__still_opens_a_database_in_use__that_has_a_wal_beside_it(void **state) {
    StoreFixture *f = *state;
    make_store(f->db_path);
    Store *a = NULL, *b = NULL;
    assert_no_diag(store_open(f->db_path, &a));   /* keeps -wal and -shm in place */
    Attempt at = store_fixture_attempt("vector-add", "pass", 3000, 2.0);
    assert_no_diag(store_record_attempt(a, &at, NULL));
    assert_no_diag(store_open(f->db_path, &b));
    ExerciseStatus st;
    memset(&st, 0, sizeof st);
    assert_no_diag(store_exercise_status(b, "vector-add", &st));
    assert_int_equal(st.attempts, 2);
    exercise_status_fini(&st);
    store_close(&b);
    store_close(&a);
}

#define T(name) cmocka_unit_test_setup_teardown(name, store_fixture_setup, store_fixture_teardown)

int main(void) {
    const struct CMUnitTest tests[] = {
        T(store_open__reads_at_once__when_another_program_holds_the_write_lock),
        T(store_open__leaves_the_folder_as_it_was__when_it_refuses_a_damaged_database),
        T(store_open__still_opens_a_database_in_use__that_has_a_wal_beside_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
