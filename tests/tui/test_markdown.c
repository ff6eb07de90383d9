/* tests/tui/test_markdown.c: a lesson's CommonMark laid out for the
 * terminal: headings, wrapping (also of Chinese text), lists, quotes, links,
 * code blocks and tables look the way a reader expects. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/tui/tui_markdown.h"
#include "app/tui/tui_text.h"

static TextDoc *render(const char *md, int width) { return md_render(md, strlen(md), width); }

/* The plain text of line i; owned by a small ring so tests can compare inline. */
static const char *plain(const TextDoc *d, int i) {
    static char *ring[8];
    static int k;
    k = (k + 1) % 8;
    free(ring[k]);
    ring[k] = i < d->n ? text_line_plain(&d->lines[i]) : strdup("<no such line>");
    return ring[k];
}

/* The role of the span holding `text` anywhere in the doc, -1 when absent. */
static int role_of(const TextDoc *d, const char *text) {
    for (int i = 0; i < d->n; i++)
        for (int s = 0; s < d->lines[i].n; s++)
            if (strstr(d->lines[i].spans[s].text, text)) return d->lines[i].spans[s].role;
    return -1;
}

static void md__underlines_heading__when_level_1(void **state) {
    (void)state;
    TextDoc *d = render("# Hello, GPU\n\ntext\n", 40);
    assert_string_equal(plain(d, 0), "Hello, GPU");
    assert_int_equal(d->lines[0].spans[0].role, ROLE_H1);
    assert_int_equal(d->lines[0].tag, 1);
    assert_string_equal(plain(d, 1), "══════════");
    assert_string_equal(plain(d, 2), "");
    assert_string_equal(plain(d, 3), "text");
    text_doc_free(&d);
}

static void md__wraps_paragraph__at_width_without_losing_words(void **state) {
    (void)state;
    const char *para = "A GPU makes the opposite bet. It has thousands of small, simple cores that do not try to "
                       "make a single thread fast; they make many threads finish quickly in total.";
    TextDoc *d = render(para, 24);
    assert_true(d->n > 4);
    char joined[1024] = "";
    for (int i = 0; i < d->n; i++) {
        assert_true(text_line_width(&d->lines[i]) <= 24);
        if (i) strcat(joined, " ");
        strcat(joined, plain(d, i));
    }
    assert_string_equal(joined, para);
    text_doc_free(&d);
}

static void md__counts_cjk_as_two_columns__when_wrapping_chinese(void **state) {
    (void)state;
    TextDoc *d = render("这一章你会写出自己的前三个核函数。一路上会遇到后面每一章都要用到的基本概念，以及网格跨步循环。", 20);
    assert_true(d->n >= 5);
    for (int i = 0; i < d->n; i++) {
        assert_true(text_line_width(&d->lines[i]) <= 20);
        /* Closing punctuation never starts a line. */
        assert_true(strncmp(plain(d, i), "，", strlen("，")) != 0);
        assert_true(strncmp(plain(d, i), "。", strlen("。")) != 0);
    }
    text_doc_free(&d);
    /* An opening bracket never ends a line: it goes down with what it opens. */
    d = render("一二三四五六七八（九十）", 18);
    assert_string_equal(plain(d, 0), "一二三四五六七八");
    assert_string_equal(plain(d, 1), "（九十）");
    assert_int_equal(text_width("你好，GPU"), 9);
    text_doc_free(&d);
}

static void md__joins_cjk_lines__without_a_space(void **state) {
    (void)state;
    TextDoc *d = render("中文\n字符 and\nEnglish", 80);
    assert_string_equal(plain(d, 0), "中文字符 and English");
    text_doc_free(&d);
}

static void md__shows_link_text_then_url(void **state) {
    (void)state;
    TextDoc *d = render("See [the guide](https://docs.nvidia.com/cuda/) now.", 80);
    assert_string_equal(plain(d, 0), "See the guide <https://docs.nvidia.com/cuda/> now.");
    assert_int_equal(role_of(d, "guide"), ROLE_LINK);
    assert_int_equal(role_of(d, "https://"), ROLE_URL);
    text_doc_free(&d);
}

