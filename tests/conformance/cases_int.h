/* tests/conformance/cases_int.h: setups and CPU references for int_ops.cu and
 * bit_ops.cu. Each reference evaluates the kernel's expression in C on the
 * same inputs (unsigned arithmetic where the kernel wraps), or follows the
 * PTX ISA's pseudo-code for instructions C has no operator for (clamped
 * shifts, bfe, bfi, bfind, prmt, shf). Included by test_conformance.c. */
#ifndef CUDOJO_TESTS_CONFORMANCE_CASES_INT_H
#define CUDOJO_TESTS_CONFORMANCE_CASES_INT_H

#include "tests/conformance/harness.h"

#define N_ELEM 1024

static void setup_pairs_i32(Run *r, int nout32, int nout64, uint64_t seed) {
    int n = r->n = N_ELEM;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n), *b = IN(r, "b", int32_t, ET_I32, n);
    fill_pairs_i32(a, b, n, seed);
    if (nout32) OUT(r, "out", int32_t, ET_I32, (size_t)nout32 * n);
    if (nout64) OUT(r, "out64", int64_t, ET_I64, (size_t)nout64 * n);
    arg_i32(r, n);
}

static void setup_int_addsub(Run *r) { setup_pairs_i32(r, 5, 0, 11); }

static void check_int_addsub(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    int32_t *w = xcalloc(5 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        uint32_t x = (uint32_t)a[i], y = (uint32_t)b[i];
        w[0 * n + i] = (int32_t)(x + y);
        w[1 * n + i] = (int32_t)(x - y);
        w[2 * n + i] = (int32_t)(0u - x);
        w[3 * n + i] = (int32_t)(x + 12345u);
        w[4 * n + i] = (int32_t)(y - 1u);
    }
    expect_buf(r, 2, w);
    free(w);
}

static void setup_int_addsub64(Run *r) {
    int n = r->n = N_ELEM;
    int64_t *a = IN(r, "a", int64_t, ET_I64, n), *b = IN(r, "b", int64_t, ET_I64, n);
    fill_pairs_i64(a, b, n, 12);
    OUT(r, "out", int64_t, ET_I64, 4 * (size_t)n);
    arg_i32(r, n);
}

static void check_int_addsub64(Run *r) {
    int n = r->n;
    const int64_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    int64_t *w = xcalloc(4 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        uint64_t x = (uint64_t)a[i], y = (uint64_t)b[i];
        w[0 * n + i] = (int64_t)(x + y);
        w[1 * n + i] = (int64_t)(x - y);
        w[2 * n + i] = (int64_t)(0ull - x);
        w[3 * n + i] = (int64_t)(x + 0x100000001ull);
    }
    expect_buf(r, 2, w);
    free(w);
}

static void setup_int_mul(Run *r) { setup_pairs_i32(r, 4, 2, 13); }

static void check_int_mul(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    int32_t *w = xcalloc(4 * (size_t)n, 4);
    int64_t *w64 = xcalloc(2 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        int32_t x = a[i], y = b[i];
        uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
        w[0 * n + i] = (int32_t)(ux * uy);
        w[1 * n + i] = (int32_t)(((int64_t)x * (int64_t)y) >> 32);
        w[2 * n + i] = (int32_t)(((uint64_t)ux * (uint64_t)uy) >> 32);
        w[3 * n + i] = (int32_t)(ux * 7u);
        w64[0 * n + i] = (int64_t)x * (int64_t)y;
        w64[1 * n + i] = (int64_t)((uint64_t)ux * (uint64_t)uy);
    }
    expect_buf(r, 2, w);
    expect_buf(r, 3, w64);
    free(w);
    free(w64);
}

static void setup_int_mul64(Run *r) {
    int n = r->n = N_ELEM;
    int64_t *a = IN(r, "a", int64_t, ET_I64, n), *b = IN(r, "b", int64_t, ET_I64, n);
    fill_pairs_i64(a, b, n, 14);
    OUT(r, "out", int64_t, ET_I64, 3 * (size_t)n);
    arg_i32(r, n);
}

