/* tests/emu/test_wavefronts.c: the emulator counts the shared-memory
 * wavefronts of one warp's LDS/STS.32, .64 and .128 as the H200 does.
 *
 * Each case is a lane -> address pattern of the EMU11 probes
 * (.gpu/exp/emu11/probe.cu; ncu on the H200, results in
 * kernels/emu/README.md, "Shared-memory wavefronts"): one warp runs one
 * access of that width (inline PTX, so the width is the probe's), and the
 * launch's wavefronts, and what is left after the conflict-free ideal, must
 * be ncu's l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st} and
 * l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st} per
 * instruction. The inner loop of sgemm-tiled (lessons/11-roofline) and of
 * its swapped-rows variant must cost what ncu counted per warp and tile. */
#include "tests/emu/emu_fixture.h"

/* One case: ld or st, bits, active lanes and byte offset of lane l (C
 * expressions), and the H200's wavefronts and conflict wavefronts per
 * instruction. */
typedef struct Case { const char *name, *op; int bits; const char *active, *offset; int wavefronts, conflicts; } Case;

static const Case CASES[] = {
    /* name                     op    bits active           offset of lane l (bytes)           H200 */
    {"ld128_consec",             "ld", 128, "1",             "(l * 16)",                        4,  0},
    {"ld128_bcast",              "ld", 128, "1",             "(0 * l)",                         2,  0},
    {"ld128_half_bcast_adj",     "ld", 128, "1",             "((l / 16) * 16)",                 2,  0},
    {"ld128_half_bcast_rows",    "ld", 128, "1",             "((l / 16) * 64)",                 2,  0},
    {"ld128_half_bcast_conf",    "ld", 128, "1",             "((l / 16) * 128)",                2,  0},
    {"ld128_quarter_bcast_adj",  "ld", 128, "1",             "((l / 8) * 16)",                  2,  0},
    {"ld128_quarter_bcast_rows", "ld", 128, "1",             "((l / 8) * 64)",                  2,  0},
    {"ld128_quarter_bcast_conf", "ld", 128, "1",             "((l / 8) * 128)",                 4,  2},
    {"ld128_eighth_bcast",       "ld", 128, "1",             "((l / 4) * 16)",                  2,  0},
    {"ld128_pairs",              "ld", 128, "1",             "((l / 2) * 16)",                  2,  0},
    {"ld128_quarter_repeat",     "ld", 128, "1",             "((l % 8) * 16)",                  4,  0},
    {"ld128_half_repeat",        "ld", 128, "1",             "((l % 16) * 16)",                 4,  0},
    {"ld128_swapped_rows",       "ld", 128, "1",             "((l % 16) * 64)",                 16, 12},
    {"ld128_stride2",            "ld", 128, "1",             "(l * 32)",                        8,  4},
    {"ld128_stride4",            "ld", 128, "1",             "(l * 64)",                        16, 12},
    {"ld128_stride8",            "ld", 128, "1",             "(l * 128)",                       32, 28},
    {"ld128_conf2_in_quarter",   "ld", 128, "1",             "((l % 4) * 16 + (l / 4) * 128)",  8,  4},
    {"ld128_conf2_quarter_pair", "ld", 128, "1",             "((l % 8) * 16 + (l / 8) * 128)",  4,  0},
    {"ld128_active8",            "ld", 128, "(l < 8)",       "(l * 16)",                        1,  0},
    {"ld128_active16",           "ld", 128, "(l < 16)",      "(l * 16)",                        2,  0},
    {"ld128_active_q1q3",        "ld", 128, "((l / 8) % 2)", "(l * 16)",                        2,  0},
    {"ld64_consec",              "ld", 64,  "1",             "(l * 8)",                         2,  0},
    {"ld64_bcast",               "ld", 64,  "1",             "(0 * l)",                         1,  0},
    {"ld64_half_bcast_rows",     "ld", 64,  "1",             "((l / 16) * 64)",                 1,  0},
    {"ld64_quarter_bcast_adj",   "ld", 64,  "1",             "((l / 8) * 8)",                   1,  0},
    {"ld64_quarter_bcast_conf",  "ld", 64,  "1",             "((l / 8) * 128)",                 4,  3},
    {"ld64_quarter_repeat",      "ld", 64,  "1",             "((l % 8) * 8)",                   2,  0},
    {"ld64_half_repeat",         "ld", 64,  "1",             "((l % 16) * 8)",                  2,  0},
    {"ld64_swapped_rows",        "ld", 64,  "1",             "((l % 16) * 64)",                 16, 14},
    {"ld64_stride2",             "ld", 64,  "1",             "(l * 16)",                        4,  2},
    {"ld64_stride4",             "ld", 64,  "1",             "(l * 32)",                        8,  6},
    {"ld64_stride8",             "ld", 64,  "1",             "(l * 64)",                        16, 14},
    {"ld64_conf2_in_half",       "ld", 64,  "1",             "((l % 8) * 8 + ((l / 8) % 2) * 128 + (l / 16) * 64)", 4, 2},
    {"ld64_active16",            "ld", 64,  "(l < 16)",      "(l * 8)",                         1,  0},
    {"ld32_consec",              "ld", 32,  "1",             "(l * 4)",                         1,  0},
    {"ld32_bcast",               "ld", 32,  "1",             "(0 * l)",                         1,  0},
    {"ld32_stride2",             "ld", 32,  "1",             "(l * 8)",                         2,  1},
    {"ld32_stride32",            "ld", 32,  "1",             "(l * 128)",                       32, 31},
    {"ld32_sgemm_b",             "ld", 32,  "1",             "((l % 16) * 4)",                  1,  0},
    {"ld32_sgemm_b_swapped",     "ld", 32,  "1",             "((l / 16) * 4)",                  1,  0},
    {"st128_consec",             "st", 128, "1",             "(l * 16)",                        4,  0},
    {"st128_bcast",              "st", 128, "1",             "(0 * l)",                         4,  0},
    {"st128_half_bcast_rows",    "st", 128, "1",             "((l / 16) * 64)",                 4,  0},
    {"st128_quarter_bcast_adj",  "st", 128, "1",             "((l / 8) * 16)",                  4,  0},
    {"st128_half_repeat",        "st", 128, "1",             "((l % 16) * 16)",                 4,  0},
    {"st128_swapped_rows",       "st", 128, "1",             "((l % 16) * 64)",                 16, 12},
    {"st128_stride2",            "st", 128, "1",             "(l * 32)",                        8,  4},
    {"st128_active8",            "st", 128, "(l < 8)",       "(l * 16)",                        1,  0},
    {"st64_consec",              "st", 64,  "1",             "(l * 8)",                         2,  0},
    {"st64_bcast",               "st", 64,  "1",             "(0 * l)",                         2,  0},
    {"st64_half_repeat",         "st", 64,  "1",             "((l % 16) * 8)",                  2,  0},
    {"st64_stride2",             "st", 64,  "1",             "(l * 16)",                        4,  2},
    {"st32_consec",              "st", 32,  "1",             "(l * 4)",                         1,  0},
    {"st32_stride2",             "st", 32,  "1",             "(l * 8)",                         2,  1},
};

