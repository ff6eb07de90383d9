/* tests/tui/test_markdown.c: a lesson's CommonMark laid out for the
 * terminal: headings, wrapping (also of Chinese text), lists, quotes, links,
 * code blocks and tables (borders, columns in display cells, CJK, wrapping,
 * alignment, escaped pipes, ASCII) look the way a reader expects. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/tui/tui_markdown.h"
#include "app/tui/tui_text.h"

static TextDoc *render(const char *md, int width) { return md_render(md, strlen(md), width, true); }

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

static TextDoc *render_ascii(const char *md, int width) { return md_render(md, strlen(md), width, false); }

/* Display columns at which `bar` occurs on line i, as a string like "0 4 8". */
static const char *bar_columns(const TextDoc *d, int i, const char *bar) {
    static char out[256];
    out[0] = '\0';
    const char *p = plain(d, i);
    size_t bl = strlen(bar);
    int col = 0;
    for (const char *q = p; *q;) {
        if (!strncmp(q, bar, bl)) snprintf(out + strlen(out), sizeof out - strlen(out), "%s%d", *out ? " " : "", col);
        int w;
        size_t k = text_char(q, strlen(q), &w);
        col += w;
        q += k;
    }
    return out;
}

static void md__draws_pipe_table_with_borders__when_header_and_delimiter_rows(void **state) {
    (void)state;
    TextDoc *d = render("| a | bb |\n|---|---|\n| 1 | 2 |\n", 80);
    assert_int_equal(d->n, 5);
    assert_string_equal(plain(d, 0), "┌───┬────┐");
    assert_string_equal(plain(d, 1), "│ a │ bb │");
    assert_string_equal(plain(d, 2), "├───┼────┤");
    assert_string_equal(plain(d, 3), "│ 1 │ 2  │");
    assert_string_equal(plain(d, 4), "└───┴────┘");
    assert_int_equal(role_of(d, "bb"), ROLE_BOLD);
    assert_int_equal(role_of(d, "1"), ROLE_NORMAL);
    assert_int_equal(d->lines[0].spans[0].role, ROLE_BORDER);
    text_doc_free(&d);
}

static void md__aligns_chinese_table_columns__in_display_cells(void **state) {
    (void)state;
    const char *md = "| 步骤 | 改动 | 解决了什么 |\n"
                     "| --- | --- | --- |\n"
                     "| 1 | 用 `t % (2s) == 0` 选活跃线程的树 | （起点） |\n"
                     "| 2 | 下标 `2 s t` | 线程束内的分化 |\n";
    TextDoc *d = render(md, 100);
    assert_int_equal(d->n, 6);
    /* Every row's bars stand in the same columns, so CJK counted 2 cells each. */
    const char *want = "0 7 41 58";
    assert_string_equal(bar_columns(d, 1, "│"), want);
    assert_string_equal(bar_columns(d, 3, "│"), want);
    assert_string_equal(bar_columns(d, 4, "│"), want);
    assert_string_equal(bar_columns(d, 0, "┬"), "7 41");
    for (int i = 0; i < d->n; i++) assert_int_equal(text_line_width(&d->lines[i]), 59);
    assert_int_equal(role_of(d, "t\xc2\xa0%"), ROLE_CODE);
    text_doc_free(&d);
}

static void md__wraps_table_cells__when_the_table_is_wider_than_the_pane(void **state) {
    (void)state;
    const char *md = "| mistake | what you see |\n|---|---|\n"
                     "| `t % (2 s) == 0` | reduce-steps: about 48 divergent branches per block |\n"
                     "| 把 FMA 算成一次运算，或者忘了写出的字节 | intensity：你的数字被拒绝 |\n";
    TextDoc *d = render(md, 40);
    char joined[2048] = "";
    for (int i = 0; i < d->n; i++) {
        assert_true(text_line_width(&d->lines[i]) <= 40);
        assert_string_equal(bar_columns(d, i, "│"), i == 0 || i == d->n - 1 || !strncmp(plain(d, i), "├", 3) ? "" : bar_columns(d, 1, "│"));
        strcat(joined, plain(d, i));
    }
    /* Nothing is lost, and wrapped rows are told apart by a rule. */
    assert_non_null(strstr(joined, "divergent"));
    assert_non_null(strstr(joined, "branches"));
    assert_non_null(strstr(joined, "被拒绝"));
    int rules = 0;
    for (int i = 0; i < d->n; i++) rules += !strncmp(plain(d, i), "├", 3);
    assert_int_equal(rules, 2);
    text_doc_free(&d);
}

