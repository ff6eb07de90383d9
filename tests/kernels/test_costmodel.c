/* tests/kernels/test_costmodel.c: the emulator's cost model gives the
 * numbers its documented formulas give (kernels/costmodel.h), worked out
 * here by hand for the sm_90 profile (H100 SXM5: 132 SMs, 1.98 GHz, 3352
 * GB/s HBM, PCIe Gen5 x16 at 55 GB/s, 10 GB/s staging). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/costmodel.h"

static CostModel sm90(void) {
    CostModel m;
    costmodel_for_profile(profile_find("sm_90"), &m);
    return m;
}

static void for_profile__takes_sms_and_names_part__when_sm90(void **state) {
    (void)state;
    CostModel m = sm90();
    assert_int_equal(m.sm_count, 132);
    assert_int_equal(m.copy_engines, 2);
    assert_non_null(strstr(m.name, "sm_90"));
    assert_non_null(strstr(m.name, "H100"));
    assert_non_null(strstr(m.name, "PCIe Gen5"));
    CostModel t4;
    costmodel_for_profile(profile_find("sm_75"), &t4);
    assert_int_equal(t4.sm_count, 40);
    assert_true(t4.link_gbs < m.link_gbs);
    CostModel own;
    costmodel_for_profile(NULL, &own);
    assert_int_equal(own.sm_count, 132);
}

static void copy__is_latency_plus_bytes_over_link__when_pinned(void **state) {
    (void)state;
    CostModel m = sm90();
    /* 55e6 B / 55 GB/s = 1000 us, + 2 us setup */
    assert_float_equal(costmodel_copy_us(&m, 55000000, 1), 1002.0, 1e-9);
    assert_float_equal(costmodel_copy_us(&m, 0, 1), 2.0, 1e-12);
}

static void copy__is_staged_and_slower__when_pageable(void **state) {
    (void)state;
    CostModel m = sm90();
    /* 1 / (1/55 + 1/10) = 550/65 GB/s; 55e6 B takes 6500 us, + 2 */
    assert_float_equal(costmodel_pageable_gbs(&m), 550.0 / 65.0, 1e-9);
    assert_float_equal(costmodel_copy_us(&m, 55000000, 0), 6502.0, 1e-6);
    assert_true(costmodel_copy_us(&m, 1 << 20, 0) > 5 * costmodel_copy_us(&m, 1 << 20, 1) - 10);
}

static void memset_and_d2d__use_hbm_bandwidth(void **state) {
    (void)state;
    CostModel m = sm90();
    /* 3352000 B at 3352 GB/s = 1 us written; a device copy reads and writes */
    assert_float_equal(costmodel_memset_us(&m, 3352000), 3.0, 1e-9);
    assert_float_equal(costmodel_d2d_us(&m, 3352000), 4.0, 1e-9);
}

static void kernel__is_fixed_plus_compute__when_compute_bound(void **state) {
    (void)state;
    CostModel m = sm90();
    /* 4 warp-instr/clk * 132 SMs * 1980 clk/us = 1,045,440 per us: 10 us of issue */
    uint64_t wi = 10454400;
    assert_float_equal(costmodel_kernel_compute_us(&m, wi, 1000), 10.0, 1e-9);
    /* 523750 sectors * 32 B / 3352 GB/s = 5 us: compute wins */
    assert_float_equal(costmodel_kernel_memory_us(&m, 523750), 5.0, 1e-9);
    assert_float_equal(costmodel_kernel_us(&m, wi, 523750, 1000), 11.0, 1e-9);
}

static void kernel__is_fixed_plus_memory__when_memory_bound(void **state) {
    (void)state;
    CostModel m = sm90();
    assert_float_equal(costmodel_kernel_us(&m, 10454400, 2095000, 132), 1.0 + 20.0, 1e-9);
}

static void kernel__uses_fewer_sms__when_grid_is_small(void **state) {
    (void)state;
    CostModel m = sm90();
    assert_int_equal(costmodel_kernel_sms(&m, 33), 33);
    assert_int_equal(costmodel_kernel_sms(&m, 100000), 132);
    assert_int_equal(costmodel_kernel_sms(&m, 0), 1);
    /* 33 of 132 SMs: four times as long to issue the same instructions */
    assert_float_equal(costmodel_kernel_us(&m, 10454400, 0, 33), 41.0, 1e-9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(for_profile__takes_sms_and_names_part__when_sm90),
        cmocka_unit_test(copy__is_latency_plus_bytes_over_link__when_pinned),
        cmocka_unit_test(copy__is_staged_and_slower__when_pageable),
        cmocka_unit_test(memset_and_d2d__use_hbm_bandwidth),
        cmocka_unit_test(kernel__is_fixed_plus_compute__when_compute_bound),
        cmocka_unit_test(kernel__is_fixed_plus_memory__when_memory_bound),
        cmocka_unit_test(kernel__uses_fewer_sms__when_grid_is_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