static void check_int_mul64(Run *r) {
    int n = r->n;
    const int64_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    int64_t *w = xcalloc(3 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        uint64_t ux = (uint64_t)a[i], uy = (uint64_t)b[i];
        w[0 * n + i] = (int64_t)(ux * uy);
        w[1 * n + i] = (int64_t)(((__int128)a[i] * (__int128)b[i]) >> 64);
        w[2 * n + i] = (int64_t)(uint64_t)(((unsigned __int128)ux * (unsigned __int128)uy) >> 64);
    }
    expect_buf(r, 2, w);
    free(w);
}

static void setup_int_mad(Run *r) {
    int n = r->n = N_ELEM;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n), *b = IN(r, "b", int32_t, ET_I32, n);
    int32_t *c = IN(r, "c", int32_t, ET_I32, n);
    fill_pairs_i32(a, b, n, 15);
    uint64_t s = 16;
    for (int i = 0; i < n; i++) c[i] = (i % 3) ? (int32_t)rng_next(&s) : EDGE_I32[rng_next(&s) % N_EDGE_I32];
    OUT(r, "out", int32_t, ET_I32, 2 * (size_t)n);
    OUT(r, "wide", int64_t, ET_I64, 2 * (size_t)n);
    arg_i32(r, n);
}

static void check_int_mad(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    int32_t *w = xcalloc(2 * (size_t)n, 4);
    int64_t *w64 = xcalloc(2 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        uint32_t ux = (uint32_t)a[i], uy = (uint32_t)b[i], uz = (uint32_t)c[i];
        w[0 * n + i] = (int32_t)(ux * uy + uz);
        w[1 * n + i] = (int32_t)(ux * 3u + uy * 5u + uz);
        w64[0 * n + i] = (int64_t)a[i] * (int64_t)b[i] + (int64_t)c[i];
        w64[1 * n + i] = (int64_t)((uint64_t)ux * uy + (uint64_t)uz);
    }
    expect_buf(r, 3, w);
    expect_buf(r, 4, w64);
    free(w);
    free(w64);
}

/* int_asm_forms: pairs with 24-bit operands whose bit 23 is set, edge values
 * and sums that overflow, then random ones. */
static void setup_int_asm_forms(Run *r) {
    int n = r->n = N_ELEM;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n), *b = IN(r, "b", int32_t, ET_I32, n);
    int32_t *c = IN(r, "c", int32_t, ET_I32, n);
    fill_pairs_i32(a, b, n, 15);
    uint64_t s = 17;
    for (int i = 0; i < n; i++) {
        c[i] = (i % 3) ? (int32_t)rng_next(&s) : EDGE_I32[rng_next(&s) % N_EDGE_I32];
        if (i % 4 == 0) {
            a[i] = (int32_t)(0x800000u | (uint32_t)rng_next(&s));
            b[i] = (int32_t)(0xff800000u | (uint32_t)rng_next(&s));
        }
    }
    OUT(r, "out", uint32_t, ET_U32, 14 * (size_t)n);
    arg_i32(r, n);
}

static int64_t s24(int32_t x) { return (int64_t)(int32_t)((uint32_t)x << 8) >> 8; }
static uint32_t clamp_s32(int64_t x) { return (uint32_t)(int32_t)(x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x); }

