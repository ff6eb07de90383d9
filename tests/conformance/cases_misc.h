/* tests/conformance/cases_misc.h: setups and CPU references for pred_cvt.cu
 * (setp, selp, predicate logic, cvt) and memory.cu (every state space and
 * width). Where the kernel reads __constant__/__device__ initialisers, the
 * reference repeats those initialisers (they are the kernel's data, not
 * expected results). Included by test_conformance.c. */
#ifndef CUDOJO_TESTS_CONFORMANCE_CASES_MISC_H
#define CUDOJO_TESTS_CONFORMANCE_CASES_MISC_H

#include "tests/conformance/harness.h"

static void setup_setp_f32(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n), *b = IN(r, "b", float, ET_F32, n);
    fill_pairs_f32(a, b, n, 81);
    for (int i = N_EDGE_F32 * N_EDGE_F32; i < n; i += 3) b[i] = a[i];   /* equal pairs */
    OUT(r, "out", uint32_t, ET_U32, n);
    arg_i32(r, n);
}

static void check_setp_f32(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host, *b = r->bufs[1].host;
    uint32_t *w = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        float x = a[i], y = b[i];
        double dx = x, dy = y;
        bool bits[13] = {
            x < y, x <= y, x > y, x >= y, x == y, x != y, !(x < y), !(x >= y), x != x, !(x == y),
            dx < dy, !(dx <= dy), dx == dy,
        };
        for (int k = 0; k < 13; k++) w[i] |= (uint32_t)bits[k] << k;
    }
    expect_buf(r, 2, w);
    free(w);
}

static void setup_setp_f32_asm(Run *r) { setup_setp_f32(r); }

static void check_setp_f32_asm(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host, *b = r->bufs[1].host;
    uint32_t *w = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        float x = a[i], y = b[i];
        bool un = isnan(x) || isnan(y);
        bool bits[6] = {un || x < y, un || x == y, !un, un, un || x != y, un || x > y};   /* ltu equ num nan neu gtu */
        for (int k = 0; k < 6; k++) w[i] |= (uint32_t)bits[k] << k;
    }
    expect_buf(r, 2, w);
    free(w);
}

static void setup_setp_int(Run *r) {
    int n = r->n = N_ELEM;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n), *b = IN(r, "b", int32_t, ET_I32, n);
    fill_pairs_i32(a, b, n, 82);
    OUT(r, "out", uint32_t, ET_U32, n);
    arg_i32(r, n);
}

static void check_setp_int(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    uint32_t *w = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int32_t x = a[i], y = b[i];
        uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
        int64_t lx = (int64_t)x * 3, ly = (int64_t)y * 5;
        bool bits[13] = {
            x < y, x <= y, x > y, x >= y, x == y, x != y, ux < uy, ux <= uy, ux > uy, ux >= uy,
            lx < ly, (uint64_t)lx > (uint64_t)ly, lx == ly,
        };
        for (int k = 0; k < 13; k++) w[i] |= (uint32_t)bits[k] << k;
    }
    expect_buf(r, 2, w);
    free(w);
}

static void setup_selp_predlogic(Run *r) {
    int n = r->n = N_ELEM;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n), *b = IN(r, "b", int32_t, ET_I32, n);
    fill_pairs_i32(a, b, n, 83);
    float *f = IN(r, "f", float, ET_F32, n);
    uint64_t s = 84;
    for (int i = 0; i < n; i++) f[i] = (i % 7 == 0) ? 0.5f : rand_f32_in(&s, -1.0f, 2.0f);
    OUT(r, "out", int32_t, ET_I32, 6 * (size_t)n);
    arg_i32(r, n);
}

static void check_selp_predlogic(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    const float *f = r->bufs[2].host;
    int32_t *w = xcalloc(6 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int32_t x = a[i], y = b[i];
        float z = f[i];
        bool p = x < y, q = (x & 4) != 0, rr = z > 0.5f;
        w[0 * n + i] = p ? x : y;
        w[1 * n + i] = (p && q) ? 11 : 22;
        w[2 * n + i] = (p || rr) ? (int32_t)((uint32_t)x * 3u) : (int32_t)((uint32_t)y - 1u);
        w[3 * n + i] = (p ^ q ^ rr) ? 1 : -1;
        w[4 * n + i] = ((!p && rr) || (q && !rr)) ? x : 7;
        w[5 * n + i] = (int32_t)f2u(rr ? z : -z);
    }
    expect_buf(r, 3, w);
    free(w);
}

