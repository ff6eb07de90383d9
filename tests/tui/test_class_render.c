/* tests/tui/test_class_render.c: the class report as text (what `cudojo
 * class report` prints and the class screen scrolls): the summary, a
 * histogram bar per bin scaled to the largest, a row per exercise with
 * its rates and medians and a line of failure kinds; within 80 columns
 * with a long exercise id; ASCII only when the locale is not UTF-8; a
 * student's name cannot carry a control sequence. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/class_report.h"
#include "app/tui/tui_class.h"

static const char BOOK[] =
    "{\"format\":\"cudojo-gradebook\",\"format_version\":1,\"course_version\":\"0123456789abcdef\",\"backend\":\"emu\","
    " \"exercises\":[{\"id\":\"vector-add\",\"points\":1},"
    "  {\"id\":\"a-very-long-exercise-identifier-that-goes-on\",\"points\":1}],"
    " \"students\":["
    "  {\"student\":\"alice\",\"total\":2,\"max_total\":2,"
    "   \"exercises\":{\"vector-add\":{\"verdict\":\"pass\",\"fast\":true},"
    "    \"a-very-long-exercise-identifier-that-goes-on\":{\"verdict\":\"pass\"}},"
    "   \"progress\":{\"exercises\":[{\"id\":\"vector-add\",\"passed\":true,\"first_seen_unix_ms\":0,"
    "     \"first_pass_unix_ms\":750000,\"attempts\":[{\"when_unix_ms\":750000},{\"when_unix_ms\":1}]}]}},"
    "  {\"student\":\"bob\\u001b[31m\",\"total\":0,\"max_total\":2,\"problems\":[\"late\\u001b]0;pwned\\u0007\"],"
    "   \"exercises\":{\"vector-add\":{\"verdict\":\"fail\",\"failure_kind\":\"out-of-bounds\"},"
    "    \"a-very-long-exercise-identifier-that-goes-on\":{\"verdict\":\"timeout\",\"failure_kind\":\"timeout\"}}},"
    "  {\"student\":\"carol\",\"total\":0,\"max_total\":2,"
    "   \"exercises\":{\"vector-add\":{\"verdict\":\"fail\",\"failure_kind\":\"wrong-result\"}}}],"
    " \"similarity\":[{\"exercise\":\"vector-add\",\"students\":[\"alice\",\"bob\\u001b[31m\"],\"tokens\":44},"
    "  {\"exercise\":\"vector-add\",\"students\":[\"alice\",\"carol\"],\"near\":true,\"similarity\":0.79,"
    "   \"tokens\":50}]}";

static TextDoc *render(int width, bool utf8) {
    json_t *book = json_loads(BOOK, 0, NULL), *r = NULL;
    assert_non_null(book);
    assert_null(class_report_compute(book, "gb", &r));
    TextDoc *doc = text_doc_new();
    class_report_render(doc, r, width, utf8);
    json_decref(r);
    json_decref(book);
    return doc;
}

/* The plain text of the first line containing s, NULL if none (caller frees). */
static char *line_with(const TextDoc *d, const char *s) {
    for (int i = 0; i < d->n; i++) {
        char *p = text_line_plain(&d->lines[i]);
        if (strstr(p, s)) return p;
        free(p);
    }
    return NULL;
}

static int blocks(const char *s) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, "█")); p++) n++;
    return n;
}

static void render__summary_histogram_and_exercise_rows(void **state) {
    (void)state;
    TextDoc *d = render(80, true);
    char *l = line_with(d, "Class report: 3 students");
    assert_non_null(l);
    assert_non_null(strstr(l, "graded on emu"));
    assert_non_null(strstr(l, "course 0123456789ab"));
    free(l);
    assert_non_null(l = line_with(d, "mean 0.67"));
    free(l);
    /* Full marks fill the bar of the top bin; the 0-10% bin has 2 students, twice as long. */
    char *top = line_with(d, "90–100%"), *bottom = line_with(d, "0–10%");
    assert_non_null(top);
    assert_non_null(bottom);
    assert_non_null(strstr(bottom, "██"));
    assert_int_equal(blocks(bottom), 2 * blocks(top));
    assert_true(blocks(top) >= 10);
    free(top);
    free(bottom);
    l = line_with(d, "vector-add ");
    assert_non_null(l);
    assert_non_null(strstr(l, "1/3  33%"));
    assert_non_null(strstr(l, "33%"));
    assert_non_null(strstr(l, "2 (n=1)"));
    assert_non_null(strstr(l, "12m30s (n=1)"));
    free(l);
    assert_non_null(l = line_with(d, "failed: out of bounds 1 · wrong result 1"));
    free(l);
    assert_non_null(l = line_with(d, "2 groups of similar submissions"));
    free(l);
    assert_non_null(l = line_with(d, "vector-add: alice, carol (near-duplicates, 79% shared)"));
    free(l);
    text_doc_free(&d);
}

static void render__fits_80_columns_with_a_long_exercise_id(void **state) {
    (void)state;
    TextDoc *d = render(80, true);
    for (int i = 0; i < d->n; i++)
        if (text_line_width(&d->lines[i]) > 80) {
            char *p = text_line_plain(&d->lines[i]);
            fail_msg("line %d is %d columns: %s", i, text_line_width(&d->lines[i]), p);
        }
    char *l = line_with(d, "a-very-long");
    assert_non_null(l);
    assert_non_null(strstr(l, "1/3  33%"));   /* the id is cut, the numbers stay */
    free(l);
    text_doc_free(&d);
}

static void render__ascii_locale__draws_no_byte_above_127(void **state) {
    (void)state;
    TextDoc *d = render(80, false);
    for (int i = 0; i < d->n; i++) {
        char *p = text_line_plain(&d->lines[i]);
        for (const unsigned char *c = (const unsigned char *)p; *c; c++)
            if (*c >= 0x80) fail_msg("line %d has byte 0x%02x: %s", i, *c, p);
        free(p);
    }
    char *l = line_with(d, " 90-100%");
    assert_non_null(l);
    assert_non_null(strstr(l, "####"));
    free(l);
    text_doc_free(&d);
}

static void render__names_cannot_carry_control_sequences(void **state) {
    (void)state;
    TextDoc *d = render(80, true);
    for (int i = 0; i < d->n; i++) {
        char *p = text_line_plain(&d->lines[i]);
        for (const char *c = p; *c; c++)
            if ((unsigned char)*c < 32) fail_msg("line %d has control 0x%02x: %s", i, *c, p);
        free(p);
    }
    char *l = line_with(d, "bob^[[31m");
    assert_non_null(l);
    free(l);
    assert_non_null(l = line_with(d, "late^[]0;pwned^G"));
    free(l);
    text_doc_free(&d);
}

int main(void) {
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(render__summary_histogram_and_exercise_rows),
        cmocka_unit_test(render__fits_80_columns_with_a_long_exercise_id),
        cmocka_unit_test(render__ascii_locale__draws_no_byte_above_127),
        cmocka_unit_test(render__names_cannot_carry_control_sequences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