static void check_int_asm_forms(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    uint32_t *w = xcalloc(14 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        uint32_t ux = (uint32_t)a[i] & 0xffffff, uy = (uint32_t)b[i] & 0xffffff, uz = (uint32_t)c[i];
        uint64_t up = (uint64_t)ux * uy;
        int64_t sp = s24(a[i]) * s24(b[i]);
        int32_t shi = (int32_t)(uint32_t)(uint64_t)(sp >> 16);
        float f = (float)c[i] * 0.001f;
        int k = 0;
        w[k++ * n + i] = (uint32_t)up;
        w[k++ * n + i] = (uint32_t)(up >> 16);
        w[k++ * n + i] = (uint32_t)(uint64_t)sp;
        w[k++ * n + i] = (uint32_t)shi;
        w[k++ * n + i] = (uint32_t)up + uz;
        w[k++ * n + i] = (uint32_t)(up >> 16) + uz;
        w[k++ * n + i] = (uint32_t)shi + uz;
        w[k++ * n + i] = clamp_s32((int64_t)shi + c[i]);
        w[k++ * n + i] = clamp_s32((int64_t)a[i] + b[i]);
        w[k++ * n + i] = clamp_s32((int64_t)a[i] - b[i]);
        w[k++ * n + i] = clamp_s32((((int64_t)a[i] * b[i]) >> 32) + c[i]);
        w[k++ * n + i] = (uint32_t)(int32_t)(int8_t)a[i];
        w[k++ * n + i] = (uint32_t)(int32_t)(b[i] > 32767 ? 32767 : b[i] < -32768 ? -32768 : b[i]);
        float t = truncf(f);                                      /* float to int saturates */
        w[k++ * n + i] = (uint16_t)(int16_t)(t > 127.0f ? 127 : t < -128.0f ? -128 : (int)t);
    }
    expect_buf(r, 3, w);
    free(w);
}

static void setup_int_divrem(Run *r) { setup_pairs_i32(r, 8, 0, 17); }

static void check_int_divrem(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    int32_t *w = xcalloc(8 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int32_t x = a[i], y = b[i];
        uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
        bool ok = y != 0 && !(x == INT32_MIN && y == -1);
        w[0 * n + i] = ok ? x / y : 0;
        w[1 * n + i] = ok ? x % y : 0;
        w[2 * n + i] = uy ? (int32_t)(ux / uy) : 0;
        w[3 * n + i] = uy ? (int32_t)(ux % uy) : 0;
        w[4 * n + i] = x / 7;
        w[5 * n + i] = x % 10;
        w[6 * n + i] = (int32_t)(ux / 3u);
        w[7 * n + i] = x / -5;
    }
    expect_buf(r, 2, w);
    free(w);
}

static void setup_int_divrem64(Run *r) {
    int n = r->n = N_ELEM;
    int64_t *a = IN(r, "a", int64_t, ET_I64, n), *b = IN(r, "b", int64_t, ET_I64, n);
    fill_pairs_i64(a, b, n, 18);
    OUT(r, "out", int64_t, ET_I64, 4 * (size_t)n);
    arg_i32(r, n);
}

static void check_int_divrem64(Run *r) {
    int n = r->n;
    const int64_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    int64_t *w = xcalloc(4 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        int64_t x = a[i], y = b[i];
        uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
        bool ok = y != 0 && !(x == INT64_MIN && y == -1);
        w[0 * n + i] = ok ? x / y : 0;
        w[1 * n + i] = ok ? x % y : 0;
        w[2 * n + i] = uy ? (int64_t)(ux / uy) : 0;
        w[3 * n + i] = uy ? (int64_t)(ux % uy) : 0;
    }
    expect_buf(r, 2, w);
    free(w);
}

static void setup_int_minmax(Run *r) { setup_pairs_i32(r, 5, 5, 19); }

static void check_int_minmax(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    int32_t *w = xcalloc(5 * (size_t)n, 4);
    int64_t *w64 = xcalloc(5 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        int32_t x = a[i], y = b[i];
        uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
        w[0 * n + i] = x < y ? x : y;
        w[1 * n + i] = x > y ? x : y;
        w[2 * n + i] = (int32_t)(ux < uy ? ux : uy);
        w[3 * n + i] = (int32_t)(ux > uy ? ux : uy);
        w[4 * n + i] = x < 0 ? (int32_t)(0u - ux) : x;   /* abs(INT_MIN) wraps to INT_MIN */
        int64_t lx = (int64_t)x * 65537, ly = (int64_t)y * 3;
        w64[0 * n + i] = lx < ly ? lx : ly;
        w64[1 * n + i] = lx > ly ? lx : ly;
        w64[2 * n + i] = (int64_t)((uint64_t)lx < (uint64_t)ly ? (uint64_t)lx : (uint64_t)ly);
        w64[3 * n + i] = (int64_t)((uint64_t)lx > (uint64_t)ly ? (uint64_t)lx : (uint64_t)ly);
        w64[4 * n + i] = lx < 0 ? -lx : lx;
    }
    expect_buf(r, 2, w);
    expect_buf(r, 3, w64);
    free(w);
    free(w64);
}

