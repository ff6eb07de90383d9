/* tests/grade/test_grade_verdict.c: a graded run's verdict with the
 * emulator's second opinion on a GPU pass (app/grade_verdict.c), from
 * synthetic results: a pass the emulator finds a bug in is a fail of the
 * bug's kind that says "passed on the GPU by luck"; a speed target or an
 * emulator-only measurement missed there leaves the pass; the emulator's
 * own limits leave it too; a failure is never checked again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "app/grade.h"
#include "base/xalloc.h"

/* A kernel exercise that passed or failed on `backend`, with one launch and
 * one data check of `out`. */
static RunResult *result(const char *backend, Verdict v) {
    RunResult *r = run_result_new(v);
    r->backend = xstrdup(backend);
    r->exercise_id = xstrdup("sgemm-tiled");
    r->summary = xstrdup(v == VERDICT_PASS ? "passed" : "failed");
    r->metrics = json_pack("{s:i}", "launches", 1);
    CheckResult *c = run_result_add_check(r, "C", v == VERDICT_PASS, v == VERDICT_PASS ? "all 4096 elements within tolerance"
                                                                                        : "12 elements wrong of 4096");
    c->n_total = 4096;
    c->n_wrong = v == VERDICT_PASS ? 0 : 12;
    return r;
}

static RunResult *gpu_pass(void) { return result("cuda", VERDICT_PASS); }

static ExerciseMeta exercise(void) {
    ExerciseMeta ex;
    memset(&ex, 0, sizeof ex);
    ex.id = "sgemm-tiled";
    ex.points = 1;
    ex.gpus = 1;
    return ex;
}

static void judge_expect(const RunResult *gpu, const RunResult *emu, bool pass, const char *kind, const char *msg_part) {
    GradeVerdict v = grade_verdict_judge(gpu, emu, true);
    assert_int_equal(v.pass, pass);
    if (kind) assert_string_equal(v.failure_kind, kind);
    else assert_null(v.failure_kind);
    assert_string_equal(v.verdict, pass ? "pass" : "fail");
    if (msg_part) {
        assert_non_null(v.message);
        if (!strstr(v.message, msg_part)) fail_msg("message '%s' lacks '%s'", v.message, msg_part);
    } else if (pass) {
        assert_null(v.message);
    }
    if (emu) {
        assert_non_null(v.emulator_check);
        bool gpu_passed = gpu->verdict == VERDICT_PASS;   /* only a pass can be overturned */
        assert_int_equal(json_is_true(json_object_get(v.emulator_check, "overturned")), gpu_passed && !pass);
        assert_string_equal(json_string_value(json_object_get(v.emulator_check, "verdict")), verdict_name(emu->verdict));
    } else {
        assert_null(v.emulator_check);
    }
    grade_verdict_fini(&v);
}

static void grade_verdict__gpu_pass_and_emulator_race_is_a_fail_of_kind_race_at_its_line(void **state) {
    (void)state;
    RunResult *gpu = gpu_pass(), *emu = result("emu", VERDICT_FAIL);
    diag_append(&emu->diags, diag_new(DIAG_WARNING, "uncoalesced", "roofline/sgemm-tiled.cu", 40, 0, "uncoalesced"));
    diag_append(&emu->diags, diag_new(DIAG_ERROR, "race-shared", "roofline/sgemm-tiled.cu", 57, 0,
                                      "shared-memory race on As[ty][k]"));
    judge_expect(gpu, emu, false, "race",
                 "passed on the GPU by luck: the emulator found a race at roofline/sgemm-tiled.cu:57");
    /* the emulator's findings are kept for the feedback */
    GradeVerdict v = grade_verdict_judge(gpu, emu, true);
    json_t *f = json_object_get(v.emulator_check, "findings");
    assert_int_equal(json_array_size(f), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(f, 1), "code")), "race-shared");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(f, 1), "line")), 57);
    grade_verdict_fini(&v);
    run_result_free(&gpu);
    run_result_free(&emu);
}

static void grade_verdict__gpu_pass_and_emulator_pass_stays_a_pass(void **state) {
    (void)state;
    RunResult *gpu = gpu_pass(), *emu = result("emu", VERDICT_PASS);
    judge_expect(gpu, emu, true, NULL, NULL);
    run_result_free(&gpu);
    run_result_free(&emu);
}

static void grade_verdict__a_speed_target_missed_on_the_emulator_leaves_the_gpu_pass(void **state) {
    (void)state;
    RunResult *gpu = gpu_pass(), *emu = result("emu", VERDICT_PASS);
    emu->verdict = VERDICT_FAIL;   /* the answer right, a target missed */
    run_result_add_check(emu, "expect", false, "0.91 ms, slower than the 0.5 ms target");
    judge_expect(gpu, emu, true, NULL, NULL);
    run_result_free(&emu);
    /* an emulator-only measurement: a t:expect the GPU run did not make */
    emu = result("emu", VERDICT_PASS);
    emu->verdict = VERDICT_FAIL;
    run_result_add_check(emu, "expect", false, "1.20 shared-memory requests per multiply-add; the target is at most 0.6");
    run_result_add_check(emu, "occupancy", false, "occupancy 25%, expected at least 50%");
    judge_expect(gpu, emu, true, NULL, NULL);
    run_result_free(&gpu);
    run_result_free(&emu);
}