/* ncu per warp and tile on the probes' copies of the inner loop (the lesson's solution: 805 M
 * wavefronts at 4096^3, 96 per warp and tile as well) */
enum { SGEMM_TILED_WAVEFRONTS = 96, SGEMM_SWAPPED_WAVEFRONTS = 320, SGEMM_SWAPPED_CONFLICTS = 192 };

enum { N_CASES = sizeof CASES / sizeof CASES[0] };

/* A kernel per case: `<name>(float *out)`, one access, no other shared
 * access (the loads read memory nothing wrote: checks are off). */
static char *cases_source(void) {
    size_t cap = 4096 + (size_t)N_CASES * 512, used = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    used += (size_t)snprintf(s + used, cap - used,
        "__device__ float ld_128(unsigned a) { float x, y, z, w;\n"
        "    asm volatile(\"ld.shared.v4.f32 {%%0, %%1, %%2, %%3}, [%%4];\"\n"
        "                 : \"=f\"(x), \"=f\"(y), \"=f\"(z), \"=f\"(w) : \"r\"(a));\n"
        "    return x + y + z + w; }\n"
        "__device__ float ld_64(unsigned a) { float x, y;\n"
        "    asm volatile(\"ld.shared.v2.f32 {%%0, %%1}, [%%2];\" : \"=f\"(x), \"=f\"(y) : \"r\"(a));\n"
        "    return x + y; }\n"
        "__device__ float ld_32(unsigned a) { float x;\n"
        "    asm volatile(\"ld.shared.f32 %%0, [%%1];\" : \"=f\"(x) : \"r\"(a));\n"
        "    return x; }\n"
        "__device__ void st_128(unsigned a, float v) {\n"
        "    asm volatile(\"st.shared.v4.f32 [%%0], {%%1, %%1, %%1, %%1};\" :: \"r\"(a), \"f\"(v) : \"memory\"); }\n"
        "__device__ void st_64(unsigned a, float v) {\n"
        "    asm volatile(\"st.shared.v2.f32 [%%0], {%%1, %%1};\" :: \"r\"(a), \"f\"(v) : \"memory\"); }\n"
        "__device__ void st_32(unsigned a, float v) {\n"
        "    asm volatile(\"st.shared.f32 [%%0], %%1;\" :: \"r\"(a), \"f\"(v) : \"memory\"); }\n");
    for (int i = 0; i < N_CASES; i++) {
        const Case *c = &CASES[i];
        bool ld = c->op[0] == 'l';
        const char *access = ld ? (c->bits == 128 ? "v = ld_128(a)" : c->bits == 64 ? "v = ld_64(a)" : "v = ld_32(a)")
                                : (c->bits == 128 ? "st_128(a, v)" : c->bits == 64 ? "st_64(a, v)" : "st_32(a, v)");
        used += (size_t)snprintf(s + used, cap - used,
            "extern \"C\" __global__ void %s(float *out) {\n"
            "    __shared__ __align__(16) float s[1024];\n"
            "    unsigned l = threadIdx.x & 31;\n"
            "    unsigned a = (unsigned)__cvta_generic_to_shared(s) + (unsigned)(%s);\n"
            "    float v = 1.0f;\n"
            "    if (%s) %s;\n"
            "    out[threadIdx.x] = v;\n"
            "}\n", c->name, c->offset, c->active, access);
        assert_true(used < cap);
    }
    return s;
}

