/* tests/base/test_diag.c: Diag chains (append, counts, free), the
 * "file:line:col: severity: message" format with its excerpt and GPU
 * coordinates, and the JSON round trip the worker pipe depends on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/diag.h"
#include "base/i18n.h"

static int english(void **state) {
    (void)state;
    i18n_set_chinese(false);
    return 0;
}

static void chain__appends_at_the_end__and_counts_errors_apart(void **state) {
    (void)state;
    Diag *list = NULL;
    assert_int_equal(diag_count(list), 0);
    Diag *a = diag_error("io", "first");
    assert_ptr_equal(diag_append(&list, a), a);
    diag_append(&list, diag_new(DIAG_WARNING, "race-warp", "a.cu", 3, 0, "second"));
    /* appending a chain appends all of it */
    Diag *more = diag_new(DIAG_NOTE, "note", NULL, 0, 0, "third");
    diag_append(&more, diag_error("oob-global", "fourth"));
    diag_append(&list, more);
    assert_int_equal(diag_count(list), 4);
    assert_int_equal(diag_count_errors(list), 2);
    const char *want[] = {"first", "second", "third", "fourth"};
    int i = 0;
    for (const Diag *d = list; d; d = d->next) assert_string_equal(d->message, want[i++]);
    diag_free(&list);
    assert_null(list);
    diag_free(&list);   /* freeing an empty chain is harmless */
}

static void new__formats_the_message__and_error_has_no_place(void **state) {
    (void)state;
    Diag *d = diag_new(DIAG_ERROR, "compile", "vector-add.cu", 12, 5, "expected '%c' after %d", ';', 3);
    assert_string_equal(d->message, "expected ';' after 3");
    assert_string_equal(d->code, "compile");
    assert_string_equal(d->file, "vector-add.cu");
    assert_int_equal(d->line, 12);
    assert_int_equal(d->col, 5);
    assert_false(d->has_thread);
    assert_null(d->next);
    diag_free(&d);
    d = diag_error("io", "cannot read %s", "x");
    assert_int_equal(d->severity, DIAG_ERROR);
    assert_null(d->file);
    assert_int_equal(d->line, 0);
    diag_free(&d);
}

static void format__is_file_line_col_severity_message__then_the_excerpt(void **state) {
    (void)state;
    Diag *d = diag_new(DIAG_ERROR, "compile", "vector-add.cu", 2, 5, "expected ';'");
    diag_set_excerpt(d, "int a;\nint b\nint c;\n");
    char *s = diag_format_all(d, false);
    assert_string_equal(s, "vector-add.cu:2:5: error: expected ';'\n    int b\n        ^\n");
    free(s);
    diag_free(&d);
}

static void format__leaves_out_what_is_unknown(void **state) {
    (void)state;
    Diag *d = diag_new(DIAG_WARNING, "x", "a.cu", 7, 0, "no column");
    diag_append(&d, diag_new(DIAG_NOTE, "x", NULL, 0, 0, "no place"));
    char *s = diag_format_all(d, false);
    assert_string_equal(s, "a.cu:7: warning: no column\nnote: no place\n");
    free(s);
    diag_free(&d);
}

static void format__adds_block_and_thread__unless_the_message_names_them(void **state) {
    (void)state;
    const unsigned b[3] = {3, 0, 0}, t[3] = {67, 1, 0};
    Diag *d = diag_new(DIAG_ERROR, "oob-global", "k.cu", 9, 0, "read a[10] but a has 10 elements");
    diag_set_thread(d, b, t);
    Diag *named = diag_new(DIAG_ERROR, "oob-global", "k.cu", 9, 0, "thread (1,0,0) of block (2,0,0) read a[10]");
    diag_set_thread(named, b, t);
    diag_append(&d, named);
    char *s = diag_format_all(d, false);
    assert_string_equal(s, "k.cu:9: error: read a[10] but a has 10 elements [block (3,0,0), thread (67,1,0)]\n"
                           "k.cu:9: error: thread (1,0,0) of block (2,0,0) read a[10]\n");
    free(s);
    diag_free(&d);
}

