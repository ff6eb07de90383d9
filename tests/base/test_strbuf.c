/* tests/base/test_strbuf.c: the growable string (always NUL-terminated,
 * growing past any size, reset keeping memory, steal handing it over),
 * the "did you mean" distance, str_cut's bounded text that never splits a
 * UTF-8 character, and the allocation helpers' string functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

static void strbuf__is_an_empty_string__after_init(void **state) {
    (void)state;
    StrBuf sb;
    strbuf_init(&sb);
    assert_non_null(sb.data);
    assert_string_equal(sb.data, "");
    assert_int_equal(sb.len, 0);
    strbuf_fini(&sb);
}

static void strbuf__appends_in_order__and_stays_nul_terminated(void **state) {
    (void)state;
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, "tree");
    strbuf_append_char(&sb, '-');
    strbuf_append_n(&sb, "reduction!!!", 9);
    strbuf_printf(&sb, " %d x %.1f", 256, 1.5);
    assert_string_equal(sb.data, "tree-reduction 256 x 1.5");
    assert_int_equal(sb.len, strlen("tree-reduction 256 x 1.5"));
    assert_int_equal(sb.data[sb.len], '\0');
    strbuf_fini(&sb);
}

static void strbuf__grows_past_its_capacity__keeping_every_byte(void **state) {
    (void)state;
    StrBuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < 100000; i++) strbuf_append_char(&sb, (char)('a' + i % 26));
    strbuf_printf(&sb, "%0*d", 5000, 7);   /* one printf larger than anything before it */
    assert_int_equal(sb.len, 105000);
    assert_true(sb.cap > sb.len);
    for (int i = 0; i < 100000; i++) assert_int_equal(sb.data[i], 'a' + i % 26);
    assert_int_equal(sb.data[104999], '7');
    assert_int_equal(sb.data[105000], '\0');
    strbuf_fini(&sb);
}

static void strbuf__append_n__keeps_embedded_nul_bytes(void **state) {
    (void)state;
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_append_n(&sb, "a\0b", 3);
    assert_int_equal(sb.len, 3);
    assert_memory_equal(sb.data, "a\0b", 4);
    strbuf_fini(&sb);
}

static void strbuf__reset__empties_it_and_keeps_the_memory(void **state) {
    (void)state;
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, "some text that needs memory");
    char *data = sb.data;
    size_t cap = sb.cap;
    strbuf_reset(&sb);
    assert_int_equal(sb.len, 0);
    assert_string_equal(sb.data, "");
    assert_ptr_equal(sb.data, data);
    assert_int_equal(sb.cap, cap);
    strbuf_append(&sb, "x");
    assert_string_equal(sb.data, "x");
    strbuf_fini(&sb);
}

static void strbuf__steal__hands_the_string_over__and_leaves_it_owning_nothing(void **state) {
    (void)state;
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, "kept");
    char *s = strbuf_steal(&sb);
    assert_string_equal(s, "kept");
    assert_int_equal(sb.len, 0);
    assert_int_equal(sb.cap, 0);
    strbuf_fini(&sb);   /* harmless on a stolen buffer */
    free(s);
    strbuf_init(&sb);   /* reusable after init */
    strbuf_append(&sb, "again");
    assert_string_equal(sb.data, "again");
    strbuf_fini(&sb);
}

static void edit_distance__counts_insertions_deletions_and_substitutions(void **state) {
    (void)state;
    assert_int_equal(str_edit_distance("kitten", "sitting"), 3);
    assert_int_equal(str_edit_distance("", "abc"), 3);
    assert_int_equal(str_edit_distance("abc", ""), 3);
    assert_int_equal(str_edit_distance("expect_near", "expect_near"), 0);
    assert_int_equal(str_edit_distance("expect_naer", "expect_near"), 2);
    assert_int_equal(str_edit_distance("lauch", "launch"), 1);
}

static void edit_distance__is_99__when_a_string_is_over_64_bytes(void **state) {
    (void)state;
    char a[66], b[66];
    memset(a, 'x', 65);
    a[65] = 0;
    memcpy(b, a, sizeof b);
    assert_int_equal(str_edit_distance(a, b), 99);
    a[64] = 0;   /* 64 bytes: still measured */
    b[64] = 0;
    assert_int_equal(str_edit_distance(a, b), 0);
}

static void cut__keeps_text_up_to_the_limit_unchanged(void **state) {
    (void)state;
    char *s = str_cut("hello", 5, 5);
    assert_string_equal(s, "hello");
    free(s);
    s = str_cut("hello world", 5, 100);   /* len, not the NUL, bounds it */
    assert_string_equal(s, "hello");
    free(s);
}

static void cut__says_how_many_bytes_it_cut(void **state) {
    (void)state;
    char *s = str_cut("abcdefghij", 10, 4);
    assert_string_equal(s, "abcd… (6 bytes cut)");
    free(s);
}

static void cut__never_splits_a_utf8_character(void **state) {
    (void)state;
    /* "aé€" is a, C3 A9, E2 82 AC: a cut after 2 or 3 bytes lands inside a character */
    const char *t = "a\xc3\xa9\xe2\x82\xac";
    char *s = str_cut(t, strlen(t), 2);
    assert_string_equal(s, "a… (5 bytes cut)");
    free(s);
    s = str_cut(t, strlen(t), 4);
    assert_string_equal(s, "a\xc3\xa9… (3 bytes cut)");
    free(s);
}

static void xalloc__string_helpers_copy_and_format(void **state) {
    (void)state;
    assert_null(xstrdup(NULL));
    char *s = xstrdup("abc");
    assert_string_equal(s, "abc");
    free(s);
    s = xstrndup("abcdef", 3);
    assert_string_equal(s, "abc");
    free(s);
    s = xstrndup("ab", 10);
    assert_string_equal(s, "ab");
    free(s);
    s = xasprintf("%s:%d: %s", "a.cu", 12, "error");
    assert_string_equal(s, "a.cu:12: error");
    XFREE(s);
    assert_null(s);
    int *v = xcalloc(1000, sizeof *v);
    for (int i = 0; i < 1000; i++) assert_int_equal(v[i], 0);
    v = xrealloc(v, 2000 * sizeof *v);
    assert_int_equal(v[999], 0);
    free(v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strbuf__is_an_empty_string__after_init),
        cmocka_unit_test(strbuf__appends_in_order__and_stays_nul_terminated),
        cmocka_unit_test(strbuf__grows_past_its_capacity__keeping_every_byte),
        cmocka_unit_test(strbuf__append_n__keeps_embedded_nul_bytes),
        cmocka_unit_test(strbuf__reset__empties_it_and_keeps_the_memory),
        cmocka_unit_test(strbuf__steal__hands_the_string_over__and_leaves_it_owning_nothing),
        cmocka_unit_test(edit_distance__counts_insertions_deletions_and_substitutions),
        cmocka_unit_test(edit_distance__is_99__when_a_string_is_over_64_bytes),
        cmocka_unit_test(cut__keeps_text_up_to_the_limit_unchanged),
        cmocka_unit_test(cut__says_how_many_bytes_it_cut),
        cmocka_unit_test(cut__never_splits_a_utf8_character),
        cmocka_unit_test(xalloc__string_helpers_copy_and_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
