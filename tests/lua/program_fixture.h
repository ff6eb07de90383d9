/* tests/lua/program_fixture.h: what the tests of program exercises
 * (kind = "program", run end to end on the fake backend) share: a lesson
 * tree per test, one nvcc cache per test file, the stand-in runtime when
 * the emulator runtime is not built, the run's activity, and writing,
 * loading and running the exercise (header-only: included by one test
 * file each, after cmocka.h). */
#ifndef CUDOJO_TESTS_LUA_PROGRAM_FIXTURE_H
#define CUDOJO_TESTS_LUA_PROGRAM_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernels/backend.h"
#include "kernels/program.h"
#include "lua/exercise.h"
#include "tests/lua/lesson_fixture.h"
#include "tests/support/fake_backend.h"

static char *g_cache;   /* nvcc's cache, shared by every test of the file */
static char *g_standin; /* the stand-in runtime's folder, when the real one is not built */

typedef struct Fixture {
    char *root;
    Course *course;
    Backend *b;
    RunResult *r;
} Fixture;

/* Whether the emulator runtime is built, asked in a child: the answer is
 * cached on first use, and the stand-in must be in place before it. */
static inline bool emurt_built(void) {
    pid_t pid = fork();
    if (pid == 0) _exit(program_emurt_dir() ? 0 : 1);
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* NVIDIA's own libcudart.so.<major> in the stand-in's place: a program
 * without CUDA calls runs on it without a GPU (nvcc's registration calls
 * are all it makes). */
static inline void make_standin(void) {
    const char *v = program_nvcc_version(), *nvcc = program_nvcc_path();
    if (!v || !nvcc) return;
    char *bin = path_dirname(nvcc);
    char *lib = xasprintf("%s/../lib64/libcudart.so.%d", bin, atoi(v));
    g_standin = fixture_tmpdir();
    char *link = xasprintf("%s/libcudart.so.%d", g_standin, atoi(v));
    if (!fs_exists(lib) || symlink(lib, link) != 0) fail_msg("no %s for the stand-in runtime", lib);
    setenv("CUDOJO_EMURT_DIR", g_standin, 1);
    free(link);
    free(lib);
    free(bin);
}

static inline int group_setup(void **state) {
    (void)state;
    g_cache = fixture_tmpdir();
    if (program_nvcc_path() && !emurt_built()) make_standin();
    return 0;
}

static inline int group_teardown(void **state) {
    (void)state;
    fixture_remove(&g_cache);
    fixture_remove(&g_standin);
    return 0;
}

static inline int setup(void **state) {
    Fixture *f = xcalloc(1, sizeof *f);
    f->root = fixture_tmpdir();
    fixture_write(f->root, "lessons/01-p/chapter.lua", "return { id = 'p', order = 1, exercises = { 'prog' } }\n");
    f->b = fake_backend_new();
    *state = f;
    return 0;
}

static inline int teardown(void **state) {
    Fixture *f = *state;
    run_result_free(&f->r);
    course_free(&f->course);
    backend_close(&f->b);
    fixture_remove(&f->root);
    free(f);
    return 0;
}

#define NEED_NVCC()                                                      \
    do {                                                                 \
        if (!program_nvcc_path()) {                                      \
            print_message("skip: no nvcc (install the CUDA toolkit)\n"); \
            skip();                                                      \
        }                                                                \
    } while (0)

/* What the run said it was doing, in order ("kind: what" lines). */
static char g_activity[8192];
static inline void record_activity(void *ud, const char *kind, const char *what) {
    (void)ud;
    size_t n = strlen(g_activity);
    snprintf(g_activity + n, sizeof g_activity - n, "%s: %s\n", kind, what);
}

/* Writes the exercise (lessons/01-p/prog.lua) and the learner's `cu_name`
 * with its solution, both `cu`, and loads the course into f->course;
 * returns what loading said (caller frees). */
static inline Diag *fixture_load_course(Fixture *f, const char *lua, const char *cu_name, const char *cu) {
    char *rel = xasprintf("lessons/01-p/%s", cu_name);
    char *sol = xasprintf("lessons/01-p/solutions/%s", cu_name);
    fixture_write(f->root, "lessons/01-p/prog.lua", lua);
    fixture_write(f->root, rel, cu);
    fixture_write(f->root, sol, cu);
    course_free(&f->course);
    char *lessons = path_join(f->root, "lessons");
    Diag *d = course_load(lessons, &f->course);
    free(lessons);
    free(sol);
    free(rel);
    return d;
}

/* Loads the course as fixture_load_course does (failing the test on an
 * error) and runs the exercise with id `id` on f->b, with `opts` (or none)
 * and this file's cache and activity; the result is f->r's. */
static inline RunResult *fixture_run_exercise(Fixture *f, const char *id, const char *lua, const char *cu_name,
                                              const char *cu, const ExerciseRunOptions *opts) {
    Diag *d = fixture_load_course(f, lua, cu_name, cu);
    if (diag_count_errors(d)) fail_msg("course: %s:%d: %s", d->file, d->line, d->message);
    diag_free(&d);
    const ExerciseMeta *ex = course_find_exercise(f->course, id, NULL);
    assert_non_null(ex);
    char *rel = xasprintf("lessons/01-p/%s", cu_name);
    char *cu_path = path_join(f->root, rel);
    ExerciseRunOptions o = opts ? *opts : (ExerciseRunOptions){0};
    o.cu_path = cu_path;
    o.cu_display = cu_name;
    o.cache_dir = g_cache;
    o.on_activity = record_activity;
    g_activity[0] = 0;
    run_result_free(&f->r);
    f->r = exercise_run(ex, f->b, &o);
    free(cu_path);
    free(rel);
    return f->r;
}

static inline void show(const RunResult *r) { run_result_print(r, stderr, false); }

#endif
