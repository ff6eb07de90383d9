/* tests/lessons/test_translations.c: the course speaks Chinese everywhere a
 * learner looks: every chapter and exercise of lessons/ has a title_zh,
 * and every exercise at least two hints_zh, one for each English hint (the
 * CLI and the workbench show the Chinese hints only when all are there).
 * Run from the repository root, as make test does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lua/exercise.h"

static Course *course;

static int load(void **state) {
    (void)state;
    Diag *d = course_load("lessons", &course);
    for (const Diag *e = d; e; e = e->next)
        if (e->severity == DIAG_ERROR) print_message("%s:%d: %s\n", e->file ? e->file : "?", e->line, e->message);
    diag_free(&d);
    return course && course->n_chapters > 0 ? 0 : -1;
}

static int unload(void **state) {
    (void)state;
    course_free(&course);
    return 0;
}

static bool has_text(const char *s) { return s && *s; }

static void course__every_chapter_has_title_zh(void **state) {
    (void)state;
    int missing = 0;
    for (int c = 0; c < course->n_chapters; c++)
        if (!has_text(course->chapters[c].title_zh)) {
            print_message("%s/chapter.lua: no title_zh\n", course->chapters[c].rel_dir);
            missing++;
        }
    assert_int_equal(missing, 0);
}

static void course__every_exercise_has_title_zh(void **state) {
    (void)state;
    int missing = 0, n = 0;
    for (int c = 0; c < course->n_chapters; c++)
        for (int e = 0; e < course->chapters[c].n_exercises; e++, n++) {
            const ExerciseMeta *ex = &course->chapters[c].exercises[e];
            if (!has_text(ex->title_zh)) {
                print_message("%s: no title_zh (title: %s)\n", ex->chunkname + 1, ex->title);
                missing++;
            }
        }
    assert_true(n > 0);
    assert_int_equal(missing, 0);
}

static void course__every_exercise_has_a_chinese_hint_for_each_english_one__at_least_two(void **state) {
    (void)state;
    int bad = 0;
    for (int c = 0; c < course->n_chapters; c++)
        for (int e = 0; e < course->chapters[c].n_exercises; e++) {
            const ExerciseMeta *ex = &course->chapters[c].exercises[e];
            int empty = 0;
            for (int i = 0; i < ex->n_hints_zh; i++) empty += !has_text(ex->hints_zh[i]);
            if (ex->n_hints_zh < 2 || ex->n_hints_zh != ex->n_hints || empty) {
                print_message("%s: %d hints, %d hints_zh (%d empty); want as many, at least 2\n", ex->chunkname + 1,
                              ex->n_hints, ex->n_hints_zh, empty);
                bad++;
            }
        }
    assert_int_equal(bad, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(course__every_chapter_has_title_zh),
        cmocka_unit_test(course__every_exercise_has_title_zh),
        cmocka_unit_test(course__every_exercise_has_a_chinese_hint_for_each_english_one__at_least_two),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
