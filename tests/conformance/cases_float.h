/* tests/conformance/cases_float.h: setups and CPU references for float_ops.cu,
 * rounding.cu, fast_math.cu, approx.cu and half_ops.cu.
 *
 * IEEE operations are bit-exact: the references use the host's correctly
 * rounded SSE arithmetic, fmaf/fma and sqrt, under <fenv.h> rounding modes
 * for the directed (.rz/.rp/.rm) forms. Flush-to-zero (.ftz) is modelled by
 * flushing subnormal inputs and results to a zero of the same sign. Half
 * precision is decoded exactly to double, computed there and rounded once.
 *
 * Approximate functions are compared with the double-precision libm value
 * within the maximum errors the CUDA Programming Guide states for the
 * intrinsics (appendix "Intrinsic Functions") and the PTX ISA for the
 * .approx instructions, with a little margin:
 *   __sinf, __cosf (|x| <= pi)      abs 2^-20 (guide: 2^-21.41 / 2^-21.19)
 *   __expf(y)                       2 + floor(|1.173 y|) ulp; |y| <= 10: 16 ulp
 *   __exp10f(y)                     2 + floor(|2.95 y|) ulp; |y| <= 2.5: 10 ulp
 *   __logf, __log2f on [0.5, 3.7]   abs 2^-21 + 3 ulp
 *   rsqrtf, __fdividef, ex2.approx, sqrt.approx   2 ulp
 *   __tanf (|x| <= pi/4)            abs 2^-19 + 4 ulp (it is __sinf / __cosf)
 *   tanhf under fast math (tanh.approx.f32)        relative 2^-10 (ISA: ~2^-11) */
#ifndef CUDOJO_TESTS_CONFORMANCE_CASES_FLOAT_H
#define CUDOJO_TESTS_CONFORMANCE_CASES_FLOAT_H

#include "tests/conformance/harness.h"

static const int ROUND_MODES[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};

/* Segments [lo, hi) of buffer bi whose ±0 results may differ in sign (min/max of
 * +0 and -0 is unspecified): copy the device's zero into the reference there. */
static void allow_zero_sign(Run *r, int bi, void *want, int lo, int hi) {
    Buf *b = &r->bufs[bi];
    for (size_t i = (size_t)lo * r->n; i < (size_t)hi * r->n && i < b->n; i++) {
        if (b->type == ET_F32) {
            float g = ((float *)b->host)[i], *w = &((float *)want)[i];
            if (g == 0.0f && *w == 0.0f) *w = g;
        } else if (b->type == ET_F64) {
            double g = ((double *)b->host)[i], *w = &((double *)want)[i];
            if (g == 0.0 && *w == 0.0) *w = g;
        }
    }
}

static void setup_f32_three(Run *r, int nout, uint64_t seed) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n), *b = IN(r, "b", float, ET_F32, n);
    float *c = IN(r, "c", float, ET_F32, n);
    fill_pairs_f32(a, b, n, seed);
    fill_third_f32(c, n, seed + 1);
    OUT(r, "out", float, ET_F32, (size_t)nout * n);
    arg_i32(r, n);
}

static void setup_f32_arith(Run *r) { setup_f32_three(r, 8, 41); }

static void check_f32_arith(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    float *w = xcalloc(8 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        float x = a[i], y = b[i], z = c[i];
        w[0 * n + i] = ref_f32(FO_ADD, FE_TONEAREST, x, y, 0);
        w[1 * n + i] = ref_f32(FO_SUB, FE_TONEAREST, x, y, 0);
        w[2 * n + i] = ref_f32(FO_MUL, FE_TONEAREST, x, y, 0);
        w[3 * n + i] = ref_f32(FO_FMA, FE_TONEAREST, x, y, z);
        w[4 * n + i] = ref_f32(FO_DIV, FE_TONEAREST, x, y, 0);
        w[5 * n + i] = ref_f32(FO_SQRT, FE_TONEAREST, x, 0, 0);
        w[6 * n + i] = ref_f32(FO_RCP, FE_TONEAREST, 0, y, 0);
        w[7 * n + i] = -x;
    }
    expect_buf(r, 3, w);
    free(w);
}

