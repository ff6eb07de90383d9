/* tests/conformance/cases_par.h: setups and CPU references for the kernels
 * whose threads cooperate: atomics.cu, sync_warp.cu, control.cu,
 * templates.cu, io.cu, algos.cu and coop_groups.cu.
 *
 * Warp intrinsics are checked against the PTX ISA's definitions (shfl.sync's
 * clamp/segment rule, vote, match, redux) evaluated per warp in C. Results
 * that depend on the order threads run in (atomicExch's old values, CAS
 * tickets) are checked for the property that must hold in every order (a
 * permutation, a chain of prefix sums) and are not compared with the GPU. */
#ifndef CUDOJO_TESTS_CONFORMANCE_CASES_PAR_H
#define CUDOJO_TESTS_CONFORMANCE_CASES_PAR_H

#include "tests/conformance/harness.h"

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* ---- atomics.cu ------------------------------------------------------ */

#define ATOM_N 1000

static void setup_atom_global_int(Run *r) {
    int n = r->n = ATOM_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 101;
    for (int i = 0; i < n; i++) a[i] = (i < N_EDGE_I32) ? EDGE_I32[i] : (int32_t)rng_next(&s) >> (rng_next(&s) % 31);
    int32_t *acc = OUT(r, "acc", int32_t, ET_I32, 10);
    acc[2] = INT32_MAX;
    acc[3] = INT32_MIN;
    acc[4] = -1;           /* UINT_MAX for the unsigned min */
    acc[6] = -1;
    uint64_t *acc64 = OUT(r, "acc64", uint64_t, ET_U64, 3);
    acc64[2] = (uint64_t)INT64_MAX;
    OUT(r, "olds", int32_t, ET_I32, n);
    LAST_BUF(r)->nondeterministic = true;
    arg_i32(r, n);
}

static void check_atom_global_int(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *olds = r->bufs[3].host;
    int32_t w[10] = {0, 0, INT32_MAX, INT32_MIN, -1, 0, -1, 0, 0, 0};
    uint64_t w64[3] = {0, 0, (uint64_t)INT64_MAX};
    for (int i = 0; i < n; i++) {
        int32_t v = a[i];
        w[0] = (int32_t)((uint32_t)w[0] + (uint32_t)v);
        w[1] = (int32_t)((uint32_t)w[1] + (uint32_t)v * 3u);
        if (v < w[2]) w[2] = v;
        if (v > w[3]) w[3] = v;
        if ((uint32_t)v < (uint32_t)w[4]) w[4] = v;
        if ((uint32_t)v > (uint32_t)w[5]) w[5] = v;
        w[6] &= (int32_t)(~(1u << (i & 31)) | (uint32_t)v);
        w[7] |= (int32_t)((uint32_t)v & (0x10001u << (i & 15)));
        w[8] ^= v;
        w[9] += (i % 7) + 1;
        w64[0] += (uint64_t)(uint32_t)v << 8;
        uint64_t m = (uint64_t)(uint32_t)v * 0x10001ull;
        if (m > w64[1]) w64[1] = m;
        int64_t p = (int64_t)v * 1000003ll;
        if (p < (int64_t)w64[2]) w64[2] = (uint64_t)p;
    }
    expect_buf_ex(r, 1, w, 0, NULL);
    expect_buf_ex(r, 2, w64, 0, NULL);
    /* The values atomicAdd returned, in increasing order, must chain from 0. */
    int *order = xcalloc((size_t)n, sizeof *order);
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 1; i < n; i++)   /* insertion sort by olds: n is small */
        for (int j = i; j > 0 && olds[order[j]] < olds[order[j - 1]]; j--) {
            int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
        }
    int32_t expect_old = 0;
    for (int k = 0; k < n; k++) {
        if (olds[order[k]] != expect_old) {
            run_fail(r, "  olds: the %d-th smallest old value is %d, want %d (a lost or duplicated atomicAdd)", k,
                     olds[order[k]], expect_old);
            break;
        }
        expect_old += (order[k] % 7) + 1;
    }
    free(order);
}

static void setup_atom_global_float(Run *r) {
    int n = r->n = ATOM_N;
    float *a = IN(r, "a", float, ET_F32, n);
    double *b = IN(r, "b", double, ET_F64, n);
    uint64_t s = 102;
    for (int i = 0; i < n; i++) {
        a[i] = (float)((int)(rng_next(&s) % 201) - 100) * 0.5f;    /* sums are exact in any order */
        b[i] = (double)((int)(rng_next(&s) % 2001) - 1000) * 0.25;
    }
    OUT(r, "accf", float, ET_F32, 5);
    OUT(r, "accd", double, ET_F64, 1);
    arg_i32(r, n);
}

