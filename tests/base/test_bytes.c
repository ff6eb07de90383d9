/* tests/base/test_bytes.c: any bytes survive a JSON round trip (paths and
 * kernel output that are not UTF-8 are neither dropped nor crash jansson),
 * valid UTF-8 is stored as it is, and terminal text has no control
 * sequences left in it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/bytes.h"
#include "base/diag.h"
#include "base/result.h"

/* Dumps to text, parses back and decodes, as the worker pipe does. */
static char *roundtrip(const char *s) {
    json_t *j = bytes_to_json(s);
    assert_non_null(j);
    json_t *arr = json_pack("[o]", j);
    char *text = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    assert_non_null(text);
    json_error_t err;
    json_t *back = json_loads(text, 0, &err);
    free(text);
    assert_non_null(back);
    char *out = bytes_from_json(json_array_get(back, 0));
    json_decref(back);
    return out;
}

static void bytes__round_trip_exactly__for_every_single_byte(void **state) {
    (void)state;
    for (int b = 1; b < 256; b++) {
        char in[4] = {'a', (char)b, 'z', 0};
        char *out = roundtrip(in);
        assert_string_equal(out, in);
        free(out);
    }
}

static void bytes__round_trip_exactly__for_broken_and_tricky_utf8(void **state) {
    (void)state;
    const char *cases[] = {
        "caf\xe9.cu",                 /* Latin-1 é */
        "\xc3\xa9t\xc3\xa9",           /* valid UTF-8 é */
        "\xed\xa0\x80",                /* a surrogate, encoded */
        "\xc0\xaf",                    /* overlong '/' */
        "\xf4\x90\x80\x80",            /* above U+10FFFF */
        "\xe2\x82",                    /* truncated sequence at the end */
        "\xee\xbe\x80\xee\xbf\xbf",    /* real U+EF80 and U+EFFF */
        "\xff\xfe\xfd",
        "\xf0\x9f\x98\x80 ok",         /* an emoji */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = roundtrip(cases[i]);
        assert_string_equal(out, cases[i]);
        free(out);
    }
}

static void bytes__keeps_valid_utf8_as_it_is(void **state) {
    (void)state;
    json_t *j = bytes_to_json("\xe7\x9f\xa9\xe9\x98\xb5 caf\xc3\xa9");
    assert_string_equal(json_string_value(j), "\xe7\x9f\xa9\xe9\x98\xb5 caf\xc3\xa9");
    json_decref(j);
    j = bytes_to_json("caf\xe9");
    assert_string_equal(json_string_value(j), "caf\xee\xbf\xa9");   /* U+EFE9 */
    json_decref(j);
    assert_null(bytes_to_json(NULL));
    assert_null(bytes_from_json(NULL));
}

static void bytes__is_utf8__follows_json_rules(void **state) {
    (void)state;
    assert_true(bytes_is_utf8("abc \xc3\xa9", 6));
    assert_false(bytes_is_utf8("\xe9", 1));
    assert_false(bytes_is_utf8("\xed\xa0\x80", 3));
    assert_false(bytes_is_utf8("\xc0\xaf", 2));
}

static void bytes__printable__escapes_control_sequences_and_bad_bytes(void **state) {
    (void)state;
    char *s = bytes_printable("red \033[31mX\033[0m\r\n\tcaf\xe9 \xc2\x9b \xc3\xa9");
    assert_string_equal(s, "red ^[[31mX^[[0m^M\n\tcaf\\xE9 \\u009B \xc3\xa9");
    free(s);
    assert_null(bytes_printable(NULL));
}

static void result__carries_bad_bytes_through_json__in_every_field(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_FAIL);
    r->exercise_id = strdup("01/x");
    r->summary = strdup("sum \xff");
    r->device_output = strdup("printf \xfe\n");
    r->log = strdup("log \xfd\n");
    CheckResult *c = run_result_add_check(r, "out \xe9", false, "msg \xe9");
    check_result_add_mismatch(c, 3, "got \xe9", "want \xe9");
    r->diags = diag_new(DIAG_ERROR, "lua", "ex\xe9.lua", 3, 0, "error \xe9");
    json_t *j = run_result_to_json(r);
    assert_non_null(j);
    char *text = json_dumps(j, JSON_COMPACT);
    assert_non_null(text);
    json_decref(j);
    json_t *back = json_loads(text, 0, NULL);
    free(text);
    RunResult *b = run_result_from_json(back);
    json_decref(back);
    assert_string_equal(b->summary, "sum \xff");
    assert_string_equal(b->device_output, "printf \xfe\n");
    assert_string_equal(b->log, "log \xfd\n");
    assert_int_equal(b->n_checks, 1);
    assert_string_equal(b->checks[0].name, "out \xe9");
    assert_string_equal(b->checks[0].message, "msg \xe9");
    assert_string_equal(b->checks[0].mismatches[0].got, "got \xe9");
    assert_string_equal(b->checks[0].mismatches[0].want, "want \xe9");
    assert_non_null(b->diags);
    assert_string_equal(b->diags->file, "ex\xe9.lua");
    assert_string_equal(b->diags->message, "error \xe9");
    run_result_free(&r);
    run_result_free(&b);
}

static void result__print__shows_learner_text_without_escape_sequences(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    r->device_output = strdup("hi \033]0;title\007 \xe9");
    r->diags = diag_new(DIAG_WARNING, "x", "a\033.cu", 1, 0, "m\033[2J");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    run_result_print(r, f, false);
    fclose(f);
    assert_null(strchr(buf, '\033'));
    assert_non_null(strstr(buf, "hi ^[]0;title^G \\xE9"));
    assert_non_null(strstr(buf, "m^[[2J"));
    free(buf);
    run_result_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bytes__round_trip_exactly__for_every_single_byte),
        cmocka_unit_test(bytes__round_trip_exactly__for_broken_and_tricky_utf8),
        cmocka_unit_test(bytes__keeps_valid_utf8_as_it_is),
        cmocka_unit_test(bytes__is_utf8__follows_json_rules),
        cmocka_unit_test(bytes__printable__escapes_control_sequences_and_bad_bytes),
        cmocka_unit_test(result__carries_bad_bytes_through_json__in_every_field),
        cmocka_unit_test(result__print__shows_learner_text_without_escape_sequences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