static void setup_cvt_widths(Run *r) {
    int n = r->n = N_ELEM;
    int64_t *a = IN(r, "a", int64_t, ET_I64, n);
    uint64_t s = 85;
    for (int i = 0; i < n; i++)
        a[i] = i < N_EDGE_I64 ? EDGE_I64[i] : (i < 2 * N_EDGE_I64 ? (int64_t)EDGE_I32[i - N_EDGE_I64]
                                                               : (int64_t)(rng_next(&s) >> (rng_next(&s) % 64)) * ((i & 1) ? -1 : 1));
    OUT(r, "out", int64_t, ET_I64, 9 * (size_t)n);
    arg_i32(r, n);
}

static void check_cvt_widths(Run *r) {
    int n = r->n;
    const int64_t *a = r->bufs[0].host;
    int64_t *w = xcalloc(9 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        int64_t v = a[i];
        w[0 * n + i] = (int8_t)v;
        w[1 * n + i] = (uint8_t)v;
        w[2 * n + i] = (int16_t)v;
        w[3 * n + i] = (uint16_t)v;
        w[4 * n + i] = (int32_t)v;
        w[5 * n + i] = (uint32_t)v;
        w[6 * n + i] = ref_f2s((double)(float)(int32_t)v, FE_TOWARDZERO, INT64_MIN, INT64_MAX);
        w[7 * n + i] = ref_f2s(ref_i2d(v, FE_TONEAREST), FE_TOWARDZERO, INT64_MIN, INT64_MAX);
        w[8 * n + i] = (int64_t)ref_f2u(ref_u2d((uint64_t)v, FE_TONEAREST), FE_TOWARDZERO, UINT64_MAX);
    }
    expect_buf(r, 1, w);
    free(w);
}

static void setup_cvt_sat(Run *r) {
    int n = r->n = N_ELEM;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    float *f = IN(r, "f", float, ET_F32, n);
    uint64_t s = 86;
    static const int32_t near[] = {127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535, 65536};
    for (int i = 0; i < n; i++) {
        a[i] = i < 12 ? near[i] : (i < 12 + N_EDGE_I32 ? EDGE_I32[i - 12] : (int32_t)rng_next(&s) >> (rng_next(&s) % 32));
        f[i] = (i % 4 == 0) ? u2f(EDGE_F32[(i / 4) % N_EDGE_F32]) : (i % 4 == 1 ? rand_f32_in(&s, -1.0f, 2.0f) : rand_f32_in(&s, -6e9f, 6e9f));
    }
    OUT(r, "out", int32_t, ET_I32, 6 * (size_t)n);
    OUT(r, "outf", float, ET_F32, 2 * (size_t)n);
    LAST_BUF(r)->zero_sign_free = true;
    arg_i32(r, n);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static void check_cvt_sat(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    const float *f = r->bufs[1].host;
    int32_t *w = xcalloc(6 * (size_t)n, 4);
    float *wf = xcalloc(2 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int32_t x = a[i];
        float y = f[i];
        w[0 * n + i] = (int32_t)clamp64(x, -128, 127);
        w[1 * n + i] = (int32_t)clamp64(x, 0, 255);
        w[2 * n + i] = (int32_t)clamp64(x, -32768, 32767);
        w[3 * n + i] = (int32_t)((uint32_t)x > 65535u ? 65535u : (uint32_t)x);
        w[4 * n + i] = (int32_t)ref_f2s(y, FE_TOWARDZERO, INT32_MIN, INT32_MAX);
        w[5 * n + i] = (int32_t)(uint32_t)ref_f2u(y, FE_TOWARDZERO, UINT32_MAX);
        wf[0 * n + i] = isnan(y) ? 0.0f : (y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y));   /* .sat: NaN -> +0 */
        wf[1 * n + i] = y * 2.0f;
    }
    expect_buf(r, 2, w);
    r->bufs[3].zero_sign_free = false;
    allow_zero_sign(r, 3, wf, 0, 1);
    expect_buf(r, 3, wf);
    r->bufs[3].zero_sign_free = true;
    free(w);
    free(wf);
}