static void check_atom_global_float(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    const double *b = r->bufs[1].host;
    float wf[5] = {0};
    double wd = 0;
    for (int i = 0; i < n; i++) {
        wf[0] += a[i];
        wd += b[i];
        wf[1 + (i & 3)] += 0.25f;
    }
    expect_buf_ex(r, 2, wf, 0, NULL);
    expect_buf_ex(r, 3, &wd, 0, NULL);
}

/* One block of 256 threads; global words start at FLT_MIN (acc[8] at a
 * subnormal), every thread adds k * 2^-149 with k < 2^16. */
static void setup_atom_f32_subnormal(Run *r) {
    int n = r->n = 256;
    uint32_t *k = IN(r, "k", uint32_t, ET_U32, n);
    uint64_t s = 103;
    for (int i = 0; i < n; i++) k[i] = (uint32_t)rng_next(&s) & 0xffff;
    float *acc = OUT(r, "acc", float, ET_F32, 9);
    for (int i = 0; i < 4; i++) acc[i] = FLT_MIN;
    acc[8] = u2f(5);
    arg_i32(r, n);
}

static void check_atom_f32_subnormal(Run *r) {
    int n = r->n;
    const uint32_t *k = r->bufs[0].host;
    float w[9] = {FLT_MIN, FLT_MIN, FLT_MIN, FLT_MIN, 0, 0, 0, 0, 0};   /* global: the subnormals flushed */
    for (int i = 0; i < n; i++) w[4 + (i & 3)] += u2f(k[i]);             /* shared: exact */
    expect_buf_ex(r, 1, w, 0, NULL);
}

#define INC_LIMIT 17u

static void setup_atom_inc_dec_exch(Run *r) {
    int n = r->n = ATOM_N;
    uint32_t *ctr = OUT(r, "ctr", uint32_t, ET_U32, 4);
    ctr[2] = 5;
    OUT(r, "exch_old", int32_t, ET_I32, n);
    LAST_BUF(r)->nondeterministic = true;
    int32_t *slot = OUT(r, "slot", int32_t, ET_I32, 1);
    slot[0] = -1;
    LAST_BUF(r)->nondeterministic = true;
    arg_i32(r, n);
    arg_u32(r, INC_LIMIT);
}

static void check_atom_inc_dec_exch(Run *r) {
    int n = r->n;
    const int32_t *olds = r->bufs[1].host, *slot = r->bufs[2].host;
    uint32_t w[4] = {0, 0, 5, f2u(2.5f)};
    for (int i = 0; i < n; i++) {
        w[0] = w[0] >= INC_LIMIT ? 0 : w[0] + 1;                        /* atom.inc */
        w[1] = (w[1] == 0 || w[1] > INC_LIMIT) ? INC_LIMIT : w[1] - 1;  /* atom.dec */
        w[2] = w[2] + 1;
    }
    expect_buf_ex(r, 0, w, 0, NULL);
    /* The old values and the final value are {-1, 0, ..., n-1} in some order. */
    int32_t *all = xcalloc((size_t)n + 1, 4);
    memcpy(all, olds, (size_t)n * 4);
    all[n] = slot[0];
    qsort(all, (size_t)n + 1, 4, cmp_i32);
    for (int k = 0; k <= n; k++)
        if (all[k] != k - 1) {
            run_fail(r, "  atomicExch: old values + final value are not a permutation of -1..%d (sorted[%d] = %d)", n - 1,
                     k, all[k]);
            break;
        }
    free(all);
}

#define CAS_N 512

static void setup_atom_cas(Run *r) {
    int n = r->n = CAS_N;
    OUT(r, "ctr", uint32_t, ET_U32, 1);
    OUT(r, "ticket", uint32_t, ET_U32, n);
    LAST_BUF(r)->nondeterministic = true;
    OUT(r, "ctr64", uint64_t, ET_U64, 1);
    arg_i32(r, n);
}

static void check_atom_cas(Run *r) {
    int n = r->n;
    const uint32_t *ctr = r->bufs[0].host;
    const uint64_t *ctr64 = r->bufs[2].host;
    int32_t *t = xcalloc((size_t)n, 4);
    memcpy(t, r->bufs[1].host, (size_t)n * 4);
    qsort(t, (size_t)n, 4, cmp_i32);
    for (int k = 0; k < n; k++)
        if (t[k] != k) {
            run_fail(r, "  tickets are not a permutation of 0..%d (sorted[%d] = %d)", n - 1, k, t[k]);
            break;
        }
    free(t);
    expect_true(r, ctr[0] == (uint32_t)n, "ctr must count every CAS increment");
    expect_true(r, ctr64[0] == (uint64_t)n * 0x100000001ull, "ctr64 must count every 64-bit CAS increment");
}

