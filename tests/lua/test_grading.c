/* tests/lua/test_grading.c: what a grading run (`cudojo grade`) changes for
 * an exercise script: t:grading() is true only there, and t:seed() and every
 * a:random{seed=} give other data than the learner's run (the same for the
 * same grading seed), so a cached answer fails. Also `points` on an
 * exercise and course_version(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lua/exercise.h"
#include "tests/lua/lesson_fixture.h"
#include "tests/support/fake_backend.h"

static const char script[] =
    "return { id = 'ex', source = 'ex.cu', hints = { 'a', 'b' }, points = 2.5,\n"
    "  run = function(t)\n"
    "    t:metric('grading', t:grading() and 1 or 0)\n"
    "    t:metric('seed', t:seed(7))\n"
    "    local a = gpu.array('f32', 4):random{ seed = 1 }\n"
    "    t:metric('a0', a[0])\n"
    "    t:expect(true, 'ok')\n"
    "  end }\n";

typedef struct Fixture {
    char *root;
    Course *course;
    Backend *b;
} Fixture;

static int setup(void **state) {
    Fixture *f = xcalloc(1, sizeof *f);
    f->root = fixture_tmpdir();
    fixture_write(f->root, "lessons/01-a/chapter.lua", "return { id = 'a', order = 1, exercises = { 'ex' } }\n");
    fixture_write(f->root, "lessons/01-a/ex.cu", "// nothing\n");
    fixture_write(f->root, "lessons/01-a/solutions/ex.cu", "// nothing\n");
    fixture_write(f->root, "lessons/01-a/ex.lua", script);
    char *lessons = path_join(f->root, "lessons");
    Diag *d = course_load(lessons, &f->course);
    free(lessons);
    if (diag_count_errors(d)) fail_msg("course: %s:%d: %s", d->file, d->line, d->message);
    diag_free(&d);
    f->b = fake_backend_new();
    *state = f;
    return 0;
}

static int teardown(void **state) {
    Fixture *f = *state;
    course_free(&f->course);
    backend_close(&f->b);
    fixture_remove(&f->root);
    free(f);
    return 0;
}

static double metric(const RunResult *r, const char *k) {
    json_t *v = json_object_get(json_object_get(r->metrics, "custom"), k);
    if (json_is_object(v)) v = json_object_get(v, "value");
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* Runs the exercise; grading with the given seed when `grading`. */
static RunResult *run(Fixture *f, bool grading, uint64_t seed) {
    const ExerciseMeta *ex = course_find_exercise(f->course, "ex", NULL);
    assert_non_null(ex);
    char *cu = path_join(f->root, "lessons/01-a/ex.cu");
    ExerciseRunOptions o = {.cu_path = cu, .grading = grading, .grading_seed = seed};
    RunResult *r = exercise_run(ex, f->b, &o);
    free(cu);
    if (r->verdict != VERDICT_PASS) run_result_print(r, stderr, false);
    assert_int_equal(r->verdict, VERDICT_PASS);
    return r;
}

static void grading_run__sees_t_grading_and_other_data__than_the_learners_run(void **state) {
    Fixture *f = *state;
    RunResult *learner = run(f, false, 0), *g1 = run(f, true, 42), *g1again = run(f, true, 42), *g2 = run(f, true, 43);
    assert_true(metric(learner, "grading") == 0);
    assert_true(metric(g1, "grading") == 1);
    assert_true(metric(learner, "seed") == 7);
    assert_true(metric(g1, "seed") != 7);
    assert_true(metric(g1, "seed") >= 1 && metric(g1, "seed") < 2147483648.0);
    assert_true(metric(g1, "a0") != metric(learner, "a0"));
    /* The same grading seed: the same data for every student. */
    assert_true(metric(g1, "seed") == metric(g1again, "seed"));
    assert_true(metric(g1, "a0") == metric(g1again, "a0"));
    assert_true(metric(g1, "a0") != metric(g2, "a0"));
    run_result_free(&learner);
    run_result_free(&g1);
    run_result_free(&g1again);
    run_result_free(&g2);
}

static void course__reads_points_and_its_version_covers_them(void **state) {
    Fixture *f = *state;
    const ExerciseMeta *ex = course_find_exercise(f->course, "ex", NULL);
    assert_true(ex->points == 2.5);
    char *v1 = course_version(f->course);
    assert_int_equal(strlen(v1), 64);
    fixture_write(f->root, "lessons/01-a/ex.lua", "return { id = 'ex', source = 'ex.cu', hints = { 'a', 'b' }, points = 3,\n"
                                                  "  run = function(t) end }\n");
    Course *c2 = NULL;
    char *lessons = path_join(f->root, "lessons");
    Diag *d = course_load(lessons, &c2);
    diag_free(&d);
    char *v2 = course_version(c2);
    assert_string_not_equal(v1, v2);
    free(v1);
    free(v2);
    course_free(&c2);
    /* A points value that is not a positive number: the author's file and line. */
    fixture_write(f->root, "lessons/01-a/ex.lua", "return { id = 'ex', source = 'ex.cu', hints = { 'a', 'b' },\n"
                                                  "  points = -1,\n  run = function(t) end }\n");
    d = course_load(lessons, &c2);
    free(lessons);
    assert_non_null(d);
    assert_int_equal(d->severity, DIAG_ERROR);
    assert_string_equal(d->file, "lessons/01-a/ex.lua");
    assert_int_equal(d->line, 2);
    assert_non_null(strstr(d->message, "points"));
    diag_free(&d);
    course_free(&c2);
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(grading_run__sees_t_grading_and_other_data__than_the_learners_run),
        T(course__reads_points_and_its_version_covers_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