static void setup_int_logic(Run *r) { setup_pairs_i32(r, 6, 4, 20); }

static void check_int_logic(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    int32_t *w = xcalloc(6 * (size_t)n, 4);
    int64_t *w64 = xcalloc(4 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        int32_t x = a[i], y = b[i];
        w[0 * n + i] = x & y;
        w[1 * n + i] = x | y;
        w[2 * n + i] = x ^ y;
        w[3 * n + i] = ~x;
        w[4 * n + i] = !x;
        w[5 * n + i] = (int32_t)(((uint32_t)x & 0xff00ff00u) | (~(uint32_t)y & 0x00ff00ffu));
        int64_t lx = (int64_t)(((uint64_t)(uint32_t)x << 32) | (uint32_t)y);
        int64_t ly = (int64_t)(((uint64_t)(uint32_t)y << 32) ^ (uint32_t)x);
        w64[0 * n + i] = lx & ly;
        w64[1 * n + i] = lx | ly;
        w64[2 * n + i] = lx ^ ly;
        w64[3 * n + i] = ~lx;
    }
    expect_buf(r, 2, w);
    expect_buf(r, 3, w64);
    free(w);
    free(w64);
}

static void setup_int_shift(Run *r) { setup_pairs_i32(r, 4, 3, 21); }

static void check_int_shift(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    int32_t *w = xcalloc(4 * (size_t)n, 4);
    int64_t *w64 = xcalloc(3 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        int32_t x = a[i];
        uint32_t ux = (uint32_t)x, s = (uint32_t)b[i] & 31u, s64 = (uint32_t)b[i] & 63u;
        w[0 * n + i] = (int32_t)(ux << s);
        w[1 * n + i] = x >> s;
        w[2 * n + i] = (int32_t)(ux >> s);
        w[3 * n + i] = (int32_t)(ux << 5) ^ (x >> 3);
        int64_t lx = (int64_t)(((uint64_t)(uint32_t)x << 32) | (uint32_t)b[i]);
        w64[0 * n + i] = (int64_t)((uint64_t)lx << s64);
        w64[1 * n + i] = lx >> s64;
        w64[2 * n + i] = (int64_t)((uint64_t)lx >> s64);
    }
    expect_buf(r, 2, w);
    expect_buf(r, 3, w64);
    free(w);
    free(w64);
}

/* Shift amounts 0..127 so every value past the width is covered. */
static void setup_int_shift_clamp(Run *r) {
    setup_pairs_i32(r, 3, 3, 22);
    int32_t *b = r->bufs[1].host;
    for (int i = 0; i < r->n; i++) b[i] = i % 128;
}

static uint32_t shl32(uint32_t x, uint32_t s) { return s >= 32 ? 0 : x << s; }
static uint32_t shr32(uint32_t x, uint32_t s) { return s >= 32 ? 0 : x >> s; }
static int32_t sar32(int32_t x, uint32_t s) { return s >= 32 ? (x < 0 ? -1 : 0) : x >> s; }
static uint64_t shl64(uint64_t x, uint32_t s) { return s >= 64 ? 0 : x << s; }
static uint64_t shr64(uint64_t x, uint32_t s) { return s >= 64 ? 0 : x >> s; }
static int64_t sar64(int64_t x, uint32_t s) { return s >= 64 ? (x < 0 ? -1 : 0) : x >> s; }

static void check_int_shift_clamp(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    int32_t *w = xcalloc(3 * (size_t)n, 4);
    int64_t *w64 = xcalloc(3 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        uint32_t x = (uint32_t)a[i], s = (uint32_t)b[i];
        w[0 * n + i] = (int32_t)shl32(x, s);
        w[1 * n + i] = (int32_t)shr32(x, s);
        w[2 * n + i] = sar32((int32_t)x, s);
        uint64_t lx = ((uint64_t)x << 32) | (x ^ 0x5a5a5a5au);
        w64[0 * n + i] = (int64_t)shl64(lx, s);
        w64[1 * n + i] = (int64_t)shr64(lx, s);
        w64[2 * n + i] = sar64((int64_t)lx, s);
    }
    expect_buf(r, 2, w);
    expect_buf(r, 3, w64);
    free(w);
    free(w64);
}