static void setup_f32_misc(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n), *b = IN(r, "b", float, ET_F32, n);
    fill_pairs_f32(a, b, n, 43);
    OUT(r, "out", float, ET_F32, 6 * (size_t)n);
    LAST_BUF(r)->zero_sign_free = true;
    arg_i32(r, n);
}

static void check_f32_misc(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host, *b = r->bufs[1].host;
    float *w = xcalloc(6 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        float x = a[i], y = b[i];
        w[0 * n + i] = fminf(x, y);
        w[1 * n + i] = fmaxf(x, y);
        w[2 * n + i] = fabsf(x);
        w[3 * n + i] = copysignf(x, y);
        w[4 * n + i] = fmaf(x, 0.5f, 0.25f);
        w[5 * n + i] = ref_f32(FO_ADD, FE_TONEAREST, ref_f32(FO_MUL, FE_TONEAREST, x, y, 0), 1.0f, 0);
    }
    r->bufs[2].zero_sign_free = false;   /* strict here; only min/max may differ in the sign of 0 */
    allow_zero_sign(r, 2, w, 0, 2);
    expect_buf(r, 2, w);
    r->bufs[2].zero_sign_free = true;
    free(w);
}

static void setup_f64_arith(Run *r) {
    int n = r->n = N_ELEM;
    double *a = IN(r, "a", double, ET_F64, n), *b = IN(r, "b", double, ET_F64, n);
    double *c = IN(r, "c", double, ET_F64, n);
    fill_pairs_f64(a, b, n, 45);
    fill_third_f64(c, n, 46);
    OUT(r, "out", double, ET_F64, 11 * (size_t)n);
    LAST_BUF(r)->zero_sign_free = true;
    arg_i32(r, n);
}

static void check_f64_arith(Run *r) {
    int n = r->n;
    const double *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    double *w = xcalloc(11 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        double x = a[i], y = b[i], z = c[i];
        w[0 * n + i] = ref_f64(FO_ADD, FE_TONEAREST, x, y, 0);
        w[1 * n + i] = ref_f64(FO_SUB, FE_TONEAREST, x, y, 0);
        w[2 * n + i] = ref_f64(FO_MUL, FE_TONEAREST, x, y, 0);
        w[3 * n + i] = ref_f64(FO_FMA, FE_TONEAREST, x, y, z);
        w[4 * n + i] = ref_f64(FO_DIV, FE_TONEAREST, x, y, 0);
        w[5 * n + i] = ref_f64(FO_SQRT, FE_TONEAREST, x, 0, 0);
        w[6 * n + i] = ref_f64(FO_RCP, FE_TONEAREST, 0, y, 0);
        w[7 * n + i] = -x;
        w[8 * n + i] = fmin(x, y);
        w[9 * n + i] = fmax(x, y);
        w[10 * n + i] = fabs(x);
    }
    r->bufs[3].zero_sign_free = false;
    allow_zero_sign(r, 3, w, 8, 10);
    expect_buf(r, 3, w);
    r->bufs[3].zero_sign_free = true;
    free(w);
}

/* ---- rounding.cu ------------------------------------------------------ */

static void setup_round_f32(Run *r) { setup_f32_three(r, 28, 51); }

static void check_round_f32(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    float *w = xcalloc(28 * (size_t)n, 4);
    static const FOp ops[7] = {FO_ADD, FO_MUL, FO_DIV, FO_FMA, FO_SQRT, FO_SUB, FO_RCP};
    for (int i = 0; i < n; i++)
        for (int o = 0; o < 7; o++)
            for (int m = 0; m < 4; m++)
                w[(size_t)(o * 4 + m) * n + i] = ref_f32(ops[o], ROUND_MODES[m], a[i], b[i], c[i]);
    expect_buf(r, 3, w);
    free(w);
}

static void setup_round_f64(Run *r) {
    int n = r->n = N_ELEM;
    double *a = IN(r, "a", double, ET_F64, n), *b = IN(r, "b", double, ET_F64, n);
    double *c = IN(r, "c", double, ET_F64, n);
    fill_pairs_f64(a, b, n, 53);
    fill_third_f64(c, n, 54);
    OUT(r, "out", double, ET_F64, 20 * (size_t)n);
    arg_i32(r, n);
}