static void wavefronts__match_the_h200__for_each_probe_pattern(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(false, true);
    char *src = cases_source();
    fx_load(&f, src, &o);
    DevPtr out = fx_array(&f, "out", 4, 32, NULL);
    int wrong = 0;
    for (int i = 0; i < N_CASES; i++) {
        const Case *c = &CASES[i];
        KernelArg args[] = {kernel_arg_ptr(out)};
        fx_run(&f, c->name, 1, 32, args, 1);
        int wf = (int)fx_total(&f, "bank_conflict_wavefronts");
        int conf = wf - (int)fx_total(&f, "shared_ideal_wavefronts");
        bool same = (int)fx_total(&f, "shared_requests") == 1 && wf == c->wavefronts && conf == c->conflicts;
        if (!same)
            print_message("DIFF %-26s emulator %d wavefronts (%d conflicts); H200 %d (%d)\n", c->name, wf, conf,
                          c->wavefronts, c->conflicts);
        wrong += !same;
    }
    free(src);
    fx_free(&f);
    assert_int_equal(wrong, 0);
}

/* sgemm-tiled's inner loop (the lesson's, between its barriers) with the
 * tiles' rows AROW and columns BCOL; `iters` passes over one tile. */
static const char *sgemm_source(char *buf, size_t size, const char *arow, const char *bcol) {
    snprintf(buf, size,
             "extern \"C\" __global__ void k(float *out, int iters) {\n"
             "    __shared__ float As[64][16];\n"
             "    __shared__ float Bs[16][64];\n"
             "    int tx = threadIdx.x, ty = threadIdx.y;\n"
             "    int t = ty * blockDim.x + tx;\n"
             "    for (int l = t; l < 64 * 16; l += 256) { As[l / 16][l %% 16] = l; Bs[l / 64][l %% 64] = l + 1; }\n"
             "    __syncthreads();\n"
             "    float acc[4][4] = {};\n"
             "    for (int it = 0; it < iters; it++) {\n"
             "#pragma unroll\n"
             "        for (int k = 0; k < 16; k++) {\n"
             "            float a[4], b[4];\n"
             "            for (int i = 0; i < 4; i++) a[i] = As[%s + 16 * i][k];\n"     /* line 13 */
             "            for (int j = 0; j < 4; j++) b[j] = Bs[k][%s + 16 * j];\n"     /* line 14 */
             "            for (int i = 0; i < 4; i++)\n"
             "                for (int j = 0; j < 4; j++) acc[i][j] += a[i] * b[j];\n"
             "        }\n"
             "        __syncthreads();\n"
             "    }\n"
             "    float sum = 0.0f;\n"
             "    for (int i = 0; i < 4; i++)\n"
             "        for (int j = 0; j < 4; j++) sum += acc[i][j];\n"
             "    out[t] = sum;\n"
             "}\n", arow, bcol);
    return buf;
}

