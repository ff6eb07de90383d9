/* tests/conformance/cases_tensor.h: references for tensor.cu (tensor cores).
 *
 * Bit-exact cases use inputs whose every partial sum is exact in f32 (small
 * integers, values with few significant bits), so the answer does not depend
 * on the order or rounding of the tensor core's additions: wmma_f16_layouts,
 * wmma_f16_acc16, wmma_bf16_gemm, wmma_tf32 (which also pins that tf32
 * operands use their top 19 bits and that __float_to_tf32 rounds to nearest,
 * ties away), tf32_convert, mma_m16n8k16, mma_m16n8k8. wmma_frag_map pins
 * which matrix element each lane holds in frag.x[i] (the layout NVIDIA leaves
 * unspecified; the emulator's choice is described in kernels/emu/emu_mma.c).
 * wmma_f16_gemm_rand has random inputs whose partial sums need more than
 * f32's 24 bits: its reference is the H200's rounding (tc_mma_step, fitted
 * by tools/mma_fit.c to a capture of tests/conformance/mma_probe.cu; the
 * emulator's copy is in kernels/emu/emu_mma.c), compared bit for bit.
 * Included once, by test_conformance.c. */
#ifndef CUDOJO_TESTS_CONFORMANCE_CASES_TENSOR_H
#define CUDOJO_TESTS_CONFORMANCE_CASES_TENSOR_H

static uint16_t tc_half(double v) { return f16_from_double(v, FE_TONEAREST); }
static uint16_t tc_bf16(float f) { return (uint16_t)(f2u(f) >> 16); }   /* exact for the small integers used */
static int tc_small(uint64_t *s, int lo, int hi) { return lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1)); }

/* ---- wmma f16, four layout combinations ---------------------------------------------- */
static void setup_wmma_f16_layouts(Run *r) {
    uint16_t *a = IN(r, "a", uint16_t, ET_F16, 256), *b = IN(r, "b", uint16_t, ET_F16, 256);
    float *c = IN(r, "c", float, ET_F32, 256);
    OUT(r, "d", float, ET_F32, 4 * 256);
    uint64_t s = 141;
    for (int i = 0; i < 256; i++) {
        a[i] = tc_half(tc_small(&s, -3, 3));
        b[i] = tc_half(tc_small(&s, -3, 3));
        c[i] = (float)tc_small(&s, -8, 8);
    }
}

static void check_wmma_f16_layouts(Run *r) {
    const uint16_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    const float *c = r->bufs[2].host;
    float want[4 * 256];
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) {
                bool ccol = t & 1, acol = t & 2;
                int ci = ccol ? j * 16 + i : i * 16 + j;
                double sum = c[ci];
                for (int k = 0; k < 16; k++) {
                    double x = f16_to_double(acol ? a[k * 16 + i] : a[i * 16 + k]);
                    double y = f16_to_double(acol ? b[k * 16 + j] : b[j * 16 + k]);
                    sum += x * y;
                }
                want[t * 256 + ci] = (float)sum;
            }
    expect_buf_ex(r, 3, want, 0, NULL);
}

/* ---- wmma f16 accumulator, element-wise scaling, shared memory ------------------------- */
static void setup_wmma_f16_acc16(Run *r) {
    uint16_t *a = IN(r, "a", uint16_t, ET_F16, 256), *b = IN(r, "b", uint16_t, ET_F16, 256);
    OUT(r, "d", uint16_t, ET_F16, 256);
    uint64_t s = 142;
    for (int i = 0; i < 256; i++) {
        a[i] = tc_half(tc_small(&s, -2, 2));
        b[i] = tc_half(tc_small(&s, -2, 2));
    }
}

static void check_wmma_f16_acc16(Run *r) {
    const uint16_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    uint16_t want[256];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            double sum = 1.0;
            for (int k = 0; k < 16; k++) sum += f16_to_double(a[i * 16 + k]) * f16_to_double(b[k * 16 + j]);
            want[i * 16 + j] = tc_half(2.0 * sum);
        }
    expect_buf_ex(r, 2, want, 0, NULL);
}