/* ---- bit_ops.cu ---------------------------------------------------- */

static void fill_bits(uint32_t *a, uint64_t *b, int n, uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        if (i < 64) {
            a[i] = i < 32 ? (1u << i) : (i < 48 ? ~0u << (i - 32) : (uint32_t)EDGE_I32[(i - 48) % N_EDGE_I32]);
            b[i] = (uint64_t)EDGE_I64[i % N_EDGE_I64] << (i & 7);
        } else {
            uint32_t sh = (uint32_t)(rng_next(&s) % 32);
            a[i] = (uint32_t)rng_next(&s) >> sh;
            b[i] = rng_next(&s) >> (rng_next(&s) % 64);
        }
    }
    a[0] = 0;
    b[0] = 0;
}

static void setup_bit_count(Run *r) {
    int n = r->n = N_ELEM;
    uint32_t *a = IN(r, "a", uint32_t, ET_U32, n);
    uint64_t *b = IN(r, "b", uint64_t, ET_U64, n);
    fill_bits(a, b, n, 31);
    OUT(r, "out", int32_t, ET_I32, 6 * (size_t)n);
    arg_i32(r, n);
}

static int clz32(uint32_t x) { return x ? __builtin_clz(x) : 32; }
static int clz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }

static void check_bit_count(Run *r) {
    int n = r->n;
    const uint32_t *a = r->bufs[0].host;
    const uint64_t *b = r->bufs[1].host;
    int32_t *w = xcalloc(6 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        w[0 * n + i] = __builtin_popcount(a[i]);
        w[1 * n + i] = __builtin_popcountll(b[i]);
        w[2 * n + i] = clz32(a[i]);
        w[3 * n + i] = clz64(b[i]);
        w[4 * n + i] = __builtin_ffs((int)a[i]);
        w[5 * n + i] = __builtin_ffsll((long long)b[i]);
    }
    expect_buf(r, 2, w);
    free(w);
}

static void setup_bit_brev(Run *r) {
    int n = r->n = N_ELEM;
    uint32_t *a = IN(r, "a", uint32_t, ET_U32, n);
    uint64_t *b = IN(r, "b", uint64_t, ET_U64, n);
    fill_bits(a, b, n, 32);
    OUT(r, "out", uint32_t, ET_U32, n);
    OUT(r, "out64", uint64_t, ET_U64, n);
    arg_i32(r, n);
}

static void check_bit_brev(Run *r) {
    int n = r->n;
    const uint32_t *a = r->bufs[0].host;
    const uint64_t *b = r->bufs[1].host;
    uint32_t *w = xcalloc((size_t)n, 4);
    uint64_t *w64 = xcalloc((size_t)n, 8);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 32; k++) if (a[i] >> k & 1) w[i] |= 1u << (31 - k);
        for (int k = 0; k < 64; k++) if (b[i] >> k & 1) w64[i] |= 1ull << (63 - k);
    }
    expect_buf(r, 2, w);
    expect_buf(r, 3, w64);
    free(w);
    free(w64);
}

static void setup_bit_bfind(Run *r) {
    int n = r->n = N_ELEM;
    uint32_t *a = IN(r, "a", uint32_t, ET_U32, n);
    uint64_t *b = IN(r, "b", uint64_t, ET_U64, n);
    fill_bits(a, b, n, 33);
    a[1] = 0xffffffffu;
    b[1] = ~0ull;
    OUT(r, "out", uint32_t, ET_U32, 6 * (size_t)n);
    arg_i32(r, n);
}

/* The PTX ISA's bfind: the most significant non-sign bit, 0xffffffff if none. */
static uint32_t bfind_ref(uint64_t a, int msb, bool is_signed, bool shiftamt) {
    if (is_signed && (a >> msb & 1)) a = ~a;
    uint32_t d = 0xffffffffu;
    for (int i = msb; i >= 0; i--)
        if (a >> i & 1) { d = (uint32_t)i; break; }
    if (shiftamt && d != 0xffffffffu) d = (uint32_t)msb - d;
    return d;
}