static void grade_verdict__a_wrong_answer_on_the_emulator_is_a_wrong_result(void **state) {
    (void)state;
    RunResult *gpu = gpu_pass(), *emu = result("emu", VERDICT_FAIL);
    judge_expect(gpu, emu, false, "wrong-result", "the emulator found a wrong result (check C: 12 elements wrong of 4096)");
    run_result_free(&emu);
    /* a t:expect the GPU made too (same words, other numbers) is about the answer */
    run_result_add_check(gpu, "expect", true, "0 of 32 spot-checked entries of C are wrong");
    emu = result("emu", VERDICT_PASS);
    emu->verdict = VERDICT_FAIL;
    run_result_add_check(emu, "expect", false, "3 of 32 spot-checked entries of C are wrong");
    judge_expect(gpu, emu, false, "wrong-result", "spot-checked");
    run_result_free(&gpu);
    run_result_free(&emu);
}

static void grade_verdict__timeout_and_misaligned_access_fail_but_emulator_limits_do_not(void **state) {
    (void)state;
    RunResult *gpu = gpu_pass(), *emu = run_result_new(VERDICT_TIMEOUT);
    emu->backend = xstrdup("emu");
    judge_expect(gpu, emu, false, "timeout", "passed on the GPU by luck: the emulator found a hang");
    run_result_free(&emu);
    emu = run_result_new(VERDICT_RUNTIME_ERROR);
    diag_append(&emu->diags, diag_new(DIAG_ERROR, "misaligned", "ch/x.cu", 9, 0, "misaligned 8-byte load"));
    judge_expect(gpu, emu, false, "misaligned", "a misaligned access at ch/x.cu:9");
    run_result_free(&emu);
    /* the emulator's own limits and troubles: the GPU's verdict stands */
    emu = run_result_new(VERDICT_RUNTIME_ERROR);
    diag_append(&emu->diags, diag_new(DIAG_ERROR, "unimplemented", NULL, 0, 0, "cudaFooBar is not implemented"));
    GradeEmuFinding f = grade_emu_finding(emu, gpu, true);
    assert_true(f.inconclusive);
    assert_null(f.kind);
    judge_expect(gpu, emu, true, NULL, NULL);
    run_result_free(&emu);
    emu = run_result_new(VERDICT_CRASH);
    judge_expect(gpu, emu, true, NULL, NULL);
    run_result_free(&emu);
    /* a runtime error with no sign of the emulator's limits is the kernel's */
    emu = run_result_new(VERDICT_RUNTIME_ERROR);
    diag_append(&emu->diags, diag_new(DIAG_ERROR, "assert", "ch/x.cu", 3, 0, "device assert failed"));
    judge_expect(gpu, emu, false, "runtime-error", "a runtime error at ch/x.cu:3");
    run_result_free(&emu);
    run_result_free(&gpu);
}

static void grade_verdict__a_failure_or_an_emulator_run_is_never_checked_again(void **state) {
    (void)state;
    ExerciseMeta ex = exercise();
    RunResult *pass = gpu_pass(), *fail = result("cuda", VERDICT_FAIL), *emu_pass = result("emu", VERDICT_PASS);
    assert_true(grade_emu_check_wanted(true, &ex, pass));
    assert_false(grade_emu_check_wanted(false, &ex, pass));      /* --emu-check=off */
    assert_false(grade_emu_check_wanted(true, &ex, fail));       /* a failure: no emulator run at all */
    assert_false(grade_emu_check_wanted(true, &ex, emu_pass));   /* graded on the emulator already */
    json_object_set_new(pass->metrics, "launches", json_integer(0));
    assert_false(grade_emu_check_wanted(true, &ex, pass));       /* no launch: failed as no-launch */
    json_object_set_new(pass->metrics, "launches", json_integer(1));
    ex.needs_gpu = true;
    assert_false(grade_emu_check_wanted(true, &ex, pass));       /* the emulator cannot run it */
    ex.needs_gpu = false;
    ex.gpus = GRADE_EMU_MAX_GPUS + 1;
    assert_false(grade_emu_check_wanted(true, &ex, pass));       /* more GPUs than it emulates */
    ex.gpus = 2;
    assert_true(grade_emu_check_wanted(true, &ex, pass));
    /* planned before the run (its request says so): on, and an exercise the emulator can judge */
    assert_true(grade_emu_check_planned(true, &ex));
    assert_false(grade_emu_check_planned(false, &ex));
    ex.needs_gpu = true;
    assert_false(grade_emu_check_planned(true, &ex));
    ex.needs_gpu = false;
    ex.gpus = GRADE_EMU_MAX_GPUS + 1;
    assert_false(grade_emu_check_planned(true, &ex));
    ex.gpus = 2;
    /* without an emulator run the verdict is the run's own */
    judge_expect(fail, NULL, false, "wrong-result", NULL);
    judge_expect(pass, NULL, true, NULL, NULL);
    run_result_free(&pass);
    run_result_free(&fail);
    run_result_free(&emu_pass);
}

static void grade_verdict__a_fail_is_not_rescued_by_an_emulator_pass(void **state) {
    (void)state;
    RunResult *fail = result("cuda", VERDICT_FAIL), *emu = result("emu", VERDICT_PASS);
    judge_expect(fail, emu, false, "wrong-result", NULL);
    run_result_free(&fail);
    run_result_free(&emu);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grade_verdict__gpu_pass_and_emulator_race_is_a_fail_of_kind_race_at_its_line),
        cmocka_unit_test(grade_verdict__gpu_pass_and_emulator_pass_stays_a_pass),
        cmocka_unit_test(grade_verdict__a_speed_target_missed_on_the_emulator_leaves_the_gpu_pass),
        cmocka_unit_test(grade_verdict__a_wrong_answer_on_the_emulator_is_a_wrong_result),
        cmocka_unit_test(grade_verdict__timeout_and_misaligned_access_fail_but_emulator_limits_do_not),
        cmocka_unit_test(grade_verdict__a_failure_or_an_emulator_run_is_never_checked_again),
        cmocka_unit_test(grade_verdict__a_fail_is_not_rescued_by_an_emulator_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