static void check_round_f64(Run *r) {
    int n = r->n;
    const double *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    double *w = xcalloc(20 * (size_t)n, 8);
    static const FOp ops[5] = {FO_ADD, FO_MUL, FO_DIV, FO_FMA, FO_SQRT};
    for (int i = 0; i < n; i++)
        for (int o = 0; o < 5; o++)
            for (int m = 0; m < 4; m++)
                w[(size_t)(o * 4 + m) * n + i] = ref_f64(ops[o], ROUND_MODES[m], a[i], b[i], c[i]);
    expect_buf(r, 3, w);
    free(w);
}

/* Values around integers and halves, beyond every integer range, NaN and inf. */
static void fill_conv_f32(float *a, int n, uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        switch (i % 6) {
        case 0: a[i] = (float)((int)(rng_next(&s) % 41) - 20) * 0.5f; break;              /* ties */
        case 1: a[i] = u2f(EDGE_F32[(i / 6) % N_EDGE_F32]); break;
        case 2: a[i] = rand_f32_in(&s, -3e9f, 5e9f); break;
        case 3: a[i] = rand_f32_wide(&s); break;
        case 4: a[i] = ldexp((float)(rng_next(&s) % 3 + 1), 29 + (int)(rng_next(&s) % 36)) * ((i & 8) ? -1 : 1); break;
        default: a[i] = rand_f32_in(&s, -10.0f, 10.0f); break;
        }
    }
}

static void fill_conv_f64(double *d, int n, uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        switch (i % 6) {
        case 0: d[i] = (double)((int)(rng_next(&s) % 41) - 20) * 0.5; break;
        case 1: d[i] = u2d(EDGE_F64[(i / 6) % N_EDGE_F64]); break;
        case 2: d[i] = ((double)(rng_next(&s) >> 11) / 9007199254740992.0) * 8e9 - 3e9; break;
        case 3: d[i] = rand_f64_wide(&s); break;
        case 4: d[i] = ldexp((double)(rng_next(&s) % 5 + 1), 28 + (int)(rng_next(&s) % 40)) * ((i & 8) ? -1 : 1); break;
        default: d[i] = (double)rand_f32_in(&s, -10.0f, 10.0f) + 1e-10; break;
        }
    }
}

static void setup_round_f2i(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n);
    double *d = IN(r, "d", double, ET_F64, n);
    fill_conv_f32(a, n, 55);
    fill_conv_f64(d, n, 56);
    OUT(r, "out", int32_t, ET_I32, 13 * (size_t)n);
    OUT(r, "out64", int64_t, ET_I64, 7 * (size_t)n);
    arg_i32(r, n);
}

static void check_round_f2i(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    const double *d = r->bufs[1].host;
    int32_t *w = xcalloc(13 * (size_t)n, 4);
    int64_t *q = xcalloc(7 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        double x = a[i], y = d[i];
        for (int m = 0; m < 4; m++) {
            w[(size_t)m * n + i] = (int32_t)ref_f2s_nan(x, ROUND_MODES[m], INT32_MIN, INT32_MAX, nan_to_int(false, 32));
            w[(size_t)(4 + m) * n + i] =
                (int32_t)(uint32_t)ref_f2u_nan(x, ROUND_MODES[m], UINT32_MAX, (uint64_t)nan_to_int(false, 32));
            w[(size_t)(8 + m) * n + i] = (int32_t)ref_f2s_nan(y, ROUND_MODES[m], INT32_MIN, INT32_MAX, nan_to_int(true, 32));
            q[(size_t)m * n + i] = ref_f2s_nan(x, ROUND_MODES[m], INT64_MIN, INT64_MAX, nan_to_int(false, 64));
        }
        w[(size_t)12 * n + i] =
            (int32_t)(uint32_t)ref_f2u_nan(y, FE_TOWARDZERO, UINT32_MAX, (uint32_t)nan_to_int(true, 32));
        q[(size_t)4 * n + i] = ref_f2s_nan(y, FE_TONEAREST, INT64_MIN, INT64_MAX, nan_to_int(true, 64));
        q[(size_t)5 * n + i] = ref_f2s_nan(y, FE_TOWARDZERO, INT64_MIN, INT64_MAX, nan_to_int(true, 64));
        q[(size_t)6 * n + i] = (int64_t)ref_f2u_nan(y, FE_TOWARDZERO, UINT64_MAX, (uint64_t)nan_to_int(true, 64));
    }
    expect_buf(r, 2, w);
    expect_buf(r, 3, q);
    free(w);
    free(q);
}

