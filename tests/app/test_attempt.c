/* tests/app/test_attempt.c: what an attempt records from a run's metrics
 * (app/attempt.c): the kernel time is the last k:time median, which the
 * exercise runtime writes as metrics "time_ms" (lua/API.md). It was read as
 * "kernel_ms", a key nothing writes: every attempt and graded run recorded
 * no kernel time, so `cudojo progress` never showed a best time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>

#include "app/attempt.h"
#include "base/result.h"

static void kernel_ms__is_the_last_timed_median__that_the_run_reports(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    r->metrics = json_pack("{s:f, s:{s:{s:f, s:f}}}", "time_ms", 0.484, "kernels", "reduce", "time_ms", 0.484,
                           "time_ms_min", 0.481);
    assert_float_equal(attempt_kernel_ms(r), 0.484, 1e-12);
    run_result_free(&r);
}

static void kernel_ms__is_negative__when_nothing_was_timed(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    assert_true(attempt_kernel_ms(r) < 0);          /* no metrics at all */
    r->metrics = json_pack("{s:{s:f}}", "compile", "ms", 27.5);
    assert_true(attempt_kernel_ms(r) < 0);          /* an emulator run: no k:time measured */
    run_result_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_ms__is_the_last_timed_median__that_the_run_reports),
        cmocka_unit_test(kernel_ms__is_negative__when_nothing_was_timed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