static void md__aligns_cells__as_the_delimiter_row_colons_say(void **state) {
    (void)state;
    TextDoc *d = render("| left | centre | right |\n| :--- | :---: | ---: |\n| a | b | c |\n", 80);
    assert_string_equal(plain(d, 3), "│ a    │   b    │     c │");
    text_doc_free(&d);
}

static void md__keeps_escaped_pipes_inside_a_cell(void **state) {
    (void)state;
    TextDoc *d = render("a | b\n--- | ---\nx \\| y | `p \\| q`\n", 80);
    assert_string_equal(plain(d, 3), "│ x | y │ p\xc2\xa0|\xc2\xa0q │");
    text_doc_free(&d);
}

static void md__draws_table_in_ascii__when_the_locale_is_not_utf8(void **state) {
    (void)state;
    TextDoc *d = render_ascii("| a | b |\n|---|---|\n| 1 | 2 |\n\n# T\n\n- item\n", 80);
    assert_string_equal(plain(d, 0), "+---+---+");
    assert_string_equal(plain(d, 1), "| a | b |");
    assert_string_equal(plain(d, 2), "+===+===+");
    assert_string_equal(plain(d, 3), "| 1 | 2 |");
    assert_string_equal(plain(d, 4), "+---+---+");
    assert_string_equal(plain(d, 7), "=");
    assert_string_equal(plain(d, 9), "* item");
    text_doc_free(&d);
}

static void md__keeps_the_paragraph_above_a_table__and_tables_in_lists_and_quotes(void **state) {
    (void)state;
    TextDoc *d = render("Some *text*\n| a | b |\n|---|---|\n| 1 | 2 |\n", 80);
    assert_string_equal(plain(d, 0), "Some text");
    assert_int_equal(role_of(d, "text"), ROLE_EMPH);
    assert_string_equal(plain(d, 1), "");
    assert_string_equal(plain(d, 3), "│ a │ b │");
    text_doc_free(&d);
    d = render("- | a | b |\n  |---|---|\n  | 1 | 2 |\n", 80);
    assert_string_equal(plain(d, 0), "• ┌───┬───┐");
    assert_string_equal(plain(d, 3), "  │ 1 │ 2 │");
    text_doc_free(&d);
    d = render("> | a | b |\n> |---|---|\n> | 1 | 2 |\n", 80);
    assert_string_equal(plain(d, 1), "│ │ a │ b │");
    assert_string_equal(plain(d, 3), "│ │ 1 │ 2 │");
    text_doc_free(&d);
}

static void md__leaves_pipe_lines_as_text__when_the_delimiter_row_does_not_match(void **state) {
    (void)state;
    TextDoc *d = render("| a | b |\n|---|\n| 1 | 2 |\n", 80);
    assert_int_equal(d->n, 3);
    assert_string_equal(plain(d, 2), "| 1 | 2 |");
    text_doc_free(&d);
}

static void md__cuts_table_lines__when_the_pane_is_too_narrow_for_its_columns(void **state) {
    (void)state;
    TextDoc *d = render("| aaaaaa | bbbbbb | cccccc | dddddd |\n|---|---|---|---|\n| 1 | 2 | 3 | 4 |\n", 12);
    for (int i = 0; i < d->n; i++) assert_true(text_line_width(&d->lines[i]) <= 12);
    assert_string_equal(plain(d, 0), "┌──────┬────");
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
        cmocka_unit_test(md__draws_pipe_table_with_borders__when_header_and_delimiter_rows),
        cmocka_unit_test(md__aligns_chinese_table_columns__in_display_cells),
        cmocka_unit_test(md__wraps_table_cells__when_the_table_is_wider_than_the_pane),
        cmocka_unit_test(md__aligns_cells__as_the_delimiter_row_colons_say),
        cmocka_unit_test(md__keeps_escaped_pipes_inside_a_cell),
        cmocka_unit_test(md__draws_table_in_ascii__when_the_locale_is_not_utf8),
        cmocka_unit_test(md__keeps_the_paragraph_above_a_table__and_tables_in_lists_and_quotes),
        cmocka_unit_test(md__leaves_pipe_lines_as_text__when_the_delimiter_row_does_not_match),
        cmocka_unit_test(md__cuts_table_lines__when_the_pane_is_too_narrow_for_its_columns),
        cmocka_unit_test(wrap__cuts_a_word_wider_than_the_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
