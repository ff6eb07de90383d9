/* tests/kernels/test_occupancy.c: device profiles and theoretical occupancy.
 *
 * The expected numbers are derived by hand from the hardware limits in each
 * test's comment, not read back from the code. The GPU cross-check compares
 * occupancy_compute with cudaOccupancyMaxActiveBlocksPerMultiprocessor for
 * several kernels, block sizes and shared-memory sizes; it skips without a
 * GPU unless CUDOJO_TEST_GPU=1 (make test-gpu). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/backend.h"
#include "kernels/compile.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/occupancy.h"
#include "kernels/profiles.h"

static Occupancy occ(const char *arch, int block, int regs, size_t shared_static, size_t shared_dyn) {
    const DeviceProfile *p = profile_find(arch);
    assert_non_null(p);
    OccupancyInput in = {block, regs, shared_static, shared_dyn};
    Occupancy o;
    Diag *d = occupancy_compute(p, &in, &o);
    if (d) fail_msg("%s", d->message);
    return o;
}

/* ---- profiles ---- */

static void profiles__include_the_required_architectures(void **state) {
    (void)state;
    static const char *const need[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120", "sm_121"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!profile_find(need[i])) fail_msg("no profile for %s", need[i]);
    assert_string_equal(profile_newest()->arch, "sm_121");
    assert_int_equal(profile_find("sm_90")->sm_count, 132);
    assert_int_equal(profile_find("sm_80")->sm_count, 108);
}

static void profiles__agree_with_cuda_occupancy_h_and_are_sane(void **state) {
    (void)state;
    for (int i = 0; i < profile_count(); i++) {
        const DeviceProfile *p = profile_at(i);
        Diag *d = occupancy_check_profile(p);
        if (d) fail_msg("%s", d->message);
        assert_int_equal(p->warp_size, 32);
        assert_true(p->max_warps_per_sm == 32 || p->max_warps_per_sm == 48 || p->max_warps_per_sm == 64);
        assert_true(p->max_threads_per_block <= p->max_warps_per_sm * p->warp_size);
        assert_true(p->shared_per_block <= p->shared_per_block_optin);
        /* The opt-in limit is the SM's carveout less what the driver reserves per block. */
        assert_int_equal(p->shared_per_block_optin + p->shared_reserved, p->shared_per_sm);
        assert_true(p->regs_per_block <= p->regs_per_sm);
        assert_int_equal(p->max_regs_per_thread, 255);
        assert_true(p->sm_count > 0 && p->part[0]);
        if (i > 0) {
            const DeviceProfile *q = profile_at(i - 1);
            assert_true(q->cc_major * 10 + q->cc_minor < p->cc_major * 10 + p->cc_minor);
        }
    }
}

static void profile_find__accepts_the_usual_spellings(void **state) {
    (void)state;
    const DeviceProfile *p = profile_find("sm_90");
    assert_non_null(p);
    assert_ptr_equal(profile_find("90"), p);
    assert_ptr_equal(profile_find("9.0"), p);
    assert_ptr_equal(profile_find("sm90"), p);
    assert_ptr_equal(profile_find("compute_90"), p);
    assert_ptr_equal(profile_find("sm_100"), profile_find_cc(10, 0));
    assert_null(profile_find("sm_99"));
    assert_null(profile_find("banana"));
    assert_null(profile_find("sm_9"));
    assert_null(profile_find(""));
    assert_non_null(strstr(profile_names(), "sm_75, sm_80"));
}

static void profile_from_device__takes_the_gpus_limits(void **state) {
    (void)state;
    DeviceInfo d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_count = 132;
    d.warp_size = 32;
    d.max_threads_per_block = 1024;
    d.max_threads_per_sm = 2048;
    d.max_blocks_per_sm = 32;
    d.regs_per_sm = d.regs_per_block = 65536;
    d.shared_per_sm = 233472;
    d.shared_per_block = 49152;
    d.shared_per_block_optin = 232448;
    DeviceProfile p;
    profile_from_device(&d, &p);
    assert_string_equal(p.arch, "sm_90");
    assert_string_equal(p.part, "NVIDIA H200");
    assert_int_equal(p.max_warps_per_sm, 64);
    assert_int_equal(p.shared_reserved, 1024);   /* from the sm_90 profile */
    assert_int_equal(p.shared_alloc_unit, 128);
    assert_null(occupancy_check_profile(&p));
    d.cc_minor = 7;                             /* an unknown minor takes the nearest older profile's units */
    d.sm_count = 10;
    profile_from_device(&d, &p);
    assert_string_equal(p.arch, "sm_97");
    assert_int_equal(p.sm_count, 10);
    assert_int_equal(p.reg_alloc_unit, 256);
}

/* ---- occupancy by hand ---- */

/* sm_80: 256 threads = 8 warps; 32 regs × 32 lanes = 1024 per warp, 16 warps
 * per 16384-register sub-partition → 64 warps: 8 blocks, 64/64 warps. */
static void occupancy__is_full__when_256_threads_use_32_registers_on_sm_80(void **state) {
    (void)state;
    Occupancy o = occ("sm_80", 256, 32, 0, 0);
    assert_int_equal(o.blocks_per_sm, 8);
    assert_int_equal(o.warps_per_sm, 64);
    assert_true(o.occupancy == 1.0);
    assert_int_equal(o.limiter, OCCUPANCY_LIMIT_WARPS);
    assert_string_equal(occupancy_limiter_name(o.limiter), "warps");
    assert_non_null(strstr(o.explanation, "100%"));
}

/* 64 regs: 2048 per warp, 8 warps per sub-partition → 32 warps = 4 blocks of 8. */
static void occupancy__halves_and_blames_registers__when_64_registers_on_sm_80(void **state) {
    (void)state;
    Occupancy o = occ("sm_80", 256, 64, 0, 0);
    assert_int_equal(o.blocks_per_sm, 4);
    assert_int_equal(o.warps_per_sm, 32);
    assert_true(o.occupancy == 0.5);
    assert_int_equal(o.limiter, OCCUPANCY_LIMIT_REGISTERS);
    assert_int_equal(o.registers_per_block, 16384);
    assert_int_equal(o.limit_registers, 4);
    assert_int_equal(o.limit_warps, 8);
    assert_non_null(strstr(o.explanation, "64 registers"));
    assert_non_null(strstr(o.explanation, "only 4 blocks fit"));
}

/* 48 KiB static + 1 KiB reserved = 50176 B per block; 164 KiB = 167936 B per
 * SM → 3 blocks (3.34), 24 of 64 warps = 37.5%. */
static void occupancy__blames_shared_memory__when_48_kib_static_on_sm_80(void **state) {
    (void)state;
    Occupancy o = occ("sm_80", 256, 32, 48 * 1024, 0);
    assert_int_equal(o.blocks_per_sm, 3);
    assert_int_equal(o.warps_per_sm, 24);
    assert_true(o.occupancy == 0.375);
    assert_int_equal(o.limiter, OCCUPANCY_LIMIT_SHARED);
    assert_int_equal(o.shared_per_block, 50176);
    assert_string_equal(occupancy_limiter_name(o.limiter), "shared memory");
    assert_non_null(strstr(o.explanation, "49 KiB"));
    /* The same block on sm_90's 228 KiB: 233472 / 50176 = 4.65 → 4 blocks, 32 of 64 warps. */
    o = occ("sm_90", 256, 32, 48 * 1024, 0);
    assert_int_equal(o.blocks_per_sm, 4);
    assert_true(o.occupancy == 0.5);
}

/* 32 threads = 1 warp; 32 blocks per SM at most → 32 of 64 warps. */
static void occupancy__blames_the_block_limit__when_blocks_are_one_warp(void **state) {
    (void)state;
    Occupancy o = occ("sm_80", 32, 16, 0, 0);
    assert_int_equal(o.blocks_per_sm, 32);
    assert_true(o.occupancy == 0.5);
    assert_int_equal(o.limiter, OCCUPANCY_LIMIT_BLOCKS);
    /* sm_75: 16 blocks of 1 warp in 32 warp slots. */
    o = occ("sm_75", 32, 16, 0, 0);
    assert_int_equal(o.blocks_per_sm, 16);
    assert_true(o.occupancy == 0.5);
    /* sm_89: 24 blocks of 1 warp in 48 slots. */
    o = occ("sm_89", 32, 16, 0, 0);
    assert_int_equal(o.blocks_per_sm, 24);
    assert_int_equal(o.limiter, OCCUPANCY_LIMIT_BLOCKS);
}

/* 768 threads = 24 warps: 64 / 24 → 2 blocks, 48 of 64 warps; the register
 * limit ties (64 warps' worth of registers) but it is the block shape. */
static void occupancy__blames_warps__when_the_block_does_not_divide_the_sm(void **state) {
    (void)state;
    Occupancy o = occ("sm_80", 768, 32, 0, 0);
    assert_int_equal(o.blocks_per_sm, 2);
    assert_true(o.occupancy == 0.75);
    assert_int_equal(o.limiter, OCCUPANCY_LIMIT_WARPS);
    assert_true(o.limiters & (1u << OCCUPANCY_LIMIT_REGISTERS));
    /* sm_86 holds 48 warps: 1024 threads = 32 warps → 1 block, 66.7%. */
    o = occ("sm_86", 1024, 32, 0, 0);
    assert_int_equal(o.blocks_per_sm, 1);
    assert_int_equal(o.warps_per_sm, 32);
    assert_int_equal(o.max_warps_per_sm, 48);
}

static void occupancy__is_zero_with_the_reason__when_the_launch_cannot_run(void **state) {
    (void)state;
    Occupancy o = occ("sm_90", 1025, 32, 0, 0);
    assert_int_equal(o.blocks_per_sm, 0);
    assert_int_equal(o.limiter, OCCUPANCY_LIMIT_BLOCK_SIZE);
    assert_non_null(strstr(o.explanation, "1024"));
    /* 255 regs → 8160, rounded to 8192 per warp × 32 warps = 262144 > 65536 per block. */
    o = occ("sm_90", 1024, 255, 0, 0);
    assert_int_equal(o.blocks_per_sm, 0);
    assert_int_equal(o.limiter, OCCUPANCY_LIMIT_REGISTERS);
    assert_non_null(strstr(o.explanation, "launch fails"));
    /* 100 KiB dynamic: fits sm_80's 163 KiB opt-in (1 block), not sm_86's 99 KiB. */
    o = occ("sm_80", 256, 32, 0, 100 * 1024);
    assert_int_equal(o.blocks_per_sm, 1);
    assert_int_equal(o.limiter, OCCUPANCY_LIMIT_SHARED);
    o = occ("sm_86", 256, 32, 0, 100 * 1024);
    assert_int_equal(o.blocks_per_sm, 0);
    assert_int_equal(o.limiter, OCCUPANCY_LIMIT_SHARED);
    assert_non_null(strstr(o.explanation, "99 KiB"));
    /* 16 KiB static + 40 KiB dynamic is above 48 KiB: the launch opts in;
     * 57 KiB with the reserve = 58368 B, 167936 / 58368 → 2 blocks. */
    o = occ("sm_80", 256, 32, 16 * 1024, 40 * 1024);
    assert_int_equal(o.blocks_per_sm, 2);
}

static void occupancy__rejects_nonsense_input(void **state) {
    (void)state;
    OccupancyInput in = {0, 32, 0, 0};
    Occupancy o;
    Diag *d = occupancy_compute(profile_find("sm_80"), &in, &o);
    assert_non_null(d);
    diag_free(&d);
    in = (OccupancyInput){256, -1, 0, 0};
    d = occupancy_compute(profile_find("sm_80"), &in, &o);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "cubin"));
    diag_free(&d);
}