static void setup_round_i2f(Run *r) {
    int n = r->n = N_ELEM;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    int64_t *b = IN(r, "b", int64_t, ET_I64, n);
    double *d = IN(r, "d", double, ET_F64, n);
    uint64_t s = 57;
    for (int i = 0; i < n; i++) {
        a[i] = i < N_EDGE_I32 ? EDGE_I32[i] : (int32_t)(rng_next(&s) >> (rng_next(&s) % 33));
        b[i] = i < N_EDGE_I64 ? EDGE_I64[i] : (int64_t)(rng_next(&s) >> (rng_next(&s) % 64));
    }
    fill_conv_f64(d, n, 58);
    for (int i = 0; i < n; i += 7) d[i] = (double)rand_f32_wide(&s) * (1.0 + ldexp(1.0, -30));   /* between floats */
    OUT(r, "out", float, ET_F32, 17 * (size_t)n);
    OUT(r, "outd", double, ET_F64, 6 * (size_t)n);
    arg_i32(r, n);
}

static void check_round_i2f(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    const int64_t *b = r->bufs[1].host;
    const double *d = r->bufs[2].host;
    float *w = xcalloc(17 * (size_t)n, 4);
    double *q = xcalloc(6 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        for (int m = 0; m < 4; m++) {
            w[(size_t)m * n + i] = ref_i2f(a[i], ROUND_MODES[m]);
            w[(size_t)(4 + m) * n + i] = ref_u2f((uint32_t)a[i], ROUND_MODES[m]);
            w[(size_t)(8 + m) * n + i] = ref_i2f(b[i], ROUND_MODES[m]);
            w[(size_t)(13 + m) * n + i] = ref_d2f(d[i], ROUND_MODES[m]);
            q[(size_t)m * n + i] = ref_i2d(b[i], ROUND_MODES[m]);
        }
        w[(size_t)12 * n + i] = ref_u2f((uint64_t)b[i], FE_TONEAREST);
        q[(size_t)4 * n + i] = (double)a[i];
        q[(size_t)5 * n + i] = ref_u2d((uint64_t)b[i], FE_DOWNWARD);
    }
    expect_buf(r, 3, w);
    expect_buf(r, 4, q);
    free(w);
    free(q);
}

static void setup_round_frnd(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n);
    double *d = IN(r, "d", double, ET_F64, n);
    fill_conv_f32(a, n, 59);
    fill_conv_f64(d, n, 60);
    OUT(r, "out", float, ET_F32, 4 * (size_t)n);
    OUT(r, "outd", double, ET_F64, 4 * (size_t)n);
    arg_i32(r, n);
}

static void check_round_frnd(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    const double *d = r->bufs[1].host;
    float *w = xcalloc(4 * (size_t)n, 4);
    double *q = xcalloc(4 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        w[0 * n + i] = rintf(a[i]);
        w[1 * n + i] = truncf(a[i]);
        w[2 * n + i] = ceilf(a[i]);
        w[3 * n + i] = floorf(a[i]);
        q[0 * n + i] = rint(d[i]);
        q[1 * n + i] = trunc(d[i]);
        q[2 * n + i] = ceil(d[i]);
        q[3 * n + i] = floor(d[i]);
    }
    expect_buf(r, 2, w);
    expect_buf(r, 3, q);
    free(w);
    free(q);
}

/* ---- fast_math.cu / approx.cu ----------------------------------------- */

