/* tests/base/test_diag_launch.c: diag_append_launch, which folds the same
 * finding of many launches into one entry that counts the launches
 * ("... (in 78 launches)") instead of repeating it per launch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/diag.h"

/* One launch's findings: an uncoalesced warning at a.cu:12 and an out-of-bounds error at a.cu:20. */
static Diag *one_launch(int n) {
    Diag *d = diag_new(DIAG_WARNING, "uncoalesced", "a.cu", 12, 0, "uncoalesced load");
    diag_append(&d, diag_new(DIAG_ERROR, "oob-global", "a.cu", 20, 0, "x[%d] past the end", 1000 + n));
    return d;
}

static void append_launch__folds_78_launches__into_one_counted_entry_each(void **state) {
    (void)state;
    Diag *list = NULL;
    for (int i = 0; i < 78; i++) diag_append_launch(&list, one_launch(i));
    assert_int_equal(diag_count(list), 2);
    assert_string_equal(list->message, "uncoalesced load (in 78 launches)");
    /* the first launch's words (its thread, its index) are the ones kept */
    assert_string_equal(list->next->message, "x[1000] past the end (in 78 launches)");
    assert_int_equal(diag_count_errors(list), 1);
    diag_free(&list);
}

static void append_launch__keeps_apart__other_lines_codes_files_and_severities(void **state) {
    (void)state;
    Diag *list = NULL;
    diag_append_launch(&list, diag_new(DIAG_WARNING, "uncoalesced", "a.cu", 12, 0, "m"));
    diag_append_launch(&list, diag_new(DIAG_WARNING, "uncoalesced", "a.cu", 13, 0, "m"));
    diag_append_launch(&list, diag_new(DIAG_WARNING, "bank-conflict", "a.cu", 12, 0, "m"));
    diag_append_launch(&list, diag_new(DIAG_WARNING, "uncoalesced", "b.cu", 12, 0, "m"));
    diag_append_launch(&list, diag_new(DIAG_ERROR, "uncoalesced", "a.cu", 12, 0, "m"));
    /* no line: the same only with the same words */
    diag_append_launch(&list, diag_new(DIAG_NOTE, "limit", NULL, 0, 0, "one"));
    diag_append_launch(&list, diag_new(DIAG_NOTE, "limit", NULL, 0, 0, "two"));
    assert_int_equal(diag_count(list), 7);
    for (Diag *d = list; d; d = d->next) assert_null(strstr(d->message, "launches"));
    diag_free(&list);
}

static void append_launch__counts_a_launch_once__when_it_reports_one_line_twice(void **state) {
    (void)state;
    Diag *list = NULL;
    diag_append_launch(&list, diag_new(DIAG_ERROR, "oob-global", "a.cu", 20, 0, "read x[1000]"));
    /* the second launch has two findings of that line (a read and a write): one folds, one is new */
    Diag *second = diag_new(DIAG_ERROR, "oob-global", "a.cu", 20, 0, "read x[1001]");
    diag_append(&second, diag_new(DIAG_ERROR, "oob-global", "a.cu", 20, 0, "write y[1001]"));
    diag_append_launch(&list, second);
    assert_int_equal(diag_count(list), 2);
    assert_string_equal(list->message, "read x[1000] (in 2 launches)");
    assert_string_equal(list->next->message, "write y[1001]");
    /* and findings of one launch are never folded into each other */
    Diag *fresh = NULL;
    Diag *same = diag_new(DIAG_WARNING, "uncoalesced", "a.cu", 12, 0, "u");
    diag_append(&same, diag_new(DIAG_WARNING, "uncoalesced", "a.cu", 12, 0, "u"));
    diag_append_launch(&fresh, same);
    assert_int_equal(diag_count(fresh), 2);
    diag_free(&fresh);
    diag_free(&list);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(append_launch__folds_78_launches__into_one_counted_entry_each),
        cmocka_unit_test(append_launch__keeps_apart__other_lines_codes_files_and_severities),
        cmocka_unit_test(append_launch__counts_a_launch_once__when_it_reports_one_line_twice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
