/* tests/progress-db/store_fixture.h: what the progress-db tests share: a
 * fresh temporary folder per test, reading a file's bytes to prove it was
 * not touched, and asserting that a call returned no Diag (printing it if
 * it did, so a failure says why). Included by the test files only. */
#ifndef CUDOJO_TESTS_PROGRESS_DB_STORE_FIXTURE_H
#define CUDOJO_TESTS_PROGRESS_DB_STORE_FIXTURE_H

#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/diag.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "progress-db/store.h"

typedef struct StoreFixture {
    char *dir;      /* a fresh folder, removed by teardown */
    char *db_path;  /* dir/progress.db, not created */
} StoreFixture;

static inline int store_fixture_setup(void **state) {
    const char *tmp = getenv("TMPDIR");
    char *templ = xasprintf("%s/cudojo-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(templ)) {
        free(templ);
        return -1;
    }
    StoreFixture *f = xcalloc(1, sizeof *f);
    f->dir = templ;
    f->db_path = path_join(templ, "progress.db");
    *state = f;
    return 0;
}

static inline int store_fixture_teardown(void **state) {
    StoreFixture *f = *state;
    DIR *d = opendir(f->dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char *p = path_join(f->dir, e->d_name);
            unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(f->dir);
    free(f->dir);
    free(f->db_path);
    free(f);
    return 0;
}

/* Fails the test with the Diag's text when d is not NULL. */
#define assert_no_diag(expr)                                                  \
    do {                                                                      \
        Diag *d_ = (expr);                                                    \
        if (d_) {                                                             \
            char *text_ = diag_format_all(d_, false);                         \
            print_error("unexpected diag from %s:\n%s\n", #expr, text_);      \
            free(text_);                                                      \
            diag_free(&d_);                                                   \
            fail();                                                           \
        }                                                                     \
    } while (0)

/* The file's bytes (caller frees), or NULL when it cannot be read. */
static inline char *store_fixture_read(const char *path, size_t *len) {
    char *data = NULL;
    Diag *d = fs_read_file(path, &data, len);
    if (d) {
        diag_free(&d);
        return NULL;
    }
    return data;
}

static inline void store_fixture_write(const char *path, const void *data, size_t len) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

/* An attempt with the given verdict, time and kernel time; the rest plausible. */
static inline Attempt store_fixture_attempt(const char *exercise_id, const char *verdict,
                                            long long when, double kernel_ms) {
    Attempt a = {
        .exercise_id = exercise_id,
        .def_hash = "def-1",
        .source_hash = "src-1",
        .backend = "emu",
        .verdict = verdict,
        .duration_ms = 10.0,
        .kernel_ms = kernel_ms,
        .checks_json = NULL,
        .metrics_json = NULL,
        .diags_json = NULL,
        .when_unix_ms = when,
    };
    return a;
}

#endif