/* Mostly tiny values, so sums, products and fmas land in the subnormal range. */
static void setup_fm_ftz(Run *r) {
    setup_f32_three(r, 6, 61);
    float *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    uint64_t s = 62;
    for (int i = N_EDGE_F32 * N_EDGE_F32; i < r->n; i++) {
        a[i] = ldexp(rand_f32_in(&s, -1.0f, 1.0f), -110 - (int)(rng_next(&s) % 30));
        b[i] = (i & 1) ? ldexp(rand_f32_in(&s, -1.0f, 1.0f), -120 - (int)(rng_next(&s) % 10))
                       : rand_f32_in(&s, -2e-19f, 2e-19f);
        c[i] = ldexp(rand_f32_in(&s, -1.0f, 1.0f), -126 - (int)(rng_next(&s) % 4));
    }
    LAST_BUF(r)->zero_sign_free = true;
}

static void check_fm_ftz(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    float *w = xcalloc(6 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        float x = ftz(a[i]), y = ftz(b[i]), z = ftz(c[i]);
        double dx = x, dy = y, dz = z;   /* sums and products of two floats are exact in double */
        w[0 * n + i] = ftz_result(dx + dy, ref_f32(FO_ADD, FE_TONEAREST, x, y, 0));
        w[1 * n + i] = ftz_result(dx - dy, ref_f32(FO_SUB, FE_TONEAREST, x, y, 0));
        w[2 * n + i] = ftz_result(dx * dy, ref_f32(FO_MUL, FE_TONEAREST, x, y, 0));
        w[3 * n + i] = ftz_result(fma(dx, dy, dz), ref_f32(FO_FMA, FE_TONEAREST, x, y, z));
        w[4 * n + i] = fminf(x, y);
        w[5 * n + i] = fmaxf(x, y);
    }
    r->bufs[3].zero_sign_free = false;
    allow_zero_sign(r, 3, w, 4, 6);
    expect_buf(r, 3, w);
    r->bufs[3].zero_sign_free = true;
    free(w);
}

#define TWO_M20 9.5367431640625e-07 /* 2^-20 */
#define TWO_M21 4.76837158203125e-07
#define TWO_M19 1.9073486328125e-06

static const Tol FM_APPROX_TOL[10] = {
    {0, TWO_M20, 0}, {0, TWO_M20, 0}, {16, 0, 0}, {3, TWO_M21, 0}, {2, 0, 0},
    {0, 1e-7, 0.0009765625}, {2, 0, 0}, {2, 0, 0}, {2, 0, 0}, {3, TWO_M21, 0},
};

static const Tol APPROX_TOL[9] = {
    {0, TWO_M20, 0}, {0, TWO_M20, 0}, {16, 0, 0}, {3, TWO_M21, 0}, {2, 0, 0},
    {2, 0, 0}, {10, 0, 0}, {3, TWO_M21, 0}, {4, TWO_M19, 0},
};

static void setup_approx_common(Run *r, int nout, const Tol *tol, uint64_t seed) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n), *b = IN(r, "b", float, ET_F32, n);
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        a[i] = rand_f32_in(&s, -3.14159f, 3.14159f);
        b[i] = rand_f32_in(&s, -10.0f, 10.0f);
    }
    a[0] = 0.0f;
    b[0] = 0.0f;
    OUT(r, "out", float, ET_F32, (size_t)nout * n);
    /* GPU vs emulator: both may be off by the bound, in opposite directions. */
    Tol twice[10];
    for (int k = 0; k < nout; k++) {
        twice[k] = tol[k];
        twice[k].ulp *= 2;
        twice[k].abs *= 2;
        twice[k].rel *= 2;
    }
    buf_set_tol(LAST_BUF(r), (size_t)n, twice, nout);
    arg_i32(r, n);
}

static void setup_fm_approx(Run *r) { setup_approx_common(r, 10, FM_APPROX_TOL, 63); }

