/* tests/progress-db/test_migrations.c: store_open on databases it did not
 * just create: an old schema is migrated in order and keeps its history; a
 * file it must not touch (newer schema, not SQLite, damaged, another
 * program's) is refused with a clear message and keeps every byte.
 *
 * The old databases are built here by hand with raw SQLite, as the released
 * cudojo of that version wrote them (this test file, like progress-db/, may
 * include sqlite3.h). */
#include "tests/progress-db/store_fixture.h"

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>

/* Schema version 1 exactly as released (progress-db/store_migrations.c, entry 0). */
static const char SCHEMA_V1[] =
    "PRAGMA application_id = 1667525231;"
    "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;"
    "INSERT INTO meta VALUES ('workspace_uuid', '0f8fad5b-d9cb-469f-a165-70867728950e');"
    "INSERT INTO meta VALUES ('created_unix_ms', 1700000000000);"
    "CREATE TABLE exercises (exercise_id TEXT PRIMARY KEY NOT NULL,"
    "    first_seen_unix_ms INTEGER NOT NULL, last_seen_unix_ms INTEGER NOT NULL,"
    "    first_def_hash TEXT, last_def_hash TEXT);"
    "CREATE TABLE attempts (id INTEGER PRIMARY KEY,"
    "    exercise_id TEXT NOT NULL REFERENCES exercises (exercise_id) ON UPDATE CASCADE,"
    "    when_unix_ms INTEGER NOT NULL, verdict TEXT NOT NULL, backend TEXT NOT NULL,"
    "    duration_ms REAL NOT NULL, kernel_ms REAL, def_hash TEXT, source_hash TEXT,"
    "    app_version TEXT, checks_json TEXT, metrics_json TEXT, diags_json TEXT);"
    "CREATE TABLE hints (exercise_id TEXT NOT NULL REFERENCES exercises (exercise_id) ON UPDATE CASCADE,"
    "    hint_index INTEGER NOT NULL CHECK (hint_index >= 0), first_unix_ms INTEGER NOT NULL,"
    "    last_unix_ms INTEGER NOT NULL, times INTEGER NOT NULL DEFAULT 1,"
    "    PRIMARY KEY (exercise_id, hint_index)) WITHOUT ROWID;"
    "INSERT INTO exercises VALUES ('vector-add', 1000, 2000, 'def-1', 'def-1');"
    "INSERT INTO attempts (exercise_id, when_unix_ms, verdict, backend, duration_ms, kernel_ms)"
    "    VALUES ('vector-add', 1000, 'fail', 'emu', 5.0, NULL),"
    "           ('vector-add', 2000, 'pass', 'cuda', 7.0, 0.5);"
    "INSERT INTO hints VALUES ('vector-add', 0, 1500, 1500, 1);"
    "PRAGMA user_version = 1;";

/* Runs SQL on a database with raw SQLite (making it if missing). */
static void raw_exec(const char *path, const char *sql) {
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        print_error("raw_exec: %s\n", msg);
        sqlite3_free(msg);
        sqlite3_close(db);
        fail();
    }
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static long long raw_query_int(const char *path, const char *sql) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* Asserts store_open refuses path with a message containing each of the
 * NULL-terminated needles, and that neither the file's bytes nor those of a
 * WAL beside it changed. With no_side_files, also that no -wal/-shm file
 * appeared: a file refused on its header is never opened by SQLite. A WAL
 * that SQLite made for its read-only look must be empty, so it cannot
 * replay into a fresh database made after the learner moves the file. */
