/* tests/base/test_number.c: number_whole reads decimal digits only, within
 * the caller's range; everything else (signs, spaces, suffixes, overflow)
 * is no number and leaves *out alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/number.h"

static void number_whole__reads_digits_in_the_range__and_nothing_else(void **state) {
    (void)state;
    static const struct {
        const char *s;
        long long lo, hi;
        bool ok;
        long long v;
    } cases[] = {
        {"0", 0, 10, true, 0},         {"7", 1, 32, true, 7},        {"32", 1, 32, true, 32},
        {"007", 0, 10, true, 7},       {"33", 1, 32, false, 0},      {"0", 1, 32, false, 0},
        {NULL, 0, 10, false, 0},       {"", 0, 10, false, 0},        {"+8", 0, 10, false, 0},
        {"-1", 0, 10, false, 0},       {" 8", 0, 10, false, 0},      {"8 ", 0, 10, false, 0},
        {"8k", 0, 10, false, 0},       {"0x8", 0, 10, false, 0},     {"1.5", 0, 10, false, 0},
        {"9223372036854775807", 0, 9223372036854775807LL, true, 9223372036854775807LL},
        {"9223372036854775808", 0, 9223372036854775807LL, false, 0},
        {"99999999999999999999999", 0, 10, false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long long v = -42;
        bool ok = number_whole(cases[i].s, cases[i].lo, cases[i].hi, &v);
        if (ok != cases[i].ok || v != (ok ? cases[i].v : -42))
            fail_msg("'%s' in %lld..%lld: %s %lld", cases[i].s ? cases[i].s : "(null)", cases[i].lo, cases[i].hi,
                     ok ? "took" : "refused", v);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(number_whole__reads_digits_in_the_range__and_nothing_else),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