/* ---- curves ---- */

static void curves__cover_the_range_and_fall_where_they_must(void **state) {
    (void)state;
    const DeviceProfile *p = profile_find("sm_90");
    OccupancyInput in = {256, 40, 4096, 0};
    OccupancyPoint pts[OCCUPANCY_CURVE_MAX];
    int n = occupancy_curve_block(p, &in, pts, OCCUPANCY_CURVE_MAX);
    assert_int_equal(n, 32);
    assert_int_equal(pts[0].x, 32);
    assert_int_equal(pts[31].x, 1024);
    Occupancy here;
    assert_null(occupancy_compute(p, &in, &here));
    assert_true(pts[7].x == 256 && pts[7].occupancy == here.occupancy);

    n = occupancy_curve_registers(p, &in, pts, OCCUPANCY_CURVE_MAX);
    assert_int_equal(pts[0].x, 8);
    assert_int_equal(pts[n - 1].x, 255);
    for (int i = 1; i < n; i++)
        if (pts[i].occupancy > pts[i - 1].occupancy)
            fail_msg("more registers raised occupancy: %d → %d", pts[i - 1].x, pts[i].x);
    assert_true(pts[0].occupancy == 1.0);
    /* 255 regs: 8160 per warp, rounded to 8192; 2 warps per 16384-register
     * sub-partition → 8 warps → 1 block of 256 threads, 8 of 64 warps. */
    assert_int_equal(pts[n - 1].blocks_per_sm, 1);
    assert_true(pts[n - 1].occupancy == 0.125);

    n = occupancy_curve_shared(p, &in, 0, pts, OCCUPANCY_CURVE_MAX);
    assert_true(n > 200);
    assert_int_equal(pts[0].x, 0);
    for (int i = 1; i < n; i++)
        if (pts[i].occupancy > pts[i - 1].occupancy)
            fail_msg("more shared memory raised occupancy: %d → %d", pts[i - 1].x, pts[i].x);
    assert_true(pts[n - 1].blocks_per_sm == 1);

    /* max bounds the number of points written. */
    assert_int_equal(occupancy_curve_block(p, &in, pts, 5), 5);
}