static void md__marks_emphasis_strong_and_code(void **state) {
    (void)state;
    TextDoc *d = render("*one* **two** `three four`", 80);
    assert_int_equal(role_of(d, "one"), ROLE_EMPH);
    assert_int_equal(role_of(d, "two"), ROLE_STRONG);
    assert_int_equal(role_of(d, "three"), ROLE_CODE);
    text_doc_free(&d);
}

static void md__indents_list_items_under_their_marker(void **state) {
    (void)state;
    TextDoc *d = render("- first item that is long enough to wrap around\n- second\n\n3. three\n4. four\n", 20);
    assert_true(strncmp(plain(d, 0), "• first", strlen("• first")) == 0);
    assert_true(strncmp(plain(d, 1), "  ", 2) == 0);
    int second = -1, three = -1;
    for (int i = 0; i < d->n; i++) {
        if (!strcmp(plain(d, i), "• second")) second = i;
        if (!strcmp(plain(d, i), "3. three")) three = i;
    }
    assert_true(second > 0);
    assert_true(three > second);
    assert_string_equal(plain(d, three + 1), "4. four");
    text_doc_free(&d);
}

static void md__draws_a_bar__before_quoted_text(void **state) {
    (void)state;
    TextDoc *d = render("> Warps are 32 threads.\n", 40);
    assert_string_equal(plain(d, 0), "│ Warps are 32 threads.");
    assert_int_equal(role_of(d, "Warps"), ROLE_QUOTE);
    text_doc_free(&d);
}

static void md__highlights_cuda_code_block__and_never_wraps_it(void **state) {
    (void)state;
    TextDoc *d = render("```cuda\n__global__ void k(float *x) { x[threadIdx.x] = 1.0f; } // a long line here\n```\n",
                        20);
    assert_int_equal(d->n, 1);
    assert_int_equal(role_of(d, "__global__"), ROLE_KEYWORD);
    assert_int_equal(role_of(d, "threadIdx"), ROLE_BUILTIN);
    assert_int_equal(role_of(d, "// a long"), ROLE_COMMENT);
    assert_true(text_line_width(&d->lines[0]) > 20);
    text_doc_free(&d);
}

static void md__leaves_code_block_plain__when_not_c(void **state) {
    (void)state;
    TextDoc *d = render("```\nint for while\n```\n", 40);
    assert_int_equal(role_of(d, "int"), ROLE_CODEBLOCK);
    text_doc_free(&d);
}

static void md__keeps_table_rows_on_their_own_lines(void **state) {
    (void)state;
    TextDoc *d = render("| a | b |\n|---|---|\n| 1 | 2 |\n", 80);
    assert_int_equal(d->n, 3);
    assert_string_equal(plain(d, 2), "| 1 | 2 |");
    text_doc_free(&d);
}

static void wrap__cuts_a_word_wider_than_the_line(void **state) {
    (void)state;
    TextDoc *d = render("abcdefghijklmnopqrstuvwxyz", 10);
    assert_int_equal(d->n, 3);
    assert_string_equal(plain(d, 0), "abcdefghij");
    assert_string_equal(plain(d, 2), "uvwxyz");
    text_doc_free(&d);
}

int main(void) {
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(md__underlines_heading__when_level_1),
        cmocka_unit_test(md__wraps_paragraph__at_width_without_losing_words),
        cmocka_unit_test(md__counts_cjk_as_two_columns__when_wrapping_chinese),
        cmocka_unit_test(md__joins_cjk_lines__without_a_space),
        cmocka_unit_test(md__shows_link_text_then_url),
        cmocka_unit_test(md__marks_emphasis_strong_and_code),
        cmocka_unit_test(md__indents_list_items_under_their_marker),
        cmocka_unit_test(md__draws_a_bar__before_quoted_text),
        cmocka_unit_test(md__highlights_cuda_code_block__and_never_wraps_it),
        cmocka_unit_test(md__leaves_code_block_plain__when_not_c),
        cmocka_unit_test(md__keeps_table_rows_on_their_own_lines),
        cmocka_unit_test(wrap__cuts_a_word_wider_than_the_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