#define ATOM_BLOCKS 4
#define ATOM_THREADS 256

static void setup_atom_shared(Run *r) {
    int n = r->n = ATOM_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 104;
    for (int i = 0; i < n; i++) a[i] = (int32_t)rng_next(&s) >> (rng_next(&s) % 31);
    OUT(r, "out", int32_t, ET_I32, 16 * ATOM_BLOCKS);
    arg_i32(r, n);
}

static void check_atom_shared(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    int32_t w[16 * ATOM_BLOCKS] = {0};
    for (int blk = 0; blk < ATOM_BLOCKS; blk++) {
        int32_t s[7] = {0, INT32_MAX, INT32_MIN, -1, 0, 0, 0};
        uint32_t su[4] = {0, 0, 0xffffffffu, 0};
        float sf = 0;
        uint64_t s64 = 0;
        for (int t = 0; t < ATOM_THREADS; t++) {
            int i = blk * ATOM_THREADS + t;
            int32_t v = i < n ? a[i] : 0;
            s[0] = (int32_t)((uint32_t)s[0] + (uint32_t)v);
            if (v < s[1]) s[1] = v;
            if (v > s[2]) s[2] = v;
            s[3] &= v | (int32_t)(1u << (t & 31));
            s[4] |= v & 0x0f0f0f0f;
            s[5] ^= v;
            s[6] = 5;
            su[3] += 2;
            su[0] = su[0] >= 9u ? 0 : su[0] + 1;
            su[1] = (su[1] == 0 || su[1] > 6u) ? 6u : su[1] - 1;
            if ((uint32_t)v < su[2]) su[2] = (uint32_t)v;
            sf += 0.5f;
            s64 += (uint64_t)(uint32_t)v;
        }
        int32_t *o = w + blk * 16;
        for (int k = 0; k < 7; k++) o[k] = s[k];
        for (int k = 0; k < 4; k++) o[7 + k] = (int32_t)su[k];
        o[11] = (int32_t)f2u(sf);
        o[12] = (int32_t)(uint32_t)s64;
        o[13] = (int32_t)(uint32_t)(s64 >> 32);
    }
    expect_buf_ex(r, 1, w, 16, NULL);
}

static void setup_atom_generic(Run *r) {
    int n = r->n = ATOM_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 105;
    for (int i = 0; i < n; i++) a[i] = (int32_t)(rng_next(&s) % 200001) - 100000;
    int32_t *g = OUT(r, "gacc", int32_t, ET_I32, 2);
    g[1] = -1000000;
    OUT(r, "gaccf", float, ET_F32, 1);
    OUT(r, "out", int32_t, ET_I32, 3 * ATOM_BLOCKS);
    arg_i32(r, n);
}

static void check_atom_generic(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    int32_t g[2] = {0, -1000000}, w[3 * ATOM_BLOCKS];
    float gf = 0;
    for (int blk = 0; blk < ATOM_BLOCKS; blk++) {
        int32_t sum = 0, mx = -1000000, cnt = 0;
        for (int t = 0; t < ATOM_THREADS; t++) {
            int i = blk * ATOM_THREADS + t;
            if (i >= n) continue;
            sum += a[i];
            if (a[i] > mx) mx = a[i];
            cnt++;
            g[0] += a[i];
            if (a[i] > g[1]) g[1] = a[i];
            gf += 2.0f;
        }
        w[3 * blk + 0] = sum;
        w[3 * blk + 1] = mx;
        w[3 * blk + 2] = cnt;
    }
    expect_buf_ex(r, 1, g, 0, NULL);
    expect_buf_ex(r, 2, &gf, 0, NULL);
    expect_buf_ex(r, 3, w, 0, NULL);
}

/* ---- sync_warp.cu ----------------------------------------------------------- */

#define VOTE_BLOCKS 6
#define VOTE_THREADS 128