static void assert_refused_untouched(const char *path, bool no_side_files, ...) {
    char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path);
    size_t len_before = 0, len_after = 0, wal_len_before = 0, wal_len_after = 0;
    char *before = store_fixture_read(path, &len_before);
    char *wal_before = store_fixture_read(wal, &wal_len_before); /* NULL when there is none */
    assert_non_null(before);
    Store *s = NULL;
    Diag *d = store_open(path, &s);
    assert_null(s);
    assert_non_null(d);
    assert_int_equal(d->severity, DIAG_ERROR);
    assert_string_equal(d->file, path);
    va_list ap;
    va_start(ap, no_side_files);
    for (const char *needle; (needle = va_arg(ap, const char *));) {
        if (!strstr(d->message, needle)) {
            print_error("message \"%s\" lacks \"%s\"\n", d->message, needle);
            fail();
        }
    }
    va_end(ap);
    diag_free(&d);
    char *after = store_fixture_read(path, &len_after);
    assert_non_null(after);
    assert_int_equal(len_before, len_after);
    assert_memory_equal(before, after, len_before);
    char *wal_after = store_fixture_read(wal, &wal_len_after);
    if (wal_before) {
        assert_non_null(wal_after);
        assert_int_equal(wal_len_before, wal_len_after);
        assert_memory_equal(wal_before, wal_after, wal_len_before);
    } else if (no_side_files) {
        assert_null(wal_after);
        assert_false(fs_exists(shm));
    } else if (wal_after) {
        assert_int_equal(wal_len_after, 0);
    }
    free(before);
    free(after);
    free(wal_before);
    free(wal_after);
    free(wal);
    free(shm);
}

/* Opens path with raw SQLite, runs sql and closes without checkpointing, so
 * the change lives only in the -wal file and the main file's header is stale. */
static void raw_exec_in_wal_only(const char *path, const char *sql) {
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static void store_open__migrates_in_order_and_keeps_history__when_schema_is_version_1(void **state) {
    StoreFixture *f = *state;
    raw_exec(f->db_path, SCHEMA_V1);
    assert_int_equal(raw_query_int(f->db_path, "PRAGMA user_version"), 1);

    Store *s = NULL;
    assert_no_diag(store_open(f->db_path, &s));
    assert_int_equal(store_schema_version(s), store_schema_latest());
    assert_string_equal(store_workspace_uuid(s), "0f8fad5b-d9cb-469f-a165-70867728950e");
    assert_int_equal(store_created_unix_ms(s), 1700000000000LL);
    ExerciseStatus st;
    assert_no_diag(store_exercise_status(s, "vector-add", &st));
    assert_int_equal(st.attempts, 2);
    assert_true(st.passed);
    assert_int_equal(st.first_pass_unix_ms, 2000);
    assert_true(st.best_kernel_ms == 0.5);
    assert_int_equal(st.hints_taken, 1);
    assert_string_equal(st.last_verdict, "pass");
    exercise_status_fini(&st);
    /* New attempts go in next to the old ones. */
    Attempt a = store_fixture_attempt("vector-add", "fail", 3000, -1);
    assert_no_diag(store_record_attempt(s, &a, NULL));
    assert_no_diag(store_check_integrity(s));
    store_close(&s);

    /* Migration 2 made the status index. */
    assert_int_equal(raw_query_int(f->db_path,
                                   "SELECT count(*) FROM sqlite_schema WHERE type = 'index' "
                                   "AND name = 'attempts_by_exercise'"),
                     1);
    assert_int_equal(raw_query_int(f->db_path, "SELECT count(*) FROM attempts"), 3);
}

static void store_open__rolls_back_the_step_and_names_the_sql__when_a_migration_fails(void **state) {
    StoreFixture *f = *state;
    raw_exec(f->db_path, SCHEMA_V1);
    /* A table squatting on the index's name makes migration 1 -> 2 fail. */
    raw_exec(f->db_path, "CREATE TABLE attempts_by_exercise (x)");
    Store *s = NULL;
    Diag *d = store_open(f->db_path, &s);
    assert_null(s);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "from version 1 to 2"));
    assert_non_null(strstr(d->message, "attempts_by_exercise"));
    assert_non_null(strstr(d->message, "CREATE INDEX"));
    diag_free(&d);
    assert_int_equal(raw_query_int(f->db_path, "PRAGMA user_version"), 1);
    assert_int_equal(raw_query_int(f->db_path, "SELECT count(*) FROM attempts"), 2);
}