/* testp_modes: edge values of both types (zeros, subnormals, the normal
 * bounds, infinities, NaNs), then wide random ones. */
static void setup_testp_modes(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n);
    double *d = IN(r, "d", double, ET_F64, n);
    uint64_t s = 88;
    for (int i = 0; i < n; i++) {
        a[i] = i < N_EDGE_F32 ? u2f(EDGE_F32[i]) : (i & 1) ? rand_f32_wide(&s) : u2f((uint32_t)rng_next(&s));
        d[i] = i < N_EDGE_F64 ? u2d(EDGE_F64[i]) : (i & 1) ? rand_f64_wide(&s) : u2d(rng_next(&s));
    }
    OUT(r, "out", uint32_t, ET_U32, n);
    arg_i32(r, n);
}

static void check_testp_modes(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    const double *d = r->bufs[1].host;
    uint32_t *w = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        float x = a[i];
        double y = d[i];
        w[i] = (uint32_t)isfinite(x) | (uint32_t)(isinf(x) != 0) << 1 | (uint32_t)!isnan(x) << 2 |
               (uint32_t)(isnan(x) != 0) << 3 | (uint32_t)isnormal(x) << 4 |
               (uint32_t)(fpclassify(x) == FP_SUBNORMAL) << 5 |
               (uint32_t)isfinite(y) << 8 | (uint32_t)(isinf(y) != 0) << 9 | (uint32_t)!isnan(y) << 10 |
               (uint32_t)(isnan(y) != 0) << 11 | (uint32_t)isnormal(y) << 12 |
               (uint32_t)(fpclassify(y) == FP_SUBNORMAL) << 13;
    }
    expect_buf(r, 2, w);
    free(w);
}

static void setup_cvt_f32_f64(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n);
    double *d = IN(r, "d", double, ET_F64, n);
    uint64_t s = 87;
    for (int i = 0; i < n; i++) {
        a[i] = i < N_EDGE_F32 ? u2f(EDGE_F32[i]) : rand_f32_wide(&s);
        d[i] = i < N_EDGE_F64 ? u2d(EDGE_F64[i])
                              : (i & 1) ? rand_f64_wide(&s) : ldexp((double)(rng_next(&s) >> 11), -(int)(rng_next(&s) % 260) - 53);
    }
    OUT(r, "out", double, ET_F64, n);
    OUT(r, "outf", float, ET_F32, n);
    arg_i32(r, n);
}

static void check_cvt_f32_f64(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    const double *d = r->bufs[1].host;
    double *w = xcalloc((size_t)n, 8);
    float *wf = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        w[i] = (double)a[i];
        wf[i] = ref_d2f(d[i], FE_TONEAREST);
    }
    expect_buf(r, 2, w);
    expect_buf(r, 3, wf);
    free(w);
    free(wf);
}

/* ---- memory.cu ---------------------------------------------------------- */

static void setup_mem_vector(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, 4 * (size_t)n), *b = IN(r, "b", float, ET_F32, 2 * (size_t)n);
    int32_t *c = IN(r, "c", int32_t, ET_I32, 4 * (size_t)n);
    uint64_t s = 91;
    for (int i = 0; i < 4 * n; i++) {
        a[i] = rand_f32_in(&s, -1e3f, 1e3f);
        c[i] = (int32_t)rng_next(&s);
        if (i < 2 * n) b[i] = rand_f32_wide(&s);
    }
    OUT(r, "oa", float, ET_F32, 4 * (size_t)n);
    OUT(r, "ob", float, ET_F32, 2 * (size_t)n);
    OUT(r, "oc", int32_t, ET_I32, 4 * (size_t)n);
    arg_i32(r, n);
}

