/* tests/kernels/program_fixture.h: what the whole-program tests share: a
 * temporary directory (the nvcc cache inside), run options for a plain
 * host program (no emulator runtime needed), building a C program with cc,
 * finding a Diag by code. Included once by each test file. */
#ifndef CUDOJO_TESTS_PROGRAM_FIXTURE_H
#define CUDOJO_TESTS_PROGRAM_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/program.h"
#include "kernels/program_internal.h"

typedef struct Fixture {
    char dir[64];
    char *cache;
    ProgramCompileOptions copts;
    ProgramRunOptions ropts;
    ProgramResult res;
} Fixture;

static inline int setup(void **state) {
    Fixture *f = xcalloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/cudojo-test-program-XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    f->cache = path_join(f->dir, "cache");
    f->copts.cache_dir = f->cache;
    f->ropts.runtime = PROGRAM_RT_CUDA;     /* a plain host program needs no emulator runtime */
    f->ropts.tee_out = f->ropts.tee_err = -1;
    f->ropts.timeout_s = 5;
    *state = f;
    return 0;
}

static inline int teardown(void **state) {
    Fixture *f = *state;
    program_result_fini(&f->res);
    proc_remove_tree(f->dir);
    free(f->cache);
    free(f);
    return 0;
}

/* Builds a C program with cc -g and the link arguments `link` (NULL-
 * terminated, or NULL); returns its path (caller frees). */
static inline char *cc_build_linked(Fixture *f, const char *name, const char *src, const char *const *link) {
    char *c = xasprintf("%s/%s.c", f->dir, name);
    char *exe = xasprintf("%s/%s", f->dir, name);
    Diag *d = fs_write_file_atomic(c, src, strlen(src));
    assert_null(d);
    char *cc = proc_find_in_path("cc");
    assert_non_null(cc);
    const char *argv[16] = {cc, "-g", "-O0", "-o", exe, c};
    for (int i = 0, n = 6; link && link[i] && n < 15; i++) argv[n++] = link[i];
    ProcCapture pc;
    assert_null(proc_capture(argv, NULL, NULL, 60, 1 << 16, &pc));
    if (pc.status != 0) fprintf(stderr, "cc: %s\n", pc.out);
    assert_int_equal(pc.status, 0);
    proc_capture_fini(&pc);
    free(cc);
    free(c);
    return exe;
}

/* Builds a C program with cc -g; returns its path (caller frees). */
static inline char *cc_build(Fixture *f, const char *name, const char *src) {
    return cc_build_linked(f, name, src, NULL);
}

static inline bool has_nvcc(void) { return program_nvcc_path() != NULL; }

static inline bool chain_mentions(const Diag *d, const char *text) {
    char *all = diag_format_all(d, false);
    bool hit = strstr(all, text) != NULL;
    free(all);
    return hit;
}

static inline const Diag *find_code(const Diag *d, const char *code) {
    for (; d; d = d->next)
        if (!strcmp(d->code, code)) return d;
    return NULL;
}

#endif