static void setup_sync_votes(Run *r) {
    int n = r->n = 700;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 111;
    for (int i = 0; i < n; i++) {
        int blk = i / VOTE_THREADS;
        int32_t v = (int32_t)(rng_next(&s) % 201) - 100;
        if (blk == 0) v = 1 + (int32_t)(rng_next(&s) % 100);                /* all > 0, none > 100 */
        if (blk == 1) v = 1 + (int32_t)(rng_next(&s) % 100) + (i % 50 == 7 ? 100 : 0);
        if (blk == 3) v = -(int32_t)(rng_next(&s) % 100);                   /* none > 0 */
        a[i] = v;
    }
    OUT(r, "out", int32_t, ET_I32, 3 * VOTE_BLOCKS);
    arg_i32(r, n);
}

static void check_sync_votes(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    int32_t w[3 * VOTE_BLOCKS];
    for (int blk = 0; blk < VOTE_BLOCKS; blk++) {
        int c = 0, all = 1, any = 0;
        for (int t = 0; t < VOTE_THREADS; t++) {
            int i = blk * VOTE_THREADS + t;
            int v = i < n ? a[i] : 0;
            c += v > 0;
            all &= v > 0;
            any |= v > 100;
        }
        w[3 * blk] = c;
        w[3 * blk + 1] = all;
        w[3 * blk + 2] = any;
    }
    expect_buf_ex(r, 1, w, 3, NULL);
}

#define FENCE_BLOCKS 8
#define FENCE_THREADS 256

static void setup_sync_fence(Run *r) {
    int n = r->n = FENCE_BLOCKS * FENCE_THREADS;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 112;
    for (int i = 0; i < n; i++) a[i] = (int32_t)(rng_next(&s) % 2001) - 1000;
    OUT(r, "partial", int32_t, ET_I32, FENCE_BLOCKS);
    OUT(r, "ticket", uint32_t, ET_U32, 1);
    OUT(r, "total", int32_t, ET_I32, 1);
    OUT(r, "swapped", int32_t, ET_I32, n);
    arg_i32(r, n);
}

static void check_sync_fence(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    int32_t part[FENCE_BLOCKS] = {0}, total = 0;
    uint32_t ticket = FENCE_BLOCKS;
    int32_t *sw = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        part[i / FENCE_THREADS] += a[i];
        total += a[i];
        sw[i] = a[i ^ 1];
    }
    expect_buf_ex(r, 1, part, 0, NULL);
    expect_buf_ex(r, 2, &ticket, 0, NULL);
    expect_buf_ex(r, 3, &total, 0, NULL);
    expect_buf_ex(r, 4, sw, 0, NULL);
    free(sw);
}

typedef enum ShflMode { SH_UP, SH_DOWN, SH_BFLY, SH_IDX } ShflMode;

/* shfl.sync per the PTX ISA: which lane `lane` reads (its own when out of range).
 * c = ((32 - width) << 8) | clamp, as CUDA's __shfl*_sync pass it. */
static int shfl_src(ShflMode mode, int lane, uint32_t b, int width) {
    uint32_t segmask = (uint32_t)(32 - width) & 0x1f;
    uint32_t cval = mode == SH_UP ? 0 : 0x1f;
    int bval = (int)(b & 0x1f);
    int max_lane = (int)(((uint32_t)lane & segmask) | (cval & ~segmask));
    int min_lane = (int)((uint32_t)lane & segmask);
    int j;
    bool ok;
    switch (mode) {
    case SH_UP: j = lane - bval; ok = j >= max_lane; break;
    case SH_DOWN: j = lane + bval; ok = j <= max_lane; break;
    case SH_BFLY: j = lane ^ bval; ok = j <= max_lane; break;
    default: j = min_lane | (int)((uint32_t)bval & ~segmask); ok = j <= max_lane; break;
    }
    return ok ? j : lane;
}

#define WARP_N 128   /* 2 blocks of 64: four full warps */

static void setup_shfl_modes(Run *r) {
    int n = r->n = WARP_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    float *f = IN(r, "f", float, ET_F32, n);
    int32_t *src = IN(r, "src", int32_t, ET_I32, n);
    uint64_t s = 113;
    for (int i = 0; i < n; i++) {
        a[i] = (int32_t)rng_next(&s);
        f[i] = rand_f32_in(&s, -10.0f, 10.0f);
        src[i] = (int32_t)(rng_next(&s) % 64);     /* >= 32 wraps: only 5 bits count */
    }
    OUT(r, "out", int32_t, ET_I32, 5 * (size_t)n);
    OUT(r, "outf", float, ET_F32, 3 * (size_t)n);
    arg_i32(r, n);
}