static void check_fm_approx(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host, *b = r->bufs[1].host;
    float *w = xcalloc(10 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        double x = a[i], y = b[i];
        w[0 * n + i] = (float)sin(x);
        w[1 * n + i] = (float)cos(x);
        w[2 * n + i] = (float)exp(y);
        w[3 * n + i] = (float)log(fabs(x) + 0.5);
        w[4 * n + i] = (float)(1.0 / sqrt((double)(fabsf(a[i]) + 0.25f)));
        w[5 * n + i] = (float)tanh(y);
        w[6 * n + i] = (float)(x / (double)(fabsf(b[i]) + 1.0f));
        w[7 * n + i] = (float)sqrt(fabs(x));
        w[8 * n + i] = (float)exp2(y);
        w[9 * n + i] = (float)log2((double)(fabsf(a[i]) + 0.5f));
    }
    expect_buf_ex(r, 2, w, (size_t)n, FM_APPROX_TOL);
    free(w);
}

static void setup_approx_intrinsics(Run *r) { setup_approx_common(r, 9, APPROX_TOL, 64); }

static void check_approx_intrinsics(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host, *b = r->bufs[1].host;
    float *w = xcalloc(9 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        double x = a[i], y = b[i];
        w[0 * n + i] = (float)sin(x);
        w[1 * n + i] = (float)cos(x);
        w[2 * n + i] = (float)exp(y);
        w[3 * n + i] = (float)log((double)(fabsf(a[i]) + 0.5f));
        w[4 * n + i] = (float)(1.0 / sqrt((double)(fabsf(a[i]) + 0.25f)));
        w[5 * n + i] = (float)(x / (double)(fabsf(b[i]) + 1.0f));
        w[6 * n + i] = (float)pow(10.0, (double)(b[i] * 0.25f));
        w[7 * n + i] = (float)log2((double)(fabsf(a[i]) + 0.5f));
        w[8 * n + i] = (float)tan((double)(a[i] * 0.25f));
    }
    expect_buf_ex(r, 2, w, (size_t)n, APPROX_TOL);
    free(w);
}

/* Divisors in (2^126, 2^128) of both signs, the bounds' neighbours among
 * them; dividends of every kind (edge values, infinities, NaN, subnormals). */
static void setup_approx_div_range(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n), *b = IN(r, "b", float, ET_F32, n);
    static const uint32_t near[] = {0x7e800001u, 0x7f7fffffu, 0x7f000000u, 0x7effffffu};
    uint64_t s = 65;
    for (int i = 0; i < n; i++) {
        a[i] = i < N_EDGE_F32 ? u2f(EDGE_F32[i]) : (i & 1) ? rand_f32_in(&s, -1e30f, 1e30f)
             : u2f((uint32_t)rng_next(&s));
        uint32_t m = i < 4 ? near[i] : 0x7e800001u + (uint32_t)(rng_next(&s) % (0x7f7fffffu - 0x7e800001u + 1));
        b[i] = u2f(m | ((i >> 1 & 1) ? 0x80000000u : 0));
    }
    OUT(r, "out", float, ET_F32, 2 * (size_t)n);
    arg_i32(r, n);
}

static void check_approx_div_range(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host, *b = r->bufs[1].host;
    float *w = xcalloc(2 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        float zero = copysignf(0.0f, b[i]);    /* 1/b flushed, with b's sign */
        w[i] = a[i] * zero;                    /* the sign of a/b; NaN from inf or NaN */
        w[n + i] = ftz(a[i]) * zero;
    }
    expect_buf(r, 2, w);
    free(w);
}

/* ---- half_ops.cu --------------------------------------------------- */

static const uint16_t EDGE_F16[] = {
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff,
    0x7c00, 0xfc00, 0x7e00, 0x3555, 0x4248, 0xc100, 0x3bff, 0x2e66,
};
#define N_EDGE_F16 ((int)(sizeof EDGE_F16 / sizeof EDGE_F16[0]))

/* Random halves with exponents in [-4, 4), where a*b+c is exact in double. */
static uint16_t rand_f16_mid(uint64_t *s) {
    uint64_t r = rng_next(s);
    uint16_t e = (uint16_t)(11 + r % 8);           /* biased exponent 11..18 */
    return (uint16_t)((r >> 8 & 1) << 15 | e << 10 | (r >> 16 & 0x3ff));
}