static void store_open__refuses_and_keeps_bytes__when_schema_is_newer(void **state) {
    StoreFixture *f = *state;
    raw_exec(f->db_path, SCHEMA_V1);
    raw_exec(f->db_path, "CREATE TABLE from_the_future (x); PRAGMA user_version = 7;");
    char *we_know = xasprintf("we know %d", store_schema_latest());
    assert_refused_untouched(f->db_path, true, "newer cudojo", "schema 7", we_know, "not touching it", NULL);
    free(we_know);
}

static void store_open__refuses_and_keeps_bytes__when_newer_schema_is_in_wal_mode(void **state) {
    StoreFixture *f = *state;
    raw_exec(f->db_path, SCHEMA_V1);
    raw_exec(f->db_path, "PRAGMA journal_mode = WAL; PRAGMA user_version = 9;");
    assert_refused_untouched(f->db_path, true, "schema 9", NULL);
}

/* A newer cudojo was killed before checkpointing: its version bump is only
 * in the WAL, the header still says 1. SQLite's view must win. */
static void store_open__refuses_and_keeps_bytes__when_newer_schema_is_only_in_the_wal(void **state) {
    StoreFixture *f = *state;
    raw_exec(f->db_path, SCHEMA_V1);
    raw_exec_in_wal_only(f->db_path, "CREATE TABLE from_the_future (x); PRAGMA user_version = 8;");
    size_t len = 0;
    unsigned char *header = (unsigned char *)store_fixture_read(f->db_path, &len);
    assert_true(len >= 100);
    assert_int_equal(header[63], 1); /* user_version in the main file: still 1 */
    free(header);
    assert_refused_untouched(f->db_path, false, "schema 8", NULL);
}

static void store_open__refuses_and_keeps_bytes__when_file_is_not_sqlite(void **state) {
    StoreFixture *f = *state;
    char garbage[8192];
    for (size_t i = 0; i < sizeof garbage; i++) garbage[i] = (char)("not a database\n"[i % 15] ^ (i >> 7));
    store_fixture_write(f->db_path, garbage, sizeof garbage);
    assert_refused_untouched(f->db_path, true, "not an SQLite database", "not touching it", NULL);
}

static void store_open__refuses_and_keeps_bytes__when_file_is_short_text(void **state) {
    StoreFixture *f = *state;
    store_fixture_write(f->db_path, "hello\n", 6);
    assert_refused_untouched(f->db_path, true, "not an SQLite database", NULL);
}

static void store_open__refuses_and_keeps_bytes__when_pages_are_damaged(void **state) {
    StoreFixture *f = *state;
    Store *s = NULL;
    assert_no_diag(store_open(f->db_path, &s));
    for (int i = 0; i < 200; i++) {
        Attempt a = store_fixture_attempt(i % 2 ? "vector-add" : "grid-stride", "fail", 1000 + i, -1);
        a.metrics_json = "{\"padding\": \"................................................................\"}";
        assert_no_diag(store_record_attempt(s, &a, NULL));
    }
    store_close(&s);
    size_t len = 0;
    char *bytes = store_fixture_read(f->db_path, &len);
    assert_non_null(bytes);
    long long page = raw_query_int(f->db_path, "PRAGMA page_size");
    assert_true(len >= (size_t)page * 6);
    /* Scribble over pages 3 to 5: b-tree pages of the tables and index. */
    for (size_t i = (size_t)page * 2; i < (size_t)page * 5; i++) bytes[i] = (char)(i * 7 + 3);
    store_fixture_write(f->db_path, bytes, len);
    free(bytes);
    assert_refused_untouched(f->db_path, false, "damaged", "will not modify", NULL);
}

static void store_open__refuses_and_keeps_bytes__when_db_belongs_to_another_program(void **state) {
    StoreFixture *f = *state;
    raw_exec(f->db_path, "CREATE TABLE contacts (name TEXT, phone TEXT);"
                         "INSERT INTO contacts VALUES ('Ada', '555');");
    assert_refused_untouched(f->db_path, true, "another program", "not touching it", NULL);
}