static void format__in_colour__still_holds_the_plain_text(void **state) {
    (void)state;
    Diag *d = diag_new(DIAG_ERROR, "compile", "a.cu", 1, 1, "boom");
    char *s = diag_format_all(d, true);
    assert_non_null(strstr(s, "\033["));
    assert_non_null(strstr(s, "a.cu"));
    assert_non_null(strstr(s, "error"));
    assert_non_null(strstr(s, "boom"));
    free(s);
    diag_free(&d);
}

static void json__round_trips_every_field_of_every_entry(void **state) {
    (void)state;
    const unsigned b[3] = {1, 2, 3}, t[3] = {4, 5, 6};
    Diag *list = diag_new(DIAG_ERROR, "race-shared", "k.cu", 14, 3, "race on s[5]");
    diag_set_thread(list, b, t);
    diag_set_excerpt(list, "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\nl13\n  s[i] = x;\n");
    diag_append(&list, diag_new(DIAG_WARNING, "uncoalesced", NULL, 0, 0, "stride 32"));
    diag_append(&list, diag_new(DIAG_NOTE, "hint", "a.lua", 2, 0, "note"));
    json_t *j = diag_to_json(list);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    j = json_loads(text, 0, NULL);
    free(text);
    Diag *back = diag_from_json(j);
    json_decref(j);
    assert_int_equal(diag_count(back), 3);
    const Diag *x = back, *y = list;
    for (; x && y; x = x->next, y = y->next) {
        assert_int_equal(x->severity, y->severity);
        assert_string_equal(x->code, y->code);
        if (y->file) assert_string_equal(x->file, y->file);
        else assert_null(x->file);
        assert_int_equal(x->line, y->line);
        assert_int_equal(x->col, y->col);
        assert_string_equal(x->message, y->message);
        if (y->excerpt) assert_string_equal(x->excerpt, y->excerpt);
        else assert_null(x->excerpt);
        assert_int_equal(x->has_thread, y->has_thread);
        assert_memory_equal(x->block, y->block, sizeof x->block);
        assert_memory_equal(x->thread, y->thread, sizeof x->thread);
    }
    assert_true(back->has_thread);
    assert_int_equal(back->thread[2], 6);
    diag_free(&back);
    diag_free(&list);
}

static void json__missing_fields__read_as_an_error_with_no_place(void **state) {
    (void)state;
    json_t *j = json_loads("[{\"message\": \"only a message\"}, {}]", 0, NULL);
    Diag *d = diag_from_json(j);
    json_decref(j);
    assert_int_equal(diag_count(d), 2);
    assert_int_equal(d->severity, DIAG_ERROR);
    assert_string_equal(d->message, "only a message");
    assert_null(d->file);
    assert_int_equal(d->line, 0);
    assert_false(d->has_thread);
    assert_string_equal(d->next->message, "");
    diag_free(&d);
}

static void severity_name__names_each_severity(void **state) {
    (void)state;
    assert_string_equal(diag_severity_name(DIAG_ERROR), "error");
    assert_string_equal(diag_severity_name(DIAG_WARNING), "warning");
    assert_string_equal(diag_severity_name(DIAG_NOTE), "note");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain__appends_at_the_end__and_counts_errors_apart),
        cmocka_unit_test(new__formats_the_message__and_error_has_no_place),
        cmocka_unit_test_setup(format__is_file_line_col_severity_message__then_the_excerpt, english),
        cmocka_unit_test_setup(format__leaves_out_what_is_unknown, english),
        cmocka_unit_test_setup(format__adds_block_and_thread__unless_the_message_names_them, english),
        cmocka_unit_test_setup(format__in_colour__still_holds_the_plain_text, english),
        cmocka_unit_test_setup(json__round_trips_every_field_of_every_entry, english),
        cmocka_unit_test(json__missing_fields__read_as_an_error_with_no_place),
        cmocka_unit_test_setup(severity_name__names_each_severity, english),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