static void fill_f16(uint16_t *a, uint16_t *b, uint16_t *c, int n, uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        if (i < N_EDGE_F16 * N_EDGE_F16) {
            a[i] = EDGE_F16[i / N_EDGE_F16];
            b[i] = EDGE_F16[i % N_EDGE_F16];
        } else {
            a[i] = rand_f16_mid(&s);
            b[i] = rand_f16_mid(&s);
        }
        c[i] = (i % 5 == 0) ? EDGE_F16[rng_next(&s) % N_EDGE_F16] : rand_f16_mid(&s);
    }
}

static uint16_t h_op(char op, uint16_t x, uint16_t y, uint16_t z) {
    double a = f16_to_double(x), b = f16_to_double(y), c = f16_to_double(z);
    switch (op) {
    case '+': return f16_from_double(a + b, FE_TONEAREST);
    case '-': return f16_from_double(a - b, FE_TONEAREST);
    case '*': return f16_from_double(a * b, FE_TONEAREST);
    default: return f16_from_double(fma(a, b, c), FE_TONEAREST);
    }
}

static void setup_half_arith(Run *r) {
    int n = r->n = N_ELEM;
    uint16_t *a = IN(r, "a", uint16_t, ET_F16, n), *b = IN(r, "b", uint16_t, ET_F16, n);
    uint16_t *c = IN(r, "c", uint16_t, ET_F16, n);
    fill_f16(a, b, c, n, 71);
    OUT(r, "out", uint16_t, ET_F16, 5 * (size_t)n);
    arg_i32(r, n);
}

static void check_half_arith(Run *r) {
    int n = r->n;
    const uint16_t *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    uint16_t *w = xcalloc(5 * (size_t)n, 2);
    for (int i = 0; i < n; i++) {
        w[0 * n + i] = h_op('+', a[i], b[i], 0);
        w[1 * n + i] = h_op('-', a[i], b[i], 0);
        w[2 * n + i] = h_op('*', a[i], b[i], 0);
        w[3 * n + i] = h_op('f', a[i], b[i], c[i]);
        w[4 * n + i] = a[i] ^ 0x8000;
    }
    expect_buf(r, 3, w);
    free(w);
}

static void setup_half_compare(Run *r) {
    int n = r->n = N_ELEM;
    uint16_t *a = IN(r, "a", uint16_t, ET_F16, n), *b = IN(r, "b", uint16_t, ET_F16, n);
    uint16_t *c = xcalloc((size_t)n, 2);
    fill_f16(a, b, c, n, 74);
    free(c);
    for (int i = N_EDGE_F16 * N_EDGE_F16; i < n; i += 4) b[i] = a[i];   /* equal pairs */
    OUT(r, "sel", uint16_t, ET_F16, n);
    OUT(r, "out", uint32_t, ET_U32, n);
    arg_i32(r, n);
}

static void check_half_compare(Run *r) {
    int n = r->n;
    const uint16_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    uint16_t *ws = xcalloc((size_t)n, 2);
    uint32_t *w = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        double x = f16_to_double(a[i]), y = f16_to_double(b[i]);
        bool un = isnan(x) || isnan(y);
        ws[i] = x < y ? a[i] : b[i];
        bool bits[8] = {x < y, x <= y, x > y, x >= y, x == y, !un && x != y, un || x < y, (bool)isnan(x)};
        for (int k = 0; k < 8; k++) w[i] |= (uint32_t)bits[k] << k;
    }
    expect_buf(r, 2, ws);
    expect_buf(r, 3, w);
    free(ws);
    free(w);
}

/* half2 buffers are declared as halves: element 2i is .x (low), 2i+1 is .y. */
static void setup_half2_arith(Run *r) {
    int n = r->n = N_ELEM / 2;
    uint16_t *a = IN(r, "a", uint16_t, ET_F16, 2 * (size_t)n), *b = IN(r, "b", uint16_t, ET_F16, 2 * (size_t)n);
    uint16_t *c = IN(r, "c", uint16_t, ET_F16, 2 * (size_t)n);
    fill_f16(a, b, c, 2 * n, 72);
    OUT(r, "out", uint16_t, ET_F16, 6 * (size_t)n);
    arg_i32(r, n);
}

