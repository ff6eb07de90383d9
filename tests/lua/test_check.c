/* tests/lua/test_check.c: what a failed check tells the learner: how many
 * elements are wrong, the first few with index, got and want, formatted so
 * two different values never print alike. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lua/api.h"

/* A host-only array (no Lua needed): the struct the checks read. */
static GpuArray make(DType dt, size_t n) {
    GpuArray a;
    memset(&a, 0, sizeof a);
    a.dtype = dt;
    a.n = n;
    a.ndim = 1;
    a.shape[0] = n;
    a.host = calloc(n ? n : 1, dtype_size(dt));
    return a;
}

static const CheckOpts equal = {false, 0, 0, "out"};
static const CheckOpts close_default = {true, 1e-5, 1e-6, "out"};

static void check__counts_all_wrong__lists_first_8(void **state) {
    (void)state;
    GpuArray g = make(DT_I32, 100), w = make(DT_I32, 100);
    for (size_t i = 0; i < 100; i++) {
        ((int32_t *)g.host)[i] = (int32_t)i;
        ((int32_t *)w.host)[i] = i % 10 == 3 ? -1 : (int32_t)i;
    }
    RunResult *r = run_result_new(VERDICT_PASS);
    assert_false(check_arrays(r, &g, &w, &equal));
    const CheckResult *c = &r->checks[0];
    assert_string_equal(c->name, "out");
    assert_int_equal(c->n_wrong, 10);
    assert_int_equal(c->n_total, 100);
    assert_int_equal(c->n_mismatches, 8);
    assert_int_equal(c->mismatches[0].index, 3);
    assert_int_equal(c->mismatches[7].index, 73);
    assert_string_equal(c->mismatches[0].got, "3");
    assert_string_equal(c->mismatches[0].want, "-1");
    assert_string_equal(c->message, "10 elements wrong of 100; first at [3]: got 3, want -1");
    run_result_free(&r);
    free(g.host);
    free(w.host);
}

static void check__formats_floats__round_trip_precise(void **state) {
    (void)state;
    GpuArray g = make(DT_F32, 1), w = make(DT_F32, 1);
    ((float *)g.host)[0] = 0.1f;
    ((float *)w.host)[0] = 0.2f;
    GpuArray g64 = make(DT_F64, 1), w64 = make(DT_F64, 1);
    ((double *)g64.host)[0] = 0.1;
    ((double *)w64.host)[0] = 0.1 + 1e-12;
    RunResult *r = run_result_new(VERDICT_PASS);
    check_arrays(r, &g, &w, &close_default);
    check_arrays(r, &g64, &w64, &equal);
    assert_string_equal(r->checks[0].mismatches[0].got, "0.100000001");
    assert_string_equal(r->checks[0].mismatches[0].want, "0.200000003");
    assert_non_null(strstr(r->checks[0].message, "(allowed error 3e-06)"));
    assert_string_equal(r->checks[1].mismatches[0].got, "0.10000000000000001");
    assert_string_equal(r->checks[1].mismatches[0].want, "0.10000000000100001");
    run_result_free(&r);
    free(g.host);
    free(w.host);
    free(g64.host);
    free(w64.host);
}

static void check__close__uses_abs_plus_rel(void **state) {
    (void)state;
    GpuArray g = make(DT_F64, 3), w = make(DT_F64, 3);
    double *gd = g.host, *wd = w.host;
    wd[0] = 100;
    gd[0] = 100.0009;   /* within 1e-6 + 1e-5*100 = 0.001001 */
    wd[1] = 0;
    gd[1] = 5e-7;       /* within abs */
    wd[2] = 1;
    gd[2] = 1.0001;     /* outside 1e-6 + 1e-5 */
    RunResult *r = run_result_new(VERDICT_PASS);
    assert_false(check_arrays(r, &g, &w, &close_default));
    assert_int_equal(r->checks[0].n_wrong, 1);
    assert_int_equal(r->checks[0].mismatches[0].index, 2);
    run_result_free(&r);
    free(g.host);
    free(w.host);
}

static void check__nan__never_close__equal_to_nan(void **state) {
    (void)state;
    GpuArray g = make(DT_F32, 2), w = make(DT_F32, 2);
    ((float *)g.host)[0] = NAN;
    ((float *)w.host)[0] = NAN;
    RunResult *r = run_result_new(VERDICT_PASS);
    assert_false(check_arrays(r, &g, &w, &close_default));
    assert_true(check_arrays(r, &g, &w, &equal));
    ((float *)w.host)[0] = 1;
    assert_false(check_arrays(r, &g, &w, &equal));
    assert_string_equal(r->checks[2].mismatches[0].got, "nan");
    run_result_free(&r);
    free(g.host);
    free(w.host);
}

static void check__integers__compared_exactly(void **state) {
    (void)state;
    /* 2^63 and 2^63+1 are the same double; the check must still see them differ. */
    GpuArray g = make(DT_U64, 2), w = make(DT_U64, 2);
    ((uint64_t *)g.host)[0] = (1ull << 63) + 1;
    ((uint64_t *)w.host)[0] = 1ull << 63;
    GpuArray s = make(DT_I64, 2);
    ((int64_t *)s.host)[1] = -1;
    ((uint64_t *)g.host)[1] = UINT64_MAX;
    RunResult *r = run_result_new(VERDICT_PASS);
    assert_false(check_arrays(r, &g, &w, &equal));
    assert_int_equal(r->checks[0].n_wrong, 2);
    assert_string_equal(r->checks[0].mismatches[0].got, "9223372036854775809");
    assert_string_equal(r->checks[0].mismatches[0].want, "9223372036854775808");
    /* -1 (i64) is not UINT64_MAX (u64) even though the bits match. */
    ((uint64_t *)g.host)[0] = 0;
    assert_false(check_arrays(r, &g, &s, &equal));
    assert_int_equal(r->checks[1].n_wrong, 1);
    run_result_free(&r);
    free(g.host);
    free(w.host);
    free(s.host);
}

