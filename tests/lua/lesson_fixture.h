/* tests/lua/lesson_fixture.h: small lesson trees written into a temporary
 * folder, for the tests of course loading and exercise runs (header-only:
 * included by one test file each). */
#ifndef CUDOJO_TESTS_LUA_LESSON_FIXTURE_H
#define CUDOJO_TESTS_LUA_LESSON_FIXTURE_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"

/* A fresh empty temporary folder (mkdtemp); caller frees the string. */
static inline char *fixture_tmpdir(void) {
    const char *t = getenv("TMPDIR");
    char *tmpl = xasprintf("%s/cudojo-test-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpl)) {
        perror("mkdtemp");
        abort();
    }
    return tmpl;
}

/* Writes root/rel (creating folders); aborts the test program on failure. */
static inline void fixture_write(const char *root, const char *rel, const char *text) {
    char *path = path_join(root, rel);
    char *dir = path_dirname(path);
    Diag *d = fs_mkdir_p(dir);
    if (!d) d = fs_write_file_atomic(path, text, strlen(text));
    if (d) {
        fprintf(stderr, "fixture_write %s: %s\n", path, d->message);
        abort();
    }
    free(dir);
    free(path);
}

static inline int fixture_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* rm -rf *root, frees the string and NULLs it. */
static inline void fixture_remove(char **root) {
    if (!*root) return;
    nftw(*root, fixture_rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(*root);
    *root = NULL;
}

#endif