static void check_shfl_modes(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host, *src = r->bufs[2].host;
    const float *f = r->bufs[1].host;
    int32_t *w = xcalloc(5 * (size_t)n, 4);
    float *wf = xcalloc(3 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int lane = i & 31, base = i - lane, t = i % 64;
        w[0 * n + i] = a[base + shfl_src(SH_UP, lane, 3, 32)];
        w[1 * n + i] = a[base + shfl_src(SH_DOWN, lane, 5, 32)];
        w[2 * n + i] = a[base + shfl_src(SH_BFLY, lane, 7, 32)];
        w[3 * n + i] = a[base + shfl_src(SH_IDX, lane, (uint32_t)(t * 7) & 31, 32)];
        w[4 * n + i] = a[base + shfl_src(SH_IDX, lane, (uint32_t)src[i], 32)];
        wf[0 * n + i] = f[base + shfl_src(SH_DOWN, lane, 1, 32)];
        wf[1 * n + i] = f[base + shfl_src(SH_BFLY, lane, 16, 32)];
        wf[2 * n + i] = (float)((double)f[base + shfl_src(SH_UP, lane, 1, 32)] * 3.0);
    }
    expect_buf(r, 3, w);
    expect_buf(r, 4, wf);
    free(w);
    free(wf);
}

static void setup_shfl_width(Run *r) {
    int n = r->n = WARP_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    for (int i = 0; i < n; i++) a[i] = i * 1000 + 7;
    OUT(r, "out", int32_t, ET_I32, 7 * (size_t)n);
    arg_i32(r, n);
}

static void check_shfl_width(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    int32_t *w = xcalloc(7 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int lane = i & 31, base = i - lane;
        w[0 * n + i] = a[base + shfl_src(SH_IDX, lane, 3, 8)];
        w[1 * n + i] = a[base + shfl_src(SH_UP, lane, 2, 8)];
        w[2 * n + i] = a[base + shfl_src(SH_DOWN, lane, 3, 16)];
        w[3 * n + i] = a[base + shfl_src(SH_BFLY, lane, 4, 8)];
        w[4 * n + i] = a[base + shfl_src(SH_BFLY, lane, 8, 4)];
        w[5 * n + i] = a[base + shfl_src(SH_IDX, lane, 13, 4)];
        w[6 * n + i] = a[base + shfl_src(SH_DOWN, lane, 1, 2)];
    }
    expect_buf(r, 1, w);
    free(w);
}

static const uint32_t SHFL_ANY_C[12] = {0x141e, 0x141e, 0x141e, 0x141e, 0x0810, 0x0810, 0x0810, 0x0810,
                                         0x001f, 0x0005, 0x1f00, 0x1c07};

/* The ISA's shfl.sync pseudocode for any c: the lane read (own when !ok). */
static int shfl_src_c(ShflMode mode, int lane, uint32_t b, uint32_t c, bool *ok) {
    int bval = (int)(b & 31), cval = (int)(c & 31), seg = (int)((c >> 8) & 31);
    int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg, j;
    switch (mode) {
    case SH_UP: j = lane - bval; *ok = j >= maxl; break;
    case SH_DOWN: j = lane + bval; *ok = j <= maxl; break;
    case SH_BFLY: j = lane ^ bval; *ok = j <= maxl; break;
    default: j = minl | (bval & ~seg); *ok = j <= maxl; break;
    }
    return *ok ? j : lane;
}

static void setup_shfl_any_c(Run *r) {
    int n = r->n = WARP_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint32_t *b = IN(r, "b", uint32_t, ET_U32, n);
    uint64_t s = 116;
    for (int i = 0; i < n; i++) {
        a[i] = i * 1000 + 7;
        b[i] = (i < 32) ? (uint32_t)i : (uint32_t)(rng_next(&s) % 70);   /* warp 0: lane = delta */
    }
    OUT(r, "out", int32_t, ET_I32, 12 * (size_t)n);
    OUT(r, "outp", uint32_t, ET_U32, 12 * (size_t)n);
    arg_i32(r, n);
}

static void check_shfl_any_c(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    const uint32_t *b = r->bufs[1].host;
    int32_t *w = xcalloc(12 * (size_t)n, 4);
    uint32_t *wp = xcalloc(12 * (size_t)n, 4);
    static const ShflMode modes[4] = {SH_UP, SH_DOWN, SH_BFLY, SH_IDX};
    for (int k = 0; k < 12; k++)
        for (int i = 0; i < n; i++) {
            int lane = i & 31, base = i - lane;
            bool ok;
            int j = shfl_src_c(modes[k % 4], lane, b[i], SHFL_ANY_C[k], &ok);
            w[k * n + i] = a[base + j];
            wp[k * n + i] = ok;
        }
    expect_buf(r, 2, w);
    expect_buf(r, 3, wp);
    free(w);
    free(wp);
}