static void check__formats_2d_and_3d_indices(void **state) {
    (void)state;
    GpuArray g = make(DT_I32, 12), w = make(DT_I32, 12);
    g.ndim = 2;
    g.shape[0] = 3;
    g.shape[1] = 4;
    ((int32_t *)w.host)[7] = 1;
    RunResult *r = run_result_new(VERDICT_PASS);
    check_arrays(r, &g, &w, &equal);
    assert_string_equal(r->checks[0].message, "1 element wrong of 12; first at [1][3]: got 0, want 1");
    g.ndim = 3;
    g.shape[0] = 2;
    g.shape[1] = 3;
    g.shape[2] = 2;
    check_arrays(r, &g, &w, &equal);
    assert_string_equal(r->checks[1].message, "1 element wrong of 12; first at [1][0][1]: got 0, want 1");
    run_result_free(&r);
    free(g.host);
    free(w.host);
}

static void check__length_mismatch__is_reported(void **state) {
    (void)state;
    GpuArray g = make(DT_F32, 10), w = make(DT_F32, 12);
    RunResult *r = run_result_new(VERDICT_PASS);
    assert_false(check_arrays(r, &g, &w, &equal));
    assert_string_equal(r->checks[0].message, "out has 10 elements but the expected values have 12");
    run_result_free(&r);
    free(g.host);
    free(w.host);
}

static void check__scalars_and_broadcast(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    CheckOpts o = {true, 1e-5, 1e-6, "sum"};
    assert_true(check_scalars(r, 1000.001, 1000, &o));
    assert_false(check_scalars(r, 999, 1000, &o));
    assert_string_equal(r->checks[1].message, "got 999, want 1000 (allowed error 0.01)");
    GpuArray g = make(DT_I32, 4);
    ((int32_t *)g.host)[2] = 7;
    assert_false(check_array_scalar(r, &g, 0, &equal));
    assert_string_equal(r->checks[2].message, "1 element wrong of 4; first at [2]: got 7, want 0");
    run_result_free(&r);
    free(g.host);
}

static void check__passing_message(void **state) {
    (void)state;
    GpuArray g = make(DT_F32, 5), w = make(DT_F32, 5);
    RunResult *r = run_result_new(VERDICT_PASS);
    assert_true(check_arrays(r, &g, &w, &close_default));
    assert_true(r->checks[0].passed);
    assert_string_equal(r->checks[0].message, "all 5 elements within tolerance");
    assert_int_equal(r->checks[0].n_mismatches, 0);
    run_result_free(&r);
    free(g.host);
    free(w.host);
}

/* Past PAR_MIN_ELEMS a comparison runs in ranges on every core: the count
 * and the first mismatches are still those of one pass in order, for equal
 * bytes (the fast path), exact integers and tolerances alike. */
static void check__large_arrays_count_and_list_in_order(void **state) {
    (void)state;
    size_t n = 1000003;
    GpuArray g = make(DT_F32, n), w = make(DT_F32, n);
    for (size_t i = 0; i < n; i++) ((float *)g.host)[i] = ((float *)w.host)[i] = (float)(i % 977);
    RunResult *r = run_result_new(VERDICT_PASS);
    assert_true(check_arrays(r, &g, &w, &equal));
    assert_true(check_arrays(r, &g, &w, &close_default));
    /* 5 wrong in the first half, 6 in the second: the list is the first 8 in index order */
    size_t bad[] = {10, 20, 30, 40, 50, 600000, 700000, 800000, 900000, 950000, n - 1};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) ((float *)g.host)[bad[k]] += 1;
    ((float *)g.host)[123] = -0.0f;   /* 0 vs -0: different bytes, equal values */
    ((float *)w.host)[123] = 0.0f;
    assert_false(check_arrays(r, &g, &w, &equal));
    assert_false(check_arrays(r, &g, &w, &close_default));
    for (int c = 2; c < 4; c++) {
        assert_int_equal(r->checks[c].n_wrong, 11);
        assert_int_equal(r->checks[c].n_mismatches, 8);
        assert_int_equal(r->checks[c].mismatches[0].index, 10);
        assert_int_equal(r->checks[c].mismatches[5].index, 600000);
        assert_int_equal(r->checks[c].mismatches[7].index, 800000);
    }
    GpuArray gi = make(DT_I32, n), wi = make(DT_I64, n);
    for (size_t i = 0; i < n; i++) ((int32_t *)gi.host)[i] = (int32_t)(((int64_t *)wi.host)[i] = (int64_t)i - 500000);
    ((int64_t *)wi.host)[999999] = 1;
    assert_false(check_arrays(r, &gi, &wi, &equal));
    assert_int_equal(r->checks[4].n_wrong, 1);
    assert_int_equal(r->checks[4].mismatches[0].index, 999999);
    run_result_free(&r);
    free(g.host);
    free(w.host);
    free(gi.host);
    free(wi.host);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check__counts_all_wrong__lists_first_8),
        cmocka_unit_test(check__formats_floats__round_trip_precise),
        cmocka_unit_test(check__close__uses_abs_plus_rel),
        cmocka_unit_test(check__nan__never_close__equal_to_nan),
        cmocka_unit_test(check__integers__compared_exactly),
        cmocka_unit_test(check__formats_2d_and_3d_indices),
        cmocka_unit_test(check__length_mismatch__is_reported),
        cmocka_unit_test(check__scalars_and_broadcast),
        cmocka_unit_test(check__passing_message),
        cmocka_unit_test(check__large_arrays_count_and_list_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