/* ---- wmma bf16, a 32x32x32 product by four warps ---------------------------------------- */
static void setup_wmma_bf16_gemm(Run *r) {
    uint16_t *a = IN(r, "a", uint16_t, ET_U16, 1024), *b = IN(r, "b", uint16_t, ET_U16, 1024);
    OUT(r, "d", float, ET_F32, 1024);
    uint64_t s = 143;
    for (int i = 0; i < 1024; i++) {
        a[i] = tc_bf16((float)tc_small(&s, -4, 4));
        b[i] = tc_bf16((float)tc_small(&s, -4, 4));
    }
}

static void check_wmma_bf16_gemm(Run *r) {
    const uint16_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    float want[1024];
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 32; j++) {
            double sum = 0;
            for (int k = 0; k < 32; k++) sum += (double)u2f((uint32_t)a[i * 32 + k] << 16) * u2f((uint32_t)b[k * 32 + j] << 16);
            want[i * 32 + j] = (float)sum;
        }
    expect_buf_ex(r, 2, want, 0, NULL);
}

/* ---- tf32: rounding by __float_to_tf32, the low bits ignored by mma ------------------- */
/* cvt.rna.tf32.f32 as sm_80 code does it: +0x1000 unless inf/NaN, keep 19 bits. */
static float tc_tf32_rna(float x) {
    uint32_t u = f2u(x);
    if ((u & 0x7fffffffu) < 0x7f800000u) u += 0x1000u;
    return u2f(u & 0xffffe000u);
}

static float tc_tf32_trunc(float x) { return u2f(f2u(x) & 0xffffe000u); }

static void setup_wmma_tf32(Run *r) {
    float *a = IN(r, "a", float, ET_F32, 128), *b = IN(r, "b", float, ET_F32, 128);
    OUT(r, "d", float, ET_F32, 512);
    uint64_t s = 144;
    for (int i = 0; i < 128; i++) {
        float v = (float)tc_small(&s, -4, 4);
        /* 0.75 of a tf32 ulp above v (rounds up, truncates down), or a tiny excess */
        a[i] = (i & 1) ? v * (1.0f + 3.0f * 0x1p-12f) : v * (1.0f + 0x1p-20f);
        b[i] = (float)tc_small(&s, -4, 4);
    }
}

static void check_wmma_tf32(Run *r) {
    const float *a = r->bufs[0].host, *b = r->bufs[1].host;
    float want[512];
    for (int blk = 0; blk < 2; blk++)
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) {
                double sum = 0;
                for (int k = 0; k < 8; k++) {
                    float x = blk == 0 ? tc_tf32_rna(a[i * 8 + k]) : tc_tf32_trunc(a[i * 8 + k]);
                    sum += (double)x * b[j * 8 + k];   /* b is column-major, ld 8 */
                }
                want[blk * 256 + i * 16 + j] = (float)sum;
            }
    expect_buf_ex(r, 2, want, 0, NULL);
}

static void setup_tf32_convert(Run *r) {
    int n = r->n = 1024;
    float *in = IN(r, "in", float, ET_F32, (size_t)n);
    OUT(r, "out", float, ET_F32, (size_t)n);
    arg_i32(r, n);
    uint64_t s = 145;
    for (int i = 0; i < n; i++) {
        if (i < N_EDGE_F32) in[i] = u2f(EDGE_F32[i]);
        else if (i < N_EDGE_F32 + 8) in[i] = u2f(0x3f800000u | (uint32_t)(0x1000 * (i & 1)) | (uint32_t)(i & 6));   /* ties */
        else in[i] = (i & 1) ? rand_f32_wide(&s) : rand_f32_in(&s, -10.0f, 10.0f);
    }
}

static void check_tf32_convert(Run *r) {
    const float *in = r->bufs[0].host;
    float *want = xcalloc((size_t)r->n, sizeof *want);
    for (int i = 0; i < r->n; i++) want[i] = tc_tf32_rna(in[i]);
    expect_buf(r, 1, want);
    free(want);
}