static void check_mem_vector(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host, *b = r->bufs[1].host;
    const int32_t *c = r->bufs[2].host;
    float *wa = xcalloc(4 * (size_t)n, 4), *wb = xcalloc(2 * (size_t)n, 4);
    int32_t *wc = xcalloc(4 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        const float *v = a + 4 * i, *u = b + 2 * i;
        const int32_t *k = c + 4 * i;
        wa[4 * i + 0] = v[3];
        wa[4 * i + 1] = v[2] + 1.0f;
        wa[4 * i + 2] = v[1] * 2.0f;
        wa[4 * i + 3] = v[0];
        wb[2 * i + 0] = u[1];
        wb[2 * i + 1] = u[0] - 3.0f;
        wc[4 * i + 0] = k[1];
        wc[4 * i + 1] = k[2] ^ k[3];
        wc[4 * i + 2] = (int32_t)((uint32_t)k[0] + 1u);
        wc[4 * i + 3] = k[3];
    }
    expect_buf_ex(r, 3, wa, 0, NULL);
    expect_buf_ex(r, 4, wb, 0, NULL);
    expect_buf_ex(r, 5, wc, 0, NULL);
    free(wa);
    free(wb);
    free(wc);
}

static void setup_mem_ldg_volatile(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n);
    int32_t *b = IN(r, "b", int32_t, ET_I32, n);
    uint64_t s = 92;
    for (int i = 0; i < n; i++) {
        a[i] = rand_f32_in(&s, -100.0f, 100.0f);
        b[i] = (i % 11 == 0) ? EDGE_I32[(i / 11) % N_EDGE_I32] : (int32_t)(rng_next(&s) % 20001) - 10000;
    }
    OUT(r, "out", float, ET_F32, n);
    OUT(r, "vol", int32_t, ET_I32, n);
    arg_i32(r, n);
}

static void check_mem_ldg_volatile(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    const int32_t *b = r->bufs[1].host;
    float *w = xcalloc((size_t)n, 4);
    int32_t *wv = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int32_t y = b[(i * 7) % n];
        w[i] = (a[i] * 2.0f + (float)y) + a[(i / 4) * 4];   /* x*2 is exact, so the fma equals mul+add */
        wv[i] = (int32_t)((uint32_t)y + 1u);
    }
    expect_buf_ex(r, 2, w, 0, NULL);
    expect_buf_ex(r, 3, wv, 0, NULL);
    free(w);
    free(wv);
}

static void setup_mem_widths(Run *r) {
    int n = r->n = N_ELEM;
    int8_t *a = IN(r, "a", int8_t, ET_I8, n);
    uint16_t *b = IN(r, "b", uint16_t, ET_U16, n);
    int16_t *c = IN(r, "c", int16_t, ET_I16, n);
    uint64_t *d = IN(r, "d", uint64_t, ET_U64, n);
    uint64_t s = 93;
    for (int i = 0; i < n; i++) {
        uint64_t x = rng_next(&s);
        a[i] = (int8_t)x;
        b[i] = (uint16_t)(x >> 8);
        c[i] = (int16_t)(x >> 24);
        d[i] = rng_next(&s);
    }
    OUT(r, "out", int32_t, ET_I32, 4 * (size_t)n);
    OUT(r, "ob", uint8_t, ET_U8, n);
    OUT(r, "oc", int16_t, ET_I16, n);
    OUT(r, "od", uint64_t, ET_U64, n);
    arg_i32(r, n);
}

static void check_mem_widths(Run *r) {
    int n = r->n;
    const int8_t *a = r->bufs[0].host;
    const uint16_t *b = r->bufs[1].host;
    const int16_t *c = r->bufs[2].host;
    const uint64_t *d = r->bufs[3].host;
    int32_t *w = xcalloc(4 * (size_t)n, 4);
    uint8_t *wb = xcalloc((size_t)n, 1);
    int16_t *wc = xcalloc((size_t)n, 2);
    uint64_t *wd = xcalloc((size_t)n, 8);
    for (int i = 0; i < n; i++) {
        w[0 * n + i] = a[i];
        w[1 * n + i] = b[i];
        w[2 * n + i] = c[i];
        w[3 * n + i] = (int32_t)(uint32_t)(d[i] >> 17);
        wb[i] = (uint8_t)(a[i] * 3 + 1);
        wc[i] = (int16_t)(c[i] - b[i]);
        wd[i] = d[i] * 0x9E3779B97F4A7C15ull;
    }
    expect_buf(r, 4, w);
    expect_buf(r, 5, wb);
    expect_buf(r, 6, wc);
    expect_buf(r, 7, wd);
    free(w);
    free(wb);
    free(wc);
    free(wd);
}