static void store_open__says_which_folder_is_missing__when_parent_does_not_exist(void **state) {
    StoreFixture *f = *state;
    char *path = xasprintf("%s/no-such-dir/progress.db", f->dir);
    Store *s = NULL;
    Diag *d = store_open(path, &s);
    assert_null(s);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "no-such-dir"));
    assert_non_null(strstr(d->message, "does not exist"));
    diag_free(&d);
    free(path);
}

static void migrations__are_idempotent_across_two_opens(void **state) {
    StoreFixture *f = *state;
    Store *a = NULL, *b = NULL;
    assert_no_diag(store_open(f->db_path, &a));
    assert_no_diag(store_open(f->db_path, &b)); /* the second sees the migrated file */
    assert_int_equal(store_schema_version(b), store_schema_latest());
    assert_string_equal(store_workspace_uuid(a), store_workspace_uuid(b));
    store_close(&a);
    store_close(&b);
    assert_int_equal(raw_query_int(f->db_path, "SELECT count(*) FROM meta"), 2);
}

/* The TUI and a `cudojo run` in another terminal may start together on a
 * workspace whose database does not exist yet. */
static void store_open__succeeds_in_every_process__when_many_create_one_file_at_once(void **state) {
    StoreFixture *f = *state;
    enum { N = 6 };
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pids[N];
    for (int i = 0; i < N; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            close(go[1]);
            char c;
            if (read(go[0], &c, 1) != 0) _exit(5); /* released together when the pipe closes */
            Store *s = NULL;
            Diag *d = store_open(f->db_path, &s);
            if (d) {
                fprintf(stderr, "child %d: %s\n", i, d->message);
                _exit(1);
            }
            Attempt a = store_fixture_attempt("vector-add", "fail", 0, -1);
            d = store_record_attempt(s, &a, NULL);
            if (d) {
                fprintf(stderr, "child %d: %s\n", i, d->message);
                _exit(2);
            }
            store_close(&s);
            _exit(0);
        }
    }
    close(go[0]);
    close(go[1]);
    int status[N];
    for (int i = 0; i < N; i++) assert_int_equal(waitpid(pids[i], &status[i], 0), pids[i]);
    for (int i = 0; i < N; i++) {
        assert_true(WIFEXITED(status[i]));
        assert_int_equal(WEXITSTATUS(status[i]), 0);
    }
    assert_int_equal(raw_query_int(f->db_path, "PRAGMA user_version"), store_schema_latest());
    assert_int_equal(raw_query_int(f->db_path, "SELECT count(*) FROM attempts"), N);
    assert_int_equal(raw_query_int(f->db_path, "SELECT count(*) FROM meta"), 2);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, store_fixture_setup, store_fixture_teardown)
    const struct CMUnitTest tests[] = {
        T(store_open__migrates_in_order_and_keeps_history__when_schema_is_version_1),
        T(store_open__rolls_back_the_step_and_names_the_sql__when_a_migration_fails),
        T(store_open__refuses_and_keeps_bytes__when_schema_is_newer),
        T(store_open__refuses_and_keeps_bytes__when_newer_schema_is_in_wal_mode),
        T(store_open__refuses_and_keeps_bytes__when_newer_schema_is_only_in_the_wal),
        T(store_open__refuses_and_keeps_bytes__when_file_is_not_sqlite),
        T(store_open__refuses_and_keeps_bytes__when_file_is_short_text),
        T(store_open__refuses_and_keeps_bytes__when_pages_are_damaged),
        T(store_open__refuses_and_keeps_bytes__when_db_belongs_to_another_program),
        T(store_open__says_which_folder_is_missing__when_parent_does_not_exist),
        T(migrations__are_idempotent_across_two_opens),
        T(store_open__succeeds_in_every_process__when_many_create_one_file_at_once),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
