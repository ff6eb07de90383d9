/* tests/tui/test_highlight.c: the CUDA/C highlighter colours what a reader
 * expects (keywords, types, CUDA built-ins, comments across lines, strings,
 * numbers, preprocessor lines) and keeps the text itself unchanged. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/tui/tui_highlight.h"

/* The role of the span that starts with `text` in line, -1 when none does. */
static int role_at(const TextLine *l, const char *text) {
    for (int s = 0; s < l->n; s++)
        if (!strncmp(l->spans[s].text, text, strlen(text))) return l->spans[s].role;
    return -1;
}

static void hl__colours_keywords_types_and_builtins(void **state) {
    (void)state;
    TextLine l = {0};
    HlState st = {0};
    hl_line(&l, "extern \"C\" __global__ void k(float *x) { if (threadIdx.x) __syncthreads(); }", &st, ROLE_NORMAL);
    assert_int_equal(role_at(&l, "extern"), ROLE_KEYWORD);
    assert_int_equal(role_at(&l, "\"C\""), ROLE_STRING);
    assert_int_equal(role_at(&l, "__global__"), ROLE_KEYWORD);
    assert_int_equal(role_at(&l, "void"), ROLE_TYPE);
    assert_int_equal(role_at(&l, "float"), ROLE_TYPE);
    assert_int_equal(role_at(&l, "if"), ROLE_KEYWORD);
    assert_int_equal(role_at(&l, "threadIdx"), ROLE_BUILTIN);
    assert_int_equal(role_at(&l, "__syncthreads"), ROLE_BUILTIN);
    /* An identifier that merely contains a keyword is plain. */
    TextLine m = {0};
    hl_line(&m, "int iffy = form;", &st, ROLE_NORMAL);
    assert_int_equal(role_at(&m, "iffy"), -1);
    text_line_fini(&l);
    text_line_fini(&m);
}

static void hl__keeps_the_text_unchanged(void **state) {
    (void)state;
    const char *src = "    c[i] = a[i] + b[i]; // sum 1.5e-3f \"q\"";
    TextLine l = {0};
    HlState st = {0};
    hl_line(&l, src, &st, ROLE_NORMAL);
    char *p = text_line_plain(&l);
    assert_string_equal(p, src);
    free(p);
    text_line_fini(&l);
}

static void hl__comments_to_end_of_line_and_across_lines(void **state) {
    (void)state;
    HlState st = {0};
    TextLine a = {0}, b = {0}, c = {0};
    hl_line(&a, "int x; /* starts", &st, ROLE_NORMAL);
    assert_true(st.in_comment);
    assert_int_equal(role_at(&a, "/* starts"), ROLE_COMMENT);
    hl_line(&b, "  int still comment", &st, ROLE_NORMAL);
    assert_int_equal(b.n, 1);
    assert_int_equal(b.spans[0].role, ROLE_COMMENT);
    hl_line(&c, "ends */ int y; // tail", &st, ROLE_NORMAL);
    assert_false(st.in_comment);
    assert_int_equal(role_at(&c, "ends */"), ROLE_COMMENT);
    assert_int_equal(role_at(&c, "int"), ROLE_TYPE);
    assert_int_equal(role_at(&c, "// tail"), ROLE_COMMENT);
    text_line_fini(&a);
    text_line_fini(&b);
    text_line_fini(&c);
}

static void hl__numbers_strings_and_preprocessor(void **state) {
    (void)state;
    HlState st = {0};
    TextLine a = {0}, b = {0};
    hl_line(&a, "float v = 1.0e-5f + 0x1F + 'a' + \"s\\\"t\";", &st, ROLE_NORMAL);
    assert_int_equal(role_at(&a, "1.0e-5f"), ROLE_NUMBER);
    assert_int_equal(role_at(&a, "0x1F"), ROLE_NUMBER);
    assert_int_equal(role_at(&a, "'a'"), ROLE_STRING);
    assert_int_equal(role_at(&a, "\"s\\\"t\""), ROLE_STRING);
    hl_line(&b, "  #define TILE 16 // side", &st, ROLE_NORMAL);
    assert_int_equal(role_at(&b, "#define TILE 16"), ROLE_PREPROC);
    assert_int_equal(role_at(&b, "// side"), ROLE_COMMENT);
    text_line_fini(&a);
    text_line_fini(&b);
}

static void hl__expands_tabs_to_four_columns(void **state) {
    (void)state;
    HlState st = {0};
    TextLine a = {0};
    hl_line(&a, "\treturn;", &st, ROLE_NORMAL);
    char *p = text_line_plain(&a);
    assert_string_equal(p, "    return;");
    free(p);
    text_line_fini(&a);
}

static void hl__knows_which_fences_are_c(void **state) {
    (void)state;
    assert_true(hl_is_c_like("cuda"));
    assert_true(hl_is_c_like("cu title=x"));
    assert_true(hl_is_c_like("C++"));
    assert_false(hl_is_c_like(""));
    assert_false(hl_is_c_like("text"));
    assert_false(hl_is_c_like("ptx"));
    assert_false(hl_is_c_like(NULL));
}

int main(void) {
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hl__colours_keywords_types_and_builtins),
        cmocka_unit_test(hl__keeps_the_text_unchanged),
        cmocka_unit_test(hl__comments_to_end_of_line_and_across_lines),
        cmocka_unit_test(hl__numbers_strings_and_preprocessor),
        cmocka_unit_test(hl__expands_tabs_to_four_columns),
        cmocka_unit_test(hl__knows_which_fences_are_c),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
