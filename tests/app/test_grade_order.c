/* tests/app/test_grade_order.c: the order of a grading's runs
 * (grade_order_item, app/grade_run.c): every student runs every exercise
 * once; each round gives every student one run; runs side by side in a
 * round are different exercises (a class's timed programs do not all queue
 * for the GPU at once); students start spread over the course. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "app/grade.h"

/* Over all rounds, each student meets each exercise exactly once. */
static void expect_every_exercise_once(int students, int items) {
    char *seen = calloc((size_t)items, 1);
    for (int s = 0; s < students; s++) {
        memset(seen, 0, (size_t)items);
        for (int r = 0; r < items; r++) {
            int i = grade_order_item(r, s, students, items);
            assert_in_range(i, 0, items - 1);
            assert_int_equal(seen[i], 0);
            seen[i] = 1;
        }
    }
    free(seen);
}

static void every_student__runs_every_exercise_once(void **state) {
    (void)state;
    int shapes[][2] = {{1, 1}, {1, 92}, {3, 92}, {92, 92}, {200, 92}, {7, 3}, {5, 1}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) expect_every_exercise_once(shapes[k][0], shapes[k][1]);
}

/* Within a round, any window of up to n_items consecutive students (the
 * runs a pool of workers takes together) runs different exercises. */
static void side_by_side__runs_are_different_exercises(void **state) {
    (void)state;
    int shapes[][2] = {{3, 92}, {16, 92}, {92, 92}, {200, 92}, {7, 3}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        int students = shapes[k][0], items = shapes[k][1];
        int window = students < items ? students : items;
        for (int r = 0; r < items; r++)
            for (int s = 0; s + window <= students; s++)
                for (int a = s; a < s + window; a++)
                    for (int b = a + 1; b < s + window; b++)
                        assert_int_not_equal(grade_order_item(r, a, students, items),
                                             grade_order_item(r, b, students, items));
    }
}

/* Fewer students than exercises: their starts are spread evenly (3 of 92:
 * 0, 30, 61), not side by side. */
static void few_students__start_spread_over_the_course(void **state) {
    (void)state;
    assert_int_equal(grade_order_item(0, 0, 3, 92), 0);
    assert_int_equal(grade_order_item(0, 1, 3, 92), 30);
    assert_int_equal(grade_order_item(0, 2, 3, 92), 61);
    assert_int_equal(grade_order_item(91, 2, 3, 92), 60);   /* wraps */
    assert_int_equal(grade_order_item(5, 0, 1, 92), 5);     /* one student: the course in order */
}

static void degenerate_shapes__give_zero(void **state) {
    (void)state;
    assert_int_equal(grade_order_item(0, 0, 0, 5), 0);
    assert_int_equal(grade_order_item(3, 1, 2, 0), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_student__runs_every_exercise_once),
        cmocka_unit_test(side_by_side__runs_are_different_exercises),
        cmocka_unit_test(few_students__start_spread_over_the_course),
        cmocka_unit_test(degenerate_shapes__give_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
