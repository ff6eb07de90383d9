/* tests/base/test_result.c: a RunResult survives the worker pipe's JSON
 * whole (verdict, checks with stretch goals and mismatches, findings,
 * metrics, device output, log, time), verdict names read back, "passed
 * fast" means every stretch goal met, and names and messages are cut to
 * their limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/result.h"
#include "base/xalloc.h"

/* To text and back, as the worker pipe does. */
static RunResult *roundtrip(const RunResult *r) {
    json_t *j = run_result_to_json(r);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    assert_non_null(text);
    j = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(j);
    RunResult *back = run_result_from_json(j);
    json_decref(j);
    return back;
}

static void json__round_trips_a_whole_result(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_FAIL);
    r->exercise_id = xstrdup("02-threads/saxpy");
    r->backend = xstrdup("emu");
    r->summary = xstrdup("1 of 2 checks failed");
    r->duration_ms = 12.5;
    r->device_output = xstrdup("hello from block 0\n");
    r->log = xstrdup("n = 1024\n");
    r->metrics = json_pack("{s:i, s:f}", "warp_instructions", 4096, "kernel_ms", 0.25);
    r->diags = diag_new(DIAG_WARNING, "uncoalesced", "saxpy.cu", 7, 0, "stride");
    run_result_add_check(r, "y", true, "all 1024 match");
    CheckResult *c = run_result_add_check(r, "z", false, "3 of 1024 differ");
    c->n_wrong = 3;
    c->n_total = 1024;
    check_result_add_mismatch(c, 5, "1.5", "2");
    check_result_add_mismatch(c, 900, "nan", "0");
    CheckResult *s = run_result_add_check(r, "fast enough", true, "");
    s->stretch = true;

    RunResult *b = roundtrip(r);
    assert_int_equal(b->verdict, VERDICT_FAIL);
    assert_string_equal(b->exercise_id, "02-threads/saxpy");
    assert_string_equal(b->backend, "emu");
    assert_string_equal(b->summary, "1 of 2 checks failed");
    assert_true(b->duration_ms == 12.5);
    assert_string_equal(b->device_output, "hello from block 0\n");
    assert_string_equal(b->log, "n = 1024\n");
    assert_int_equal(json_integer_value(json_object_get(b->metrics, "warp_instructions")), 4096);
    assert_int_equal(diag_count(b->diags), 1);
    assert_string_equal(b->diags->code, "uncoalesced");
    assert_int_equal(b->n_checks, 3);
    assert_string_equal(b->checks[0].name, "y");
    assert_true(b->checks[0].passed);
    assert_false(b->checks[1].passed);
    assert_string_equal(b->checks[1].message, "3 of 1024 differ");
    assert_int_equal(b->checks[1].n_wrong, 3);
    assert_int_equal(b->checks[1].n_total, 1024);
    assert_int_equal(b->checks[1].n_mismatches, 2);
    assert_int_equal(b->checks[1].mismatches[1].index, 900);
    assert_string_equal(b->checks[1].mismatches[1].got, "nan");
    assert_string_equal(b->checks[1].mismatches[1].want, "0");
    assert_false(b->checks[1].stretch);
    assert_true(b->checks[2].stretch);
    run_result_free(&b);
    run_result_free(&r);
    assert_null(r);
}

static void json__leaves_absent_parts_absent(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    RunResult *b = roundtrip(r);
    assert_int_equal(b->verdict, VERDICT_PASS);
    assert_null(b->exercise_id);
    assert_null(b->backend);
    assert_null(b->device_output);
    assert_null(b->log);
    assert_null(b->metrics);
    assert_null(b->diags);
    assert_int_equal(b->n_checks, 0);
    run_result_free(&b);
    run_result_free(&r);
}

static void verdict__names_read_back__and_an_unknown_name_is_a_fail(void **state) {
    (void)state;
    const Verdict all[] = {VERDICT_PASS, VERDICT_FAIL, VERDICT_COMPILE_ERROR, VERDICT_RUNTIME_ERROR,
                           VERDICT_TIMEOUT, VERDICT_CRASH, VERDICT_CANCELLED, VERDICT_EXERCISE_ERROR};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        const char *name = verdict_name(all[i]);
        assert_non_null(name);
        assert_int_equal(verdict_from_name(name), all[i]);
        for (size_t k = 0; k < i; k++) assert_string_not_equal(name, verdict_name(all[k]));
    }
    assert_string_equal(verdict_name(VERDICT_COMPILE_ERROR), "compile-error");
    assert_int_equal(verdict_from_name("no-such-verdict"), VERDICT_FAIL);
    assert_int_equal(verdict_from_name(NULL), VERDICT_FAIL);
    assert_string_equal(verdict_name((Verdict)99), "fail");
}