static void check_bit_bfind(Run *r) {
    int n = r->n;
    const uint32_t *a = r->bufs[0].host;
    const uint64_t *b = r->bufs[1].host;
    uint32_t *w = xcalloc(6 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        w[0 * n + i] = bfind_ref(a[i], 31, false, false);
        w[1 * n + i] = bfind_ref(a[i], 31, true, false);
        w[2 * n + i] = bfind_ref(a[i], 31, false, true);
        w[3 * n + i] = bfind_ref(b[i], 63, false, false);
        w[4 * n + i] = bfind_ref(b[i], 63, true, false);
        w[5 * n + i] = bfind_ref(a[i], 31, true, true);
    }
    expect_buf(r, 2, w);
    free(w);
}

static void setup_bit_bfe_bfi(Run *r) {
    int n = r->n = N_ELEM;
    uint32_t *a = IN(r, "a", uint32_t, ET_U32, n), *b = IN(r, "b", uint32_t, ET_U32, n);
    uint32_t *p = IN(r, "p", uint32_t, ET_U32, n);
    uint64_t s = 34;
    for (int i = 0; i < n; i++) {
        a[i] = (uint32_t)rng_next(&s);
        b[i] = (uint32_t)rng_next(&s);
        /* pos 0..71 and len 0..71 mostly; sometimes anything up to 255. */
        uint32_t pos = i < 512 ? (uint32_t)(i % 72) : (uint32_t)(rng_next(&s) % 256);
        uint32_t len = i < 512 ? (uint32_t)((i / 72) * 9 % 72) : (uint32_t)(rng_next(&s) % 256);
        p[i] = pos | len << 8 | ((uint32_t)rng_next(&s) & 0xffff0000u);   /* upper bits must be ignored */
    }
    OUT(r, "out", uint32_t, ET_U32, 3 * (size_t)n);
    OUT(r, "out64", uint64_t, ET_U64, 3 * (size_t)n);
    arg_i32(r, n);
}

static uint64_t bfe_ref(uint64_t a, uint32_t pos, uint32_t len, int msb, bool is_signed) {
    uint64_t sbit = 0;
    if (is_signed && len != 0) {
        uint32_t sp = pos + len - 1 < (uint32_t)msb ? pos + len - 1 : (uint32_t)msb;
        sbit = a >> sp & 1;
    }
    uint64_t d = 0;
    for (uint32_t i = 0; i <= (uint32_t)msb; i++) {
        uint64_t bit = (i < len && pos + i <= (uint32_t)msb) ? (a >> (pos + i) & 1) : sbit;
        d |= bit << i;
    }
    return d;
}

static uint64_t bfi_ref(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int msb) {
    uint64_t f = b;
    for (uint32_t i = 0; i < len && pos + i <= (uint32_t)msb; i++)
        f = (f & ~(1ull << (pos + i))) | ((a >> i & 1) << (pos + i));
    return f;
}

static void check_bit_bfe_bfi(Run *r) {
    int n = r->n;
    const uint32_t *a = r->bufs[0].host, *b = r->bufs[1].host, *p = r->bufs[2].host;
    uint32_t *w = xcalloc(3 * (size_t)n, 4);
    uint64_t *w64 = xcalloc(3 * (size_t)n, 8);
    for (int i = 0; i < n; i++) {
        uint32_t x = a[i], y = b[i], pos = p[i] & 0xff, len = p[i] >> 8 & 0xff;
        w[0 * n + i] = (uint32_t)bfe_ref(x, pos, len, 31, false);
        w[1 * n + i] = (uint32_t)bfe_ref(x, pos, len, 31, true);
        w[2 * n + i] = (uint32_t)bfi_ref(x, y, pos, len, 31);
        uint64_t lx = ((uint64_t)x << 32) | y, ly = ((uint64_t)y << 32) | (uint32_t)~x;
        w64[0 * n + i] = bfe_ref(lx, pos, len, 63, false);
        w64[1 * n + i] = bfe_ref(lx, pos, len, 63, true);
        w64[2 * n + i] = bfi_ref(lx, ly, pos, len, 63);
    }
    expect_buf(r, 3, w);
    expect_buf(r, 4, w64);
    free(w);
    free(w64);
}