/* Wavefronts and ideal per warp and tile: a launch of 2 passes less one of 1 (the fill cancels). */
static void sgemm_counts(EmuFx *f, double *wavefronts, double *ideal) {
    DevPtr out = fx_array(f, "out", 4, 256, NULL);
    double w[2], id[2];
    for (int n = 1; n <= 2; n++) {
        KernelArg args[] = {kernel_arg_ptr(out), kernel_arg_i32(n)};
        Diag *d = fx_launch(f, "k", (Dim3){1, 1, 1}, (Dim3){16, 16, 1}, 0, args, 2);
        if (d) fail_msg("launch: %s", diag_format_all(d, false));
        w[n - 1] = fx_total(f, "bank_conflict_wavefronts");
        id[n - 1] = fx_total(f, "shared_ideal_wavefronts");
    }
    *wavefronts = (w[1] - w[0]) / 8;
    *ideal = (id[1] - id[0]) / 8;
    float h[256];
    fx_get(f, h, out, sizeof h);
    assert_true(h[0] > 0.0f);
}

static void wavefronts__sgemm_tiled_costs_what_ncu_counted__per_warp_and_tile(void **state) {
    (void)state;
    EmuFx f;
    char src[4096];
    EmuOptions o = fx_opts(false, true);
    fx_load(&f, sgemm_source(src, sizeof src, "ty", "tx"), &o);
    double wf, ideal;
    sgemm_counts(&f, &wf, &ideal);
    /* 16 LDS.128 of As (two rows, each a half-warp's broadcast) and 64 LDS of Bs */
    assert_true(wf == SGEMM_TILED_WAVEFRONTS);
    assert_true(wf == ideal);
    assert_null(fx_finding(&f, "bank-conflict"));
    fx_free(&f);
}

static void wavefronts__sgemm_swapped_rows_costs_what_ncu_counted__per_warp_and_tile(void **state) {
    (void)state;
    EmuFx f;
    char src[4096];
    EmuOptions o = fx_opts(false, true);
    fx_load(&f, sgemm_source(src, sizeof src, "tx", "ty"), &o);
    double wf, ideal;
    sgemm_counts(&f, &wf, &ideal);
    /* the LDS.128 of As: 16 rows 64 bytes apart, all in banks k..k+3 and k+16..k+19 */
    assert_true(wf == SGEMM_SWAPPED_WAVEFRONTS);
    assert_true(wf - ideal == SGEMM_SWAPPED_CONFLICTS);
    assert_true(fx_line(&f, 13, "bank_conflict_degree") > 1.0);
    assert_non_null(fx_finding(&f, "bank-conflict"));
    fx_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wavefronts__match_the_h200__for_each_probe_pattern),
        cmocka_unit_test(wavefronts__sgemm_tiled_costs_what_ncu_counted__per_warp_and_tile),
        cmocka_unit_test(wavefronts__sgemm_swapped_rows_costs_what_ncu_counted__per_warp_and_tile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