static void fast__needs_a_pass_and_every_stretch_goal_met(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    run_result_add_check(r, "out", true, "");
    assert_false(run_result_fast(r));                       /* no stretch goal at all */
    CheckResult *g1 = run_result_add_check(r, "under 1 ms", true, "");
    g1->stretch = true;
    assert_true(run_result_fast(r));
    CheckResult *g2 = run_result_add_check(r, "coalesced", false, "");
    g2->stretch = true;
    assert_false(run_result_fast(r));                       /* one goal missed */
    r->checks[2].passed = true;
    r->verdict = VERDICT_FAIL;
    assert_false(run_result_fast(r));                       /* goals met but the run failed */
    run_result_free(&r);
}

static void add_check__cuts_long_names_and_messages(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_FAIL);
    char *name = xmalloc(RESULT_MAX_NAME * 5 + 1), *msg = xmalloc(RESULT_MAX_TEXT * 3 + 1);
    memset(name, 'n', RESULT_MAX_NAME * 5);
    name[RESULT_MAX_NAME * 5] = 0;
    memset(msg, 'm', RESULT_MAX_TEXT * 3);
    msg[RESULT_MAX_TEXT * 3] = 0;
    CheckResult *c = run_result_add_check(r, name, false, msg);
    check_result_add_mismatch(c, 0, msg, "1");
    assert_true(strlen(c->name) < RESULT_MAX_NAME + 40);
    assert_non_null(strstr(c->name, "bytes cut"));
    assert_true(strlen(c->message) < RESULT_MAX_TEXT + 40);
    assert_true(strlen(c->mismatches[0].got) < RESULT_MAX_TEXT + 40);
    assert_string_equal(c->mismatches[0].want, "1");
    c = run_result_add_check(r, NULL, true, NULL);          /* defaults, never NULL */
    assert_string_equal(c->name, "check");
    assert_string_equal(c->message, "");
    free(name);
    free(msg);
    run_result_free(&r);
}

/* The kernel time is the last k:time median, written as metrics "time_ms"
 * (lua/API.md). Attempts, grading and the TUI read it as "kernel_ms", a key
 * nothing writes: no run ever recorded a kernel time. */
static void kernel_ms__is_the_last_timed_median__that_the_run_reports(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    r->metrics = json_pack("{s:f, s:{s:{s:f, s:f}}}", "time_ms", 0.484, "kernels", "reduce", "time_ms", 0.484,
                           "time_ms_min", 0.481);
    assert_float_equal(run_result_kernel_ms(r), 0.484, 1e-12);
    run_result_free(&r);
}

static void kernel_ms__is_negative__when_nothing_was_timed(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    assert_true(run_result_kernel_ms(r) < 0);          /* no metrics at all */
    r->metrics = json_pack("{s:{s:f}}", "compile", "ms", 27.5);
    assert_true(run_result_kernel_ms(r) < 0);          /* an emulator run: no k:time measured */
    run_result_free(&r);
}

/* A verdict shown while what t:program kept runs after it says what that
 * is (metrics.after.kept, the kept runs' tools): compute-sanitizer is a
 * check, not a profile; nothing said reads as a profile, as before. */
static void after_doing__names_compute_sanitizer__and_a_profiler_otherwise(void **state) {
    (void)state;
    static const struct {
        const char *kept;       /* JSON */
        RunAfterKind kind;
        const char *doing;
    } cases[] = {
        {"[\"compute-sanitizer\"]", RUN_AFTER_SANITIZER, "checking with compute-sanitizer after the verdict…"},
        {"[\"compute-sanitizer\", \"compute-sanitizer\"]", RUN_AFTER_SANITIZER,
         "checking with compute-sanitizer after the verdict…"},
        {"[\"ncu\"]", RUN_AFTER_PROFILE, "profiling after the verdict…"},
        {"[\"nsys\", \"ncu\"]", RUN_AFTER_PROFILE, "profiling after the verdict…"},
        {"[\"ncu\", \"compute-sanitizer\"]", RUN_AFTER_BOTH,
         "profiling and checking with compute-sanitizer after the verdict…"},
        {NULL, RUN_AFTER_PROFILE, "profiling after the verdict…"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        RunResult *r = run_result_new(VERDICT_PASS);
        if (cases[i].kept) {
            json_t *kept = json_loads(cases[i].kept, 0, NULL);
            assert_non_null(kept);
            r->metrics = json_pack("{s:{s:f, s:o}}", "after", "verdict_ms", 12.5, "kept", kept);
        }
        assert_int_equal(run_result_after_kind(r), cases[i].kind);
        assert_string_equal(run_result_after_doing(r), cases[i].doing);
        run_result_free(&r);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json__round_trips_a_whole_result),
        cmocka_unit_test(json__leaves_absent_parts_absent),
        cmocka_unit_test(verdict__names_read_back__and_an_unknown_name_is_a_fail),
        cmocka_unit_test(fast__needs_a_pass_and_every_stretch_goal_met),
        cmocka_unit_test(add_check__cuts_long_names_and_messages),
        cmocka_unit_test(kernel_ms__is_the_last_timed_median__that_the_run_reports),
        cmocka_unit_test(kernel_ms__is_negative__when_nothing_was_timed),
        cmocka_unit_test(after_doing__names_compute_sanitizer__and_a_profiler_otherwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