static void setup_bit_prmt(Run *r) {
    int n = r->n = N_ELEM;
    uint32_t *a = IN(r, "a", uint32_t, ET_U32, n), *b = IN(r, "b", uint32_t, ET_U32, n);
    uint32_t *s = IN(r, "s", uint32_t, ET_U32, n);
    uint64_t st = 35;
    for (int i = 0; i < n; i++) {
        a[i] = (uint32_t)rng_next(&st);
        b[i] = (uint32_t)rng_next(&st);
        s[i] = (uint32_t)rng_next(&st);   /* upper 16 bits must be ignored; msb of each nibble replicates the sign */
    }
    OUT(r, "out", uint32_t, ET_U32, 4 * (size_t)n);
    arg_i32(r, n);
}

/* prmt.b32 in the generic mode, per the PTX ISA. */
static uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c) {
    uint64_t tmp = ((uint64_t)b << 32) | a;
    uint32_t d = 0;
    for (int k = 0; k < 4; k++) {
        uint32_t ctl = c >> (4 * k) & 0xf;
        uint32_t byte = (uint32_t)(tmp >> (8 * (ctl & 7)) & 0xff);
        if (ctl & 8) byte = (byte & 0x80) ? 0xff : 0;
        d |= byte << (8 * k);
    }
    return d;
}

static void check_bit_prmt(Run *r) {
    int n = r->n;
    const uint32_t *a = r->bufs[0].host, *b = r->bufs[1].host, *s = r->bufs[2].host;
    uint32_t *w = xcalloc(4 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        w[0 * n + i] = prmt_ref(a[i], b[i], s[i] & 0x7777);   /* __byte_perm uses 3 bits per selector */
        w[1 * n + i] = prmt_ref(a[i], b[i], s[i]);
        w[2 * n + i] = prmt_ref(a[i], 0, 0x0123);
        w[3 * n + i] = prmt_ref(a[i], b[i], 0x7531);
    }
    expect_buf(r, 3, w);
    free(w);
}

static void setup_bit_funnel(Run *r) {
    int n = r->n = N_ELEM;
    uint32_t *a = IN(r, "a", uint32_t, ET_U32, n), *b = IN(r, "b", uint32_t, ET_U32, n);
    uint32_t *s = IN(r, "s", uint32_t, ET_U32, n);
    uint64_t st = 36;
    for (int i = 0; i < n; i++) {
        a[i] = (uint32_t)rng_next(&st);
        b[i] = (uint32_t)rng_next(&st);
        s[i] = i < 512 ? (uint32_t)(i % 80) : (uint32_t)rng_next(&st);
    }
    OUT(r, "out", uint32_t, ET_U32, 4 * (size_t)n);
    arg_i32(r, n);
}

/* shf.{l,r}.{wrap,clamp}.b32 per the PTX ISA (the 64-bit value is hi:lo). */
static uint32_t shf_ref(uint32_t lo, uint32_t hi, uint32_t c, bool left, bool clamp) {
    uint32_t sh = clamp ? (c < 32 ? c : 32) : (c & 31);
    uint64_t v = ((uint64_t)hi << 32) | lo;
    if (left) return (uint32_t)((sh >= 64 ? 0 : v << sh) >> 32);
    return (uint32_t)(v >> sh);
}

static void check_bit_funnel(Run *r) {
    int n = r->n;
    const uint32_t *a = r->bufs[0].host, *b = r->bufs[1].host, *s = r->bufs[2].host;
    uint32_t *w = xcalloc(4 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        w[0 * n + i] = shf_ref(a[i], b[i], s[i], true, false);
        w[1 * n + i] = shf_ref(a[i], b[i], s[i], true, true);
        w[2 * n + i] = shf_ref(a[i], b[i], s[i], false, false);
        w[3 * n + i] = shf_ref(a[i], b[i], s[i], false, true);
    }
    expect_buf(r, 3, w);
    free(w);
}