static void setup_warp_vote(Run *r) {
    int n = r->n = WARP_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 114;
    for (int i = 0; i < n; i++) {
        int warp = i / 32;
        a[i] = warp == 1 ? 1 + (int32_t)(rng_next(&s) % 40)                 /* all > 0, none > 50 */
             : warp == 2 ? -(int32_t)(rng_next(&s) % 100)                   /* some <= -90 */
                         : (int32_t)(rng_next(&s) % 181) - 80;
    }
    OUT(r, "out", uint32_t, ET_U32, 6 * (size_t)n);
    arg_i32(r, n);
}

static void check_warp_vote(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    uint32_t *w = xcalloc(6 * (size_t)n, 4);
    for (int base = 0; base < n; base += 32) {
        uint32_t ballot = 0, odd_pos = 0, sub = 0;
        bool any = false, all = true;
        for (int l = 0; l < 32; l++) {
            int v = a[base + l];
            ballot |= (uint32_t)(v > 0) << l;
            any |= v > 50;
            all &= v > -90;
            if (l & 1) odd_pos |= (uint32_t)(v > 0) << l;
            if (l < 20) sub |= (uint32_t)(v & 1) << l;
        }
        for (int l = 0; l < 32; l++) {
            int i = base + l;
            w[0 * n + i] = ballot;
            w[1 * n + i] = any;
            w[2 * n + i] = all;
            w[3 * n + i] = 0xffffffffu;
            w[4 * n + i] = (l & 1) ? 0xaaaaaaaau ^ (odd_pos << 1) : (l < 10 ? 0x155u | 0x80000000u : 0);
            w[5 * n + i] = l < 20 ? sub : 0;
        }
    }
    expect_buf(r, 1, w);
    free(w);
}

static void setup_warp_match_reduce(Run *r) {
    int n = r->n = WARP_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 115;
    for (int i = 0; i < n; i++) {
        int warp = i / 32;
        a[i] = warp == 0 ? (int32_t)(rng_next(&s) % 41) - 20
             : warp == 1 ? (int32_t)(rng_next(&s) % 8)
             : warp == 2 ? 5 : (int32_t)rng_next(&s);
    }
    OUT(r, "out", uint32_t, ET_U32, 12 * (size_t)n);
    arg_i32(r, n);
}

static void check_warp_match_reduce(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    uint32_t *w = xcalloc(12 * (size_t)n, 4);
    for (int base = 0; base < n; base += 32) {
        const int32_t *v = a + base;
        bool same = true;
        uint32_t sum = 0, andv = 0xffffffffu, orv = 0, xorv = 0;
        int32_t mn = INT32_MAX, mx = INT32_MIN;
        for (int l = 0; l < 32; l++) {
            same &= v[l] == v[0];
            sum += (uint32_t)v[l];
            if (v[l] < mn) mn = v[l];
            if (v[l] > mx) mx = v[l];
            andv &= (uint32_t)v[l] | 0x100u;
            orv |= (uint32_t)v[l] & 0xf0u;
            xorv ^= (uint32_t)v[l];
        }
        for (int l = 0; l < 32; l++) {
            int i = base + l;
            uint32_t m3 = 0, m64 = 0;
            for (int k = 0; k < 32; k++) {
                m3 |= (uint32_t)((v[k] & 3) == (v[l] & 3)) << k;
                m64 |= (uint32_t)((v[k] & 1) == (v[l] & 1)) << k;
            }
            w[0 * n + i] = m3;
            w[1 * n + i] = 0xffffffffu;
            w[2 * n + i] = 1;
            w[3 * n + i] = same ? 0xffffffffu : 0;
            w[4 * n + i] = same;
            w[5 * n + i] = sum;
            w[6 * n + i] = (uint32_t)mn;
            w[7 * n + i] = (uint32_t)mx;
            w[8 * n + i] = andv;
            w[9 * n + i] = orv;
            w[10 * n + i] = xorv;
            w[11 * n + i] = m64;
        }
    }
    expect_buf(r, 1, w);
    free(w);
}

/* Simulates one warp's shfl.down reduction; lane 0's value is the sum. */
static float warp_sum_down(const float *in32, int width) {
    float v[32], nv[32];
    memcpy(v, in32, sizeof v);
    for (int off = width / 2; off > 0; off >>= 1) {
        for (int l = 0; l < 32; l++) nv[l] = v[l] + v[shfl_src(SH_DOWN, l, (uint32_t)off, width)];
        memcpy(v, nv, sizeof v);
    }
    return v[0];
}

