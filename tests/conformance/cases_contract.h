/* tests/conformance/cases_contract.h: references for contract.cu — which
 * mul + add pairs round once (ptxas fused them into an fma on the H200) and
 * which round twice. Inputs are normal numbers in a middle range (no
 * subnormals, so .ftz changes nothing but the fusing), halves also the edge
 * values of half_ops. Included once, by test_conformance.c, after
 * cases_float.h. */
#ifndef CUDOJO_TESTS_CONFORMANCE_CASES_CONTRACT_H
#define CUDOJO_TESTS_CONFORMANCE_CASES_CONTRACT_H

static uint16_t h_round(double v) { return f16_from_double(v, FE_TONEAREST); }

static void setup_contract_half(Run *r) {
    int n = r->n = N_ELEM;
    uint16_t *a = IN(r, "a", uint16_t, ET_F16, n), *b = IN(r, "b", uint16_t, ET_F16, n);
    uint16_t *c = IN(r, "c", uint16_t, ET_F16, n);
    fill_f16(a, b, c, n, 81);
    OUT(r, "out", uint16_t, ET_F16, 7 * (size_t)n);
    arg_i32(r, n);
}

static void check_contract_half(Run *r) {
    int n = r->n;
    const uint16_t *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    uint16_t *w = xcalloc(7 * (size_t)n, 2);
    for (int i = 0; i < n; i++) {
        double x = f16_to_double(a[i]), y = f16_to_double(b[i]), z = f16_to_double(c[i]);
        uint16_t m = h_round(x * y), zx = h_round(z * x);
        w[0 * n + i] = h_round(fma(x, y, z));
        w[1 * n + i] = h_round(fma(-x, y, z));
        w[2 * n + i] = h_round(fma(x, y, -z));
        w[3 * n + i] = h_round(f16_to_double(m) + z);
        w[4 * n + i] = m;
        w[5 * n + i] = h_round(fma(x, y, f16_to_double(zx)));
        double v = x > z ? f16_to_double(h_round(x + x)) : x;
        w[6 * n + i] = h_round(v + f16_to_double(h_round(z * y)));   /* not fused here (H200) */
    }
    expect_buf(r, 3, w);
    free(w);
}

static void setup_contract_half2(Run *r) {
    int n = r->n = N_ELEM / 2;
    uint16_t *a = IN(r, "a", uint16_t, ET_F16, 2 * (size_t)n), *b = IN(r, "b", uint16_t, ET_F16, 2 * (size_t)n);
    uint16_t *c = IN(r, "c", uint16_t, ET_F16, 2 * (size_t)n);
    fill_f16(a, b, c, 2 * n, 82);
    OUT(r, "out", uint16_t, ET_F16, 2 * (size_t)n);
    arg_i32(r, n);
}

static void check_contract_half2(Run *r) {
    int n = r->n;
    const uint16_t *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    uint16_t *w = xcalloc(2 * (size_t)n, 2);
    for (int k = 0; k < 2 * n; k++)
        w[k] = h_round(fma(f16_to_double(a[k]), f16_to_double(b[k]), f16_to_double(c[k])));
    expect_buf(r, 3, w);
    free(w);
}

/* A normal float in ±[2^-8, 2^8), sign and mantissa random. */
static float rand_f32_mid(uint64_t *s) {
    uint64_t v = rng_next(s);
    uint32_t bits = (uint32_t)(v >> 63) << 31 | (uint32_t)(119 + (v >> 32) % 16) << 23 | (uint32_t)(v & 0x7fffff);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static void setup_contract_f32(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n), *b = IN(r, "b", float, ET_F32, n);
    float *c = IN(r, "c", float, ET_F32, n);
    uint64_t s = 83;
    for (int i = 0; i < n; i++) {
        a[i] = rand_f32_mid(&s);
        b[i] = rand_f32_mid(&s);
        c[i] = i % 4 == 0 ? -a[i] * b[i] : rand_f32_mid(&s);   /* cancellation shows the single rounding */
    }
    OUT(r, "out", float, ET_F32, 4 * (size_t)n);
    arg_i32(r, n);
}

static void check_contract_f32(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    float *w = xcalloc(4 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        volatile float m = a[i] * b[i];
        volatile float twice = m + c[i];
        float once = fmaf(a[i], b[i], c[i]);
        w[0 * n + i] = once;
        w[1 * n + i] = twice;
        w[2 * n + i] = once > 1.0f ? 1.0f : once > 0.0f ? once : 0.0f;
        w[3 * n + i] = twice;
    }
    expect_buf(r, 3, w);
    free(w);
}

static void setup_contract_f64(Run *r) {
    int n = r->n = N_ELEM;
    double *a = IN(r, "a", double, ET_F64, n), *b = IN(r, "b", double, ET_F64, n);
    double *c = IN(r, "c", double, ET_F64, n);
    uint64_t s = 84;
    for (int i = 0; i < n; i++) {
        a[i] = (double)rand_f32_mid(&s) * (1.0 + 0x1p-40 * (double)(rng_next(&s) % 1000));
        b[i] = (double)rand_f32_mid(&s);
        c[i] = i % 4 == 0 ? a[i] * b[i] : (double)rand_f32_mid(&s);
    }
    OUT(r, "out", double, ET_F64, (size_t)n);
    arg_i32(r, n);
}

static void check_contract_f64(Run *r) {
    int n = r->n;
    const double *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    double *w = xcalloc((size_t)n, 8);
    for (int i = 0; i < n; i++) w[i] = fma(-a[i], b[i], c[i]);
    expect_buf(r, 3, w);
    free(w);
}

#endif