/* ---- fragment layouts ------------------------------------------------------------------- */
static void setup_wmma_frag_map(Run *r) {
    uint16_t *h = IN(r, "coord_h", uint16_t, ET_F16, 256);
    float *f = IN(r, "coord_f", float, ET_F32, 256);
    OUT(r, "out", float, ET_F32, 32 * 40);
    for (int i = 0; i < 256; i++) {
        h[i] = tc_half(i);
        f[i] = (float)i;
    }
}

/* The emulator's layout (kernels/emu/emu_mma.c), written out again: lane =
 * 4*group + tig; A and B hold 8 distinct elements, x[8..15] repeat x[0..7]. */
static void check_wmma_frag_map(Run *r) {
    float want[32 * 40];
    for (int lane = 0; lane < 32; lane++) {
        int g = lane >> 2, t = lane & 3;
        for (int i = 0; i < 16; i++) {
            int e = i & 7;
            int ar = g + 8 * ((e >> 1) & 1), ac = 2 * t + (e & 1) + 8 * (e >> 2);
            int bk = 2 * t + (e & 1) + 8 * ((e >> 1) & 1), bn = g + 8 * (e >> 2);
            want[lane * 40 + i] = (float)(ar * 16 + ac);
            want[lane * 40 + 16 + i] = (float)(bk * 16 + bn);
        }
        for (int i = 0; i < 8; i++) {
            int cr = g + 8 * ((i >> 1) & 1), cc = 2 * t + (i & 1) + 8 * (i >> 2);
            want[lane * 40 + 32 + i] = (float)(cr * 16 + cc);
        }
    }
    expect_buf_ex(r, 2, want, 0, NULL);
}

/* ---- random f16 GEMM: rounding of the accumulation, bit-exact ------------------------- */
/* The exponent field of a finite nonzero input (subnormals at emin). */
static int tc_exp(double v, int emin) {
    int e = ilogb(v);
    return e < emin ? emin : e;
}

/* One tensor-core step as an H200 computes it (tools/mma_fit.c fitted this to
 * a capture; kernels/emu/emu_mma.c): c + a[0]*b[0] + .. + a[n-1]*b[n-1] in one
 * sum aligned to the largest of the products' ea + eb and c's exponent, each
 * term truncated toward zero to 2^(that - 25), the sum truncated toward zero
 * to f32. Finite inputs whose sums stay below 2^128. */
static float tc_mma_step(float c, const double *a, const double *b, int n, int emin) {
    int emax = c != 0 ? tc_exp(c, -126) : INT_MIN;
    for (int k = 0; k < n; k++)
        if (a[k] != 0 && b[k] != 0 && tc_exp(a[k], emin) + tc_exp(b[k], emin) > emax)
            emax = tc_exp(a[k], emin) + tc_exp(b[k], emin);
    if (emax == INT_MIN) return 0.0f;
    double unit = ldexp(1.0, emax - 25);
    int64_t sum = (int64_t)trunc(c / unit);
    for (int k = 0; k < n; k++) sum += (int64_t)trunc(a[k] * b[k] / unit);
    double exact = (double)sum * unit;
    float f = (float)exact;
    if (fabs((double)f) > fabs(exact)) f = nextafterf(f, 0.0f);
    return f;
}

static void setup_wmma_f16_gemm_rand(Run *r) {
    uint16_t *a = IN(r, "a", uint16_t, ET_F16, 4096), *b = IN(r, "b", uint16_t, ET_F16, 4096);
    OUT(r, "d", float, ET_F32, 4096);
    uint64_t s = 146;
    for (int i = 0; i < 4096; i++) {
        a[i] = tc_half(rand_f32_in(&s, -1.0f, 1.0f));
        b[i] = tc_half(rand_f32_in(&s, -1.0f, 1.0f));
    }
}