#define SHRED_BLOCKS 16
#define SHRED_THREADS 256

static void setup_shfl_reduce(Run *r) {
    int n = r->n = 4000;
    float *a = IN(r, "a", float, ET_F32, n);
    uint64_t s = 116;
    for (int i = 0; i < n; i++) a[i] = rand_f32_in(&s, -1.0f, 1.0f);
    OUT(r, "out", float, ET_F32, SHRED_BLOCKS);
    arg_i32(r, n);
}

static void check_shfl_reduce(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    float w[SHRED_BLOCKS];
    for (int b = 0; b < SHRED_BLOCKS; b++) {
        float sums[32] = {0}, lanes[32];
        for (int wp = 0; wp < SHRED_THREADS / 32; wp++) {
            for (int l = 0; l < 32; l++) {
                int i = b * SHRED_THREADS + wp * 32 + l;
                lanes[l] = i < n ? a[i] : 0.0f;
            }
            sums[wp] = warp_sum_down(lanes, 32);
        }
        w[b] = warp_sum_down(sums, 32);
    }
    expect_buf_ex(r, 1, w, 0, NULL);
}

/* ---- control.cu, templates.cu ------------------------------------------- */

static void setup_ctrl_divergent_loops(Run *r) {
    int n = r->n = ATOM_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 121;
    for (int i = 0; i < n; i++) a[i] = (int32_t)(rng_next(&s) % 1051) - 50;
    OUT(r, "out", int32_t, ET_I32, n);
    arg_i32(r, n);
}

static void check_ctrl_divergent_loops(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    int32_t *w = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int v = a[i], acc = 0;
        for (int rr = 0; rr < (v & 7); rr++) {
            for (int c = 0; c <= rr + (i & 3); c++) {
                if ((rr + c) % 3 == 0) continue;
                acc += rr * c + 1;
                if (acc > 200 + (v & 63)) break;
            }
            if (v & 8) acc ^= rr;
            else acc += 2;
        }
        switch (v % 4) {
        case 0: acc *= 3; break;
        case 1: acc -= 7; break;
        case 2: acc = -acc; break;
        default: break;
        }
        int steps = 0;
        while (v > 1 && steps < 40) { v = (v & 1) ? 3 * v + 1 : v / 2; steps++; }
        w[i] = acc * 64 + steps;
    }
    expect_buf(r, 1, w);
    free(w);
}

static void setup_ctrl_early_return(Run *r) {
    int n = r->n = ATOM_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 122;
    for (int i = 0; i < n; i++) a[i] = (int32_t)(rng_next(&s) % 101);
    OUT(r, "out", int32_t, ET_I32, n);
    arg_i32(r, n);
}

static void check_ctrl_early_return(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    int32_t *w = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int v = a[i];
        w[i] = -1;
        if (v % 5 == 0) continue;
        w[i] = v * 2;
        if (v % 7 == 0) { w[i] = 7; continue; }
        bool done = false;
        for (int k = 0; k < 10 && !done; k++)
            if (v + k == 50) { w[i] = 1000 + k; done = true; }
        if (!done) w[i] += 1;
    }
    expect_buf(r, 1, w);
    free(w);
}

static void setup_ctrl_noinline(Run *r) {
    int n = r->n = ATOM_N;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    float *f = IN(r, "f", float, ET_F32, n);
    uint64_t s = 123;
    for (int i = 0; i < n; i++) {
        a[i] = (int32_t)(rng_next(&s) % 2001) - 1000;
        f[i] = rand_f32_in(&s, -100.0f, 100.0f);
    }
    OUT(r, "out", int32_t, ET_I32, 2 * (size_t)n);
    OUT(r, "outf", float, ET_F32, n);
    arg_i32(r, n);
}

static int32_t poly_ref(int32_t x, int32_t y) {
    return (int32_t)((uint32_t)x * (uint32_t)x - 3u * (uint32_t)y + (uint32_t)(x ^ y));
}