static void setup_mem_local(Run *r) {
    int n = r->n = N_ELEM;
    int32_t *idx = IN(r, "idx", int32_t, ET_I32, n);
    uint64_t s = 94;
    for (int i = 0; i < n; i++) idx[i] = (int32_t)(rng_next(&s) % 1000);
    OUT(r, "out", int32_t, ET_I32, n);
    arg_i32(r, n);
}

static void check_mem_local(Run *r) {
    int n = r->n;
    const int32_t *idx = r->bufs[0].host;
    int32_t *w = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int arr[16];
        for (int k = 0; k < 16; k++) arr[k] = i * 100 + k;
        int j = idx[i] & 15;
        arr[j] += 1000;
        arr[(j + 5) & 15] = -arr[j];
        int s = 0;
        for (int k = 0; k < 16; k++) s += arr[k] * (k + 1);
        w[i] = s + arr[idx[(i + 1) % n] & 15];
    }
    expect_buf(r, 1, w);
    free(w);
}

/* memory.cu's initialisers (the tails of the arrays are zero). */
static const float C_COEF[8] = {0.5f, -1.25f, 2.0f, 3.5f, -0.125f, 0, 0, 0};
static const int C_TABLE[4] = {7, 11, 13, 0};
static const float G_SCALE[4] = {1.5f, 2.5f, 0, 0};
#define G_COUNTER_BASE 40
#define G_BIG 0x123456789abcdefull

static void setup_mem_const(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n);
    uint64_t s = 95;
    for (int i = 0; i < n; i++) a[i] = rand_f32_in(&s, -100.0f, 100.0f);
    OUT(r, "out", float, ET_F32, n);
    OUT(r, "outi", int32_t, ET_I32, n);
    arg_i32(r, n);
}

static void check_mem_const(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    float *w = xcalloc((size_t)n, 4);
    int32_t *wi = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int k = i & 7;
        w[i] = fmaf(C_COEF[k], a[i], C_COEF[(k + 3) & 7]);
        wi[i] = C_TABLE[i & 3] * (i + 1);
    }
    expect_buf(r, 1, w);
    expect_buf(r, 2, wi);
    free(w);
    free(wi);
}

static void setup_mem_device_global(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n);
    uint64_t s = 96;
    for (int i = 0; i < n; i++) a[i] = rand_f32_in(&s, -100.0f, 100.0f);
    OUT(r, "out", float, ET_F32, n);
    OUT(r, "big", uint64_t, ET_U64, n);
    arg_i32(r, n);
}

static void check_mem_device_global(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    float *w = xcalloc((size_t)n, 4);
    uint64_t *wb = xcalloc((size_t)n, 8);
    for (int i = 0; i < n; i++) {
        w[i] = fmaf(a[i], G_SCALE[i & 3], (float)G_COUNTER_BASE);
        wb[i] = G_BIG + (uint64_t)i;
    }
    expect_buf(r, 1, w);
    expect_buf(r, 2, wb);
    free(w);
    free(wb);
}

#define SHARED_N 1000   /* with 8 blocks of 128: the last block is partly outside */

static void setup_mem_shared_static(Run *r) {
    int n = r->n = SHARED_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 97;
    for (int i = 0; i < n; i++) a[i] = (int32_t)(rng_next(&s) % 100000);
    OUT(r, "out", int32_t, ET_I32, n);
    arg_i32(r, n);
}

static void check_mem_shared_static(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    int32_t *w = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int t = i % 128, base = i - t, src = base + 127 - t;
        w[i] = (src < n ? a[src] : 0) + t / 2;
    }
    expect_buf(r, 1, w);
    free(w);
}

static void setup_mem_shared_dynamic(Run *r) {
    int n = r->n = SHARED_N;
    float *a = IN(r, "a", float, ET_F32, n);
    uint64_t s = 98;
    for (int i = 0; i < n; i++) a[i] = rand_f32_in(&s, -100.0f, 100.0f);
    OUT(r, "out", float, ET_F32, n);
    arg_i32(r, n);
}

static void check_mem_shared_dynamic(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    float *w = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int t = i % 128, base = i - t, src = base + (t + 1) % 128;
        w[i] = (src < n ? a[src] : 0.0f) + (float)(3 * ((t + 2) % 128));
    }
    expect_buf(r, 1, w);
    free(w);
}

#endif