/* bmsk: every (start, width) in 0..40 x 0..40 (start or width >= 32 in
 * both modes, start + width past the top), then random words. */
static void setup_bit_bmsk(Run *r) {
    int n = r->n = 41 * 41 + 279;
    uint32_t *a = IN(r, "a", uint32_t, ET_U32, n), *b = IN(r, "b", uint32_t, ET_U32, n);
    uint64_t st = 37;
    for (int i = 0; i < n; i++) {
        a[i] = i < 41 * 41 ? (uint32_t)(i / 41) : (uint32_t)rng_next(&st);
        b[i] = i < 41 * 41 ? (uint32_t)(i % 41) : (i & 1) ? (uint32_t)rng_next(&st) % 40 : (uint32_t)rng_next(&st);
    }
    OUT(r, "out", uint32_t, ET_U32, 4 * (size_t)n);
    arg_i32(r, n);
}

/* bmsk.{clamp,wrap}.b32 as the PTX ISA's pseudocode puts it. */
static uint32_t bmsk_ref(uint32_t a, uint32_t b, bool clamp) {
    uint32_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
    bool overflow = sum >= 32;
    if (clamp && a >= 32) { overflow = true; mask0 = 0; }
    if (clamp && b >= 32) overflow = true;
    if (overflow) mask1 = 0;
    else if (b1 == 0) mask1 = ~0u;
    return mask0 & ~mask1;
}

/* lop3: random words and edge words (0, all ones, alternating bits). */
static void setup_bit_lop3(Run *r) {
    int n = r->n = 512;
    uint32_t *a = IN(r, "a", uint32_t, ET_U32, n), *b = IN(r, "b", uint32_t, ET_U32, n),
             *c = IN(r, "c", uint32_t, ET_U32, n);
    static const uint32_t edge[] = {0, ~0u, 0x55555555u, 0xaaaaaaaau, 0x0f0f0f0fu, 0x80000001u};
    uint64_t st = 41;
    for (int i = 0; i < n; i++) {
        a[i] = i < 216 ? edge[i % 6] : (uint32_t)rng_next(&st);
        b[i] = i < 216 ? edge[i / 6 % 6] : (uint32_t)rng_next(&st);
        c[i] = i < 216 ? edge[i / 36] : (uint32_t)rng_next(&st);
    }
    OUT(r, "out", uint32_t, ET_U32, 10 * (size_t)n);
    arg_i32(r, n);
}

/* lop3.b32 as the PTX ISA defines it: bit k of d is bit (a_k << 2 | b_k << 1 | c_k) of immLut. */
static uint32_t lop3_ref(uint32_t a, uint32_t b, uint32_t c, unsigned lut) {
    uint32_t d = 0;
    for (int k = 0; k < 32; k++) {
        unsigned idx = (a >> k & 1) << 2 | (b >> k & 1) << 1 | (c >> k & 1);
        d |= (uint32_t)(lut >> idx & 1) << k;
    }
    return d;
}

static void check_bit_lop3(Run *r) {
    static const unsigned luts[10] = {0x00, 0xFF, 0xF0, 0xCC, 0xAA, 0x96, 0xE8, 0xCA, 0x1B, 0x6A};
    int n = r->n;
    const uint32_t *a = r->bufs[0].host, *b = r->bufs[1].host, *c = r->bufs[2].host;
    uint32_t *w = xcalloc(10 * (size_t)n, 4);
    for (int k = 0; k < 10; k++)
        for (int i = 0; i < n; i++) w[k * n + i] = lop3_ref(a[i], b[i], c[i], luts[k]);
    expect_buf(r, 3, w);
    free(w);
}

static void check_bit_bmsk(Run *r) {
    int n = r->n;
    const uint32_t *a = r->bufs[0].host, *b = r->bufs[1].host;
    uint32_t *w = xcalloc(4 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        w[0 * n + i] = bmsk_ref(a[i], b[i], true);
        w[1 * n + i] = bmsk_ref(a[i], b[i], false);
        w[2 * n + i] = bmsk_ref(1, b[i], false);
        w[3 * n + i] = bmsk_ref(a[i], 32, true);
    }
    expect_buf(r, 2, w);
    free(w);
}

#endif
