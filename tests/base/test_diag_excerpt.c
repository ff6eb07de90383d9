/* tests/base/test_diag_excerpt.c: a Diag's excerpt is the line of the
 * author's or learner's file with a caret under the column, and stays
 * small when that line is megabytes long (a hostile file, issue 16). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/diag.h"

static void excerpt__is_the_line_with_a_caret_under_the_column(void **state) {
    (void)state;
    Diag *d = diag_new(DIAG_ERROR, "lua", "x.lua", 2, 5, "boom");
    diag_set_excerpt(d, "first\n\tlocal x = y\nthird\n");
    assert_string_equal(d->excerpt, "\tlocal x = y\n\t   ^");
    diag_free(&d);
}

static void excerpt__of_a_huge_line__is_a_window_around_the_column(void **state) {
    (void)state;
    size_t n = (size_t)4 << 20;
    char *src = malloc(n + 1);
    memset(src, 'a', n);
    src[n] = '\0';
    size_t col = 3000000;
    src[col - 1] = 'X';
    Diag *d = diag_new(DIAG_ERROR, "lua", "x.lua", 1, (int)col, "boom");
    diag_set_excerpt(d, src);
    assert_true(strlen(d->excerpt) < 2 * DIAG_EXCERPT_MAX + 20);
    assert_memory_equal(d->excerpt, "…", strlen("…"));
    /* The caret is under the X (the "…" is one column wide). */
    const char *nl = strchr(d->excerpt, '\n');
    assert_non_null(nl);
    const char *x = strchr(d->excerpt, 'X');
    assert_non_null(x);
    size_t x_col = (size_t)(x - d->excerpt) - strlen("…") + 1;
    size_t caret_col = strlen(nl + 1) - 1;
    assert_int_equal(caret_col, x_col);
    diag_free(&d);
    /* No column: the start of the line. */
    d = diag_new(DIAG_ERROR, "lua", "x.lua", 1, 0, "boom");
    diag_set_excerpt(d, src);
    assert_true(strlen(d->excerpt) <= DIAG_EXCERPT_MAX + 4);
    diag_free(&d);
    free(src);
}

static void excerpt__never_cuts_a_utf8_character_in_half(void **state) {
    (void)state;
    size_t reps = 1000;
    char *src = malloc(reps * 3 + 1);
    for (size_t i = 0; i < reps; i++) memcpy(src + 3 * i, "\xe4\xb8\xad", 3);
    src[reps * 3] = '\0';
    Diag *d = diag_new(DIAG_ERROR, "lua", "x.lua", 1, 1501, "boom");
    diag_set_excerpt(d, src);
    const char *e = d->excerpt;
    size_t body = strcspn(e, "\n");
    assert_memory_equal(e, "…", 3);
    for (size_t i = 3; i + 3 <= body - 3; i += 3) assert_memory_equal(e + i, "\xe4\xb8\xad", 3);
    diag_free(&d);
    free(src);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(excerpt__is_the_line_with_a_caret_under_the_column),
        cmocka_unit_test(excerpt__of_a_huge_line__is_a_window_around_the_column),
        cmocka_unit_test(excerpt__never_cuts_a_utf8_character_in_half),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