static void check_ctrl_noinline(Run *r) {
    int n = r->n;
    const int32_t *a = r->bufs[0].host;
    const float *f = r->bufs[1].host;
    int32_t *w = xcalloc(2 * (size_t)n, 4);
    float *wf = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int32_t rr = poly_ref(a[i], i);
        if (a[i] & 1) rr = poly_ref(rr & 0xff, a[i]);
        w[i] = rr;
        w[n + i] = (int32_t)((uint32_t)rr - (uint32_t)i);
        float b = fmaf(2.0f, f[i], 1.0f);
        wf[i] = fmaf(b - f[i], 0.25f, f[i]);   /* a + (b - a) * t, contracted */
    }
    expect_buf(r, 2, w);
    expect_buf(r, 3, wf);
    free(w);
    free(wf);
}

#define G2_W 100
#define G2_H 37

static void setup_ctrl_grid2d(Run *r) {
    r->n = G2_W * G2_H;
    OUT(r, "out", int32_t, ET_I32, G2_W * G2_H);
    arg_i32(r, G2_W);
    arg_i32(r, G2_H);
}

static void check_ctrl_grid2d(Run *r) {
    int32_t *w = xcalloc(G2_W * G2_H, 4);
    for (int y = 0; y < G2_H; y++)
        for (int x = 0; x < G2_W; x++) w[y * G2_W + x] = (x << 16) | (y << 4) | (((y % 8) * 16 + (x % 16)) % 16);
    expect_buf_ex(r, 0, w, 0, NULL);
    free(w);
}

#define G3_X 20
#define G3_Y 9
#define G3_Z 5

static void setup_ctrl_grid3d(Run *r) {
    r->n = G3_X * G3_Y * G3_Z;
    OUT(r, "out", int32_t, ET_I32, G3_X * G3_Y * G3_Z);
    arg_i32(r, G3_X);
    arg_i32(r, G3_Y);
    arg_i32(r, G3_Z);
}

static void check_ctrl_grid3d(Run *r) {
    /* block (8,4,2), grid (3,3,3) */
    int32_t *w = xcalloc(G3_X * G3_Y * G3_Z, 4);
    for (int z = 0; z < G3_Z; z++)
        for (int y = 0; y < G3_Y; y++)
            for (int x = 0; x < G3_X; x++) {
                int bx = x / 8, by = y / 4, bz = z / 2, tx = x % 8, ty = y % 4, tz = z % 2;
                w[(z * G3_Y + y) * G3_X + x] = (bx + 3 * (by + 3 * bz)) * 1000 + (tx + 8 * (ty + 4 * tz));
            }
    expect_buf_ex(r, 0, w, 0, NULL);
    free(w);
}

static void setup_ctrl_grid_stride(Run *r) {
    int n = r->n = 5000;
    float *a = IN(r, "a", float, ET_F32, n);
    uint64_t s = 124;
    for (int i = 0; i < n; i++) a[i] = rand_f32_in(&s, -1e4f, 1e4f);
    OUT(r, "out", float, ET_F32, n);
    arg_i32(r, n);
}

static void check_ctrl_grid_stride(Run *r) {
    int n = r->n;
    const float *a = r->bufs[0].host;
    float *w = xcalloc((size_t)n, 4);
    for (int i = 0; i < n; i++) w[i] = fmaf(a[i], 3.0f, -1.0f);
    expect_buf_ex(r, 1, w, 0, NULL);
    free(w);
}

static void setup_tmpl_float(Run *r) {
    int n = r->n = N_ELEM;
    float *a = IN(r, "a", float, ET_F32, n);
    uint64_t s = 125;
    for (int i = 0; i < n; i++) a[i] = rand_f32_in(&s, -10.0f, 10.0f);
    OUT(r, "out", float, ET_F32, n);
    arg_f32(r, 1.75f);
    arg_i32(r, n);
}

static void check_tmpl_float(Run *r) {
    const float *a = r->bufs[0].host;
    float *w = xcalloc((size_t)r->n, 4);
    for (int i = 0; i < r->n; i++) w[i] = fmaf(a[i], 1.75f, 1.0f);
    expect_buf_ex(r, 1, w, 0, NULL);
    free(w);
}

static void setup_tmpl_int(Run *r) {
    int n = r->n = N_ELEM;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 126;
    for (int i = 0; i < n; i++) a[i] = (int32_t)rng_next(&s);
    OUT(r, "out", int32_t, ET_I32, n);
    arg_i32(r, -3);
    arg_i32(r, n);
}

static void check_tmpl_int(Run *r) {
    const int32_t *a = r->bufs[0].host;
    int32_t *w = xcalloc((size_t)r->n, 4);
    for (int i = 0; i < r->n; i++) w[i] = (int32_t)((uint32_t)a[i] * (uint32_t)-3 + 1u);
    expect_buf_ex(r, 1, w, 0, NULL);
    free(w);
}

#endif