static void check_half2_arith(Run *r) {
    int n = r->n;
    const uint16_t *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    uint16_t *w = xcalloc(6 * (size_t)n, 2);
    for (int i = 0; i < n; i++) {
        for (int l = 0; l < 2; l++) {
            int k = 2 * i + l;
            w[2 * (0 * n + i) + l] = h_op('+', a[k], b[k], 0);
            w[2 * (1 * n + i) + l] = h_op('*', a[k], b[k], 0);
            w[2 * (2 * n + i) + l] = h_op('f', a[k], b[k], c[k]);
        }
    }
    expect_buf_ex(r, 3, w, 2 * (size_t)n, NULL);
    free(w);
}

static void setup_half2_lows(Run *r) {
    int n = r->n = N_ELEM / 2;
    uint16_t *a = IN(r, "a", uint16_t, ET_F16, 2 * (size_t)n), *b = IN(r, "b", uint16_t, ET_F16, 2 * (size_t)n);
    uint16_t *c = xcalloc(2 * (size_t)n, 2);
    fill_f16(a, b, c, 2 * n, 75);
    free(c);
    OUT(r, "out", uint16_t, ET_F16, 6 * (size_t)n);
    arg_i32(r, n);
}

static void check_half2_lows(Run *r) {
    int n = r->n;
    const uint16_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    uint16_t *w = xcalloc(6 * (size_t)n, 2);
    for (int i = 0; i < n; i++) {
        w[2 * (0 * n + i) + 0] = a[2 * i];
        w[2 * (0 * n + i) + 1] = b[2 * i];
        w[2 * (1 * n + i) + 0] = a[2 * i + 1];
        w[2 * (1 * n + i) + 1] = b[2 * i + 1];
        w[2 * (2 * n + i) + 0] = a[2 * i + 1];
        w[2 * (2 * n + i) + 1] = a[2 * i];
    }
    expect_buf_ex(r, 2, w, 2 * (size_t)n, NULL);
    free(w);
}

static void setup_half_cvt(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n);
    uint16_t *h = IN(r, "h", uint16_t, ET_F16, n);
    uint64_t s = 73;
    for (int i = 0; i < n; i++) {
        switch (i % 5) {
        case 0: a[i] = u2f(EDGE_F32[(i / 5) % N_EDGE_F32]); break;
        case 1: a[i] = (float)f16_to_double(rand_f16_mid(&s)) * (1.0f + ldexpf(1.0f, -12)); break;   /* between halves */
        case 2: a[i] = rand_f32_in(&s, -70000.0f, 70000.0f); break;
        case 3: a[i] = ldexpf(rand_f32_in(&s, -1.0f, 1.0f), -14 - (int)(rng_next(&s) % 14)); break;  /* subnormal halves */
        default: a[i] = rand_f32_in(&s, -4.0f, 4.0f); break;
        }
        h[i] = i < N_EDGE_F16 ? EDGE_F16[i] : (uint16_t)rng_next(&s);
    }
    OUT(r, "out", uint16_t, ET_F16, 5 * (size_t)n);
    OUT(r, "outf", float, ET_F32, n);
    OUT(r, "outi", int32_t, ET_I32, n);
    arg_i32(r, n);
}

static void check_half_cvt(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    const uint16_t *h = r->bufs[1].host;
    uint16_t *w = xcalloc(5 * (size_t)n, 2);
    float *wf = xcalloc((size_t)n, 4);
    int32_t *wi = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        for (int m = 0; m < 4; m++) w[(size_t)m * n + i] = f16_from_double(a[i], ROUND_MODES[m]);
        int32_t k = (int32_t)ref_f2s((double)(a[i] * 16.0f), FE_TOWARDZERO, INT32_MIN, INT32_MAX);
        w[(size_t)4 * n + i] = f16_from_double((double)k, FE_TONEAREST);
        wf[i] = (float)f16_to_double(h[i]);
        wi[i] = (int32_t)ref_f2s(f16_to_double(h[i]), FE_TOWARDZERO, INT32_MIN, INT32_MAX);
    }
    expect_buf(r, 2, w);
    expect_buf(r, 3, wf);
    expect_buf(r, 4, wi);
    free(w);
    free(wf);
    free(wi);
}

#endif