/* ---- GPU cross-check ---- */

static const char *XCHECK =
    "__global__ void light(const float *a, float *b, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) b[i] = 2.0f * a[i];\n"
    "}\n"
    "__global__ void heavy(const float *a, float *b, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float v[48];\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < 48; k++) v[k] = a[(i + k * 97) % n];\n"
    "    float s = 0;\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < 48; k++) s += v[k] * v[47 - k] + v[(k * 5) % 48];\n"
    "    b[i % n] = s;\n"
    "}\n"
    "__global__ void tile(const float *a, float *b, int n) {\n"
    "    __shared__ float s[10240];\n"   /* 40 KiB */
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    s[threadIdx.x] = i < n ? a[i] : 0;\n"
    "    __syncthreads();\n"
    "    if (i < n) b[i] = s[blockDim.x - 1 - threadIdx.x];\n"
    "}\n"
    "__global__ void dyn(const float *a, float *b, int n) {\n"
    "    extern __shared__ float s[];\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    s[threadIdx.x] = i < n ? a[i] : 0;\n"
    "    __syncthreads();\n"
    "    if (i < n) b[i] = s[threadIdx.x] + 1;\n"
    "}\n";

static void occupancy__matches_cudaOccupancyMaxActiveBlocksPerMultiprocessor__on_the_gpu(void **state) {
    (void)state;
    Diag *why = NULL;
    Backend *b = cuda_backend_new(&why);
    if (!b) {
        if (getenv("CUDOJO_TEST_GPU")) fail_msg("CUDOJO_TEST_GPU is set but no GPU: %s", why ? why->message : "?");
        diag_free(&why);
        skip();
    }
    DeviceInfo info;
    assert_null(b->ops->device_info(b, &info));
    DeviceProfile prof;
    profile_from_device(&info, &prof);
    Diag *d = occupancy_check_profile(&prof);
    if (d) fail_msg("%s", d->message);
    CompileOptions o = {0};
    o.cache_dir = "";
    o.opt_level = -1;
    o.cubin_arch = info.cc_major * 10 + info.cc_minor;
    CompiledModule *m = NULL;
    d = compile_cuda("xcheck.cu", XCHECK, &o, &m);
    if (d) fail_msg("%s", d->message);
    BackendModule *bm = NULL;
    d = b->ops->module_load(b, m, &bm);
    if (d) fail_msg("%s", d->message);
    static const char *const kernels[] = {"light", "heavy", "tile", "dyn"};
    static const int blocks[] = {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 896, 1024};
    static const size_t dyns[] = {0, 8 * 1024, 40 * 1024, 64 * 1024, 100 * 1024};
    int checked = 0, mismatches = 0;
    for (size_t ki = 0; ki < 4; ki++) {
        const KernelInfo *k = compiled_module_find(m, kernels[ki]);
        assert_non_null(k);
        assert_true(k->registers > 0);
        size_t nd = !strcmp(kernels[ki], "dyn") ? 5 : 1;
        for (size_t di = 0; di < nd; di++)
            for (size_t bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
                int gpu_blocks = -1, gpu_regs = -1;
                d = cuda_backend_occupancy(b, bm, kernels[ki], blocks[bi], dyns[di], &gpu_blocks, &gpu_regs);
                if (d) fail_msg("%s", d->message);
                OccupancyInput in = {blocks[bi], k->registers, (size_t)k->shared_static, dyns[di]};
                Occupancy mine;
                d = occupancy_compute(&prof, &in, &mine);
                if (d) fail_msg("%s", d->message);
                checked++;
                if (gpu_regs != k->registers || gpu_blocks != mine.blocks_per_sm) {
                    mismatches++;
                    print_message("MISMATCH %s block %d dyn %zu: regs ptxas %d runtime %d; blocks/SM ours %d "
                                  "runtime %d (%s)\n", kernels[ki], blocks[bi], dyns[di], k->registers, gpu_regs,
                                  mine.blocks_per_sm, gpu_blocks, occupancy_limiter_name(mine.limiter));
                }
            }
        print_message("%s on %s: %d registers, %d B static shared\n", kernels[ki], info.name, k->registers,
                      k->shared_static);
    }
    print_message("occupancy cross-check: %d configurations, %d mismatches\n", checked, mismatches);
    b->ops->module_unload(b, &bm);
    compiled_module_free(&m);
    backend_close(&b);
    assert_int_equal(mismatches, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(profiles__include_the_required_architectures),
        cmocka_unit_test(profiles__agree_with_cuda_occupancy_h_and_are_sane),
        cmocka_unit_test(profile_find__accepts_the_usual_spellings),
        cmocka_unit_test(profile_from_device__takes_the_gpus_limits),
        cmocka_unit_test(occupancy__is_full__when_256_threads_use_32_registers_on_sm_80),
        cmocka_unit_test(occupancy__halves_and_blames_registers__when_64_registers_on_sm_80),
        cmocka_unit_test(occupancy__blames_shared_memory__when_48_kib_static_on_sm_80),
        cmocka_unit_test(occupancy__blames_the_block_limit__when_blocks_are_one_warp),
        cmocka_unit_test(occupancy__blames_warps__when_the_block_does_not_divide_the_sm),
        cmocka_unit_test(occupancy__is_zero_with_the_reason__when_the_launch_cannot_run),
        cmocka_unit_test(occupancy__rejects_nonsense_input),
        cmocka_unit_test(curves__cover_the_range_and_fall_where_they_must),
        cmocka_unit_test(occupancy__matches_cudaOccupancyMaxActiveBlocksPerMultiprocessor__on_the_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