/* Four chained m16n16k16 steps per element: each step's f32 result is the next one's C. */
static void check_wmma_f16_gemm_rand(Run *r) {
    const uint16_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    float *want = xcalloc(4096, sizeof *want);
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++) {
            float acc = 0.0f;
            for (int k0 = 0; k0 < 64; k0 += 16) {
                double av[16], bv[16];
                for (int k = 0; k < 16; k++) {
                    av[k] = f16_to_double(a[i * 64 + k0 + k]);
                    bv[k] = f16_to_double(b[(k0 + k) * 64 + j]);
                }
                acc = tc_mma_step(acc, av, bv, 16, -14);
            }
            want[i * 64 + j] = acc;
        }
    expect_buf_ex(r, 2, want, 0, NULL);
    free(want);
}

/* ---- mma.sync --------------------------------------------------------------------------- */
static void setup_mma_m16n8k16(Run *r) {
    uint16_t *ah = IN(r, "ah", uint16_t, ET_F16, 256), *bh = IN(r, "bh", uint16_t, ET_F16, 128);
    uint16_t *ab = IN(r, "ab", uint16_t, ET_U16, 256), *bb = IN(r, "bb", uint16_t, ET_U16, 128);
    float *c = IN(r, "c", float, ET_F32, 128);
    OUT(r, "d", float, ET_F32, 256);
    uint64_t s = 147;
    for (int i = 0; i < 256; i++) {
        ah[i] = tc_half(tc_small(&s, -4, 4));
        ab[i] = tc_bf16((float)tc_small(&s, -4, 4));
    }
    for (int i = 0; i < 128; i++) {
        bh[i] = tc_half(tc_small(&s, -4, 4));
        bb[i] = tc_bf16((float)tc_small(&s, -4, 4));
        c[i] = (float)tc_small(&s, -100, 100);
    }
}

static void check_mma_m16n8k16(Run *r) {
    const uint16_t *ah = r->bufs[0].host, *bh = r->bufs[1].host, *ab = r->bufs[2].host, *bb = r->bufs[3].host;
    const float *c = r->bufs[4].host;
    float want[256];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 8; j++) {
            double sh = c[i * 8 + j], sb = c[i * 8 + j];
            for (int k = 0; k < 16; k++) {
                sh += f16_to_double(ah[i * 16 + k]) * f16_to_double(bh[k * 8 + j]);
                sb += (double)u2f((uint32_t)ab[i * 16 + k] << 16) * u2f((uint32_t)bb[k * 8 + j] << 16);
            }
            want[i * 8 + j] = (float)sh;
            want[128 + i * 8 + j] = (float)sb;
        }
    expect_buf_ex(r, 5, want, 0, NULL);
}

static void setup_mma_m16n8k8(Run *r) {
    uint16_t *ah = IN(r, "ah", uint16_t, ET_F16, 128), *bh = IN(r, "bh", uint16_t, ET_F16, 64);
    float *af = IN(r, "af", float, ET_F32, 128), *bf = IN(r, "bf", float, ET_F32, 64);
    float *c = IN(r, "c", float, ET_F32, 128);
    OUT(r, "d", float, ET_F32, 256);
    uint64_t s = 148;
    for (int i = 0; i < 128; i++) {
        ah[i] = tc_half(tc_small(&s, -3, 3));
        af[i] = (float)tc_small(&s, -5, 5) * 0.25f;
        c[i] = (float)tc_small(&s, -20, 20);
    }
    for (int i = 0; i < 64; i++) {
        bh[i] = tc_half(tc_small(&s, -3, 3));
        bf[i] = (float)tc_small(&s, -5, 5);
    }
}

static void check_mma_m16n8k8(Run *r) {
    const uint16_t *ah = r->bufs[0].host, *bh = r->bufs[1].host;
    const float *af = r->bufs[2].host, *bf = r->bufs[3].host, *c = r->bufs[4].host;
    float want[256];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 8; j++) {
            double sh = c[i * 8 + j], sf = c[i * 8 + j];
            for (int k = 0; k < 8; k++) {
                sh += f16_to_double(ah[i * 8 + k]) * f16_to_double(bh[k * 8 + j]);
                sf += (double)af[i * 8 + k] * bf[k * 8 + j];
            }
            want[i * 8 + j] = (float)f16_to_double(tc_half(sh));
            want[128 + i * 8 + j] = (float)sf;
        }
    expect_buf_ex(r, 5, want, 0, NULL);
}

#endif
