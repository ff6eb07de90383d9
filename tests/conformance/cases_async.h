/* tests/conformance/cases_async.h: setups and CPU references for async.cu
 * (elect.sync, mbarrier, cp.async.bulk; compute_90).
 *
 * elect.sync is checked against "the lowest lane of the member mask that
 * runs it" (what the emulator implements; the PTX ISA only promises the same
 * leader for the same mask every time). The mbarrier rows are the phase
 * rules of the PTX ISA: a phase completes when its pending arrivals and its
 * tx-count both reach zero, arrive_drop lowers the arrivals of later phases,
 * test_wait.parity is true for the phase before the current one. */
#ifndef CUDOJO_TESTS_CONFORMANCE_CASES_ASYNC_H
#define CUDOJO_TESTS_CONFORMANCE_CASES_ASYNC_H

#include "tests/conformance/harness.h"

#define ELECT_BLOCKS 2
#define ELECT_THREADS 64

static void setup_async_elect(Run *r) {
    int n = r->n = ELECT_BLOCKS * ELECT_THREADS;
    OUT(r, "out", uint32_t, ET_U32, 5 * (size_t)n);
    arg_i32(r, n);
}

static void check_async_elect(Run *r) {
    int n = r->n;
    uint32_t *w = xcalloc(5 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        int lane = i % 32;
        w[0 * n + i] = 0;
        w[1 * n + i] = lane == 0;
        w[2 * n + i] = lane % 3 == 1 ? 1 : 99;
        w[3 * n + i] = lane % 3 == 1 ? lane == 1 : 99;
        w[4 * n + i] = lane >= 16 ? lane == 16 : 99;
    }
    expect_buf(r, 0, w);
    free(w);
}

#define MBAR_BLOCKS 2
#define MBAR_THREADS 64

static void setup_async_mbarrier(Run *r) {
    int n = r->n = MBAR_BLOCKS * MBAR_THREADS;
    OUT(r, "out", uint32_t, ET_U32, 5 * (size_t)n);
    arg_i32(r, n);
}

static void check_async_mbarrier(Run *r) {
    int n = r->n;
    uint32_t *w = xcalloc(5 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        w[0 * n + i] = 1 | 1 << 1 | 1 << 2 | 0 << 3;   /* waited; its phase complete; parity 0 done, 1 not */
        w[1 * n + i] = 1 | 0 << 1;                     /* phase 1 done, phase 2 (parity 0) not yet */
        w[2 * n + i] = 0 | 1 << 1;                     /* 48 arrivals wait for 256 bytes, then done */
        w[3 * n + i] = 0 | 0 << 1 | 1 << 2;            /* 128 bytes: 100 are not enough, 28 more are */
        w[4 * n + i] = 0 | 1 << 1 | 0 << 2;            /* noComplete 2 of 3, then the 3rd */
    }
    expect_buf(r, 0, w);
    free(w);
}

#define BULK_BLOCKS 4
#define BULK_THREADS 128
#define BULK_TILE 512

static void setup_async_bulk(Run *r) {
    int n = r->n = BULK_BLOCKS * BULK_TILE;
    int32_t *in = IN(r, "in", int32_t, ET_I32, n);
    uint64_t s = 901;
    for (int i = 0; i < n; i++) in[i] = (int32_t)(rng_next(&s) % 2000001) - 1000000;
    OUT(r, "out", int32_t, ET_I32, n);
    OUT(r, "out2", int32_t, ET_I32, n / 2);
    arg_i32(r, n);
}

static void check_async_bulk(Run *r) {
    int n = r->n;
    const int32_t *in = r->bufs[0].host;
    int32_t *w = xcalloc((size_t)n, 4), *w2 = xcalloc((size_t)n / 2, 4);
    for (int i = 0; i < n; i++) w[i] = in[i] * 3 + i / BULK_TILE;
    for (int b = 0; b < BULK_BLOCKS; b++)
        for (int k = 0; k < BULK_TILE / 2; k++) w2[b * (BULK_TILE / 2) + k] = w[b * BULK_TILE + k];
    expect_buf(r, 1, w);
    expect_buf_ex(r, 2, w2, (size_t)n / 2, NULL);
    free(w);
    free(w2);
}

#define CPA_BLOCKS 2
#define CPA_THREADS 64

static void setup_async_cp_arrive(Run *r) {
    int n = r->n = CPA_BLOCKS * CPA_THREADS;
    int32_t *in = IN(r, "in", int32_t, ET_I32, n);
    for (int i = 0; i < n; i++) in[i] = i * 7 - 300;
    OUT(r, "out", int32_t, ET_I32, 2 * (size_t)n);
    arg_i32(r, n);
}

static void check_async_cp_arrive(Run *r) {
    int n = r->n;
    const int32_t *in = r->bufs[0].host;
    int32_t *w = xcalloc(2 * (size_t)n, 4);
    for (int i = 0; i < n; i++) {
        w[i] = in[i ^ 1];
        w[n + i] = in[(i ^ 1) ^ 2];
    }
    expect_buf(r, 1, w);
    free(w);
}

#define LB_BLOCKS 8
#define LB_THREADS 256

static void setup_lookback_scan(Run *r) {
    int n = r->n = LB_BLOCKS * LB_THREADS;
    int32_t *data = OUT(r, "data", int32_t, ET_I32, n);
    uint64_t s = 902;
    for (int i = 0; i < n; i++) data[i] = (int32_t)(rng_next(&s) % 2001) - 1000;
    OUT(r, "status", uint64_t, ET_U64, LB_BLOCKS);
    OUT(r, "out", int32_t, ET_I32, n + LB_BLOCKS);
    int32_t *keep = OUT(r, "keep", int32_t, ET_I32, n);
    for (int i = 0; i < n; i++) keep[i] = i * 3 + 1;
    arg_i32(r, n);
}

static void check_lookback_scan(Run *r) {
    int n = r->n;
    /* the inputs, made again: data[] is overwritten in place */
    int32_t *in = xcalloc((size_t)n, 4), *w = xcalloc((size_t)n, 4), *wo = xcalloc((size_t)n + LB_BLOCKS, 4);
    int32_t *wk = xcalloc((size_t)n, 4);
    uint64_t s = 902;
    for (int i = 0; i < n; i++) in[i] = (int32_t)(rng_next(&s) % 2001) - 1000;
    int run = 0;
    for (int i = 0; i < n; i++) {
        run += in[i];
        wo[i] = run;
        w[i] = i + 1 < n ? 2 * in[i + 1] : in[i];
        wk[i] = i * 3 + 1;
    }
    for (int b = 1; b < LB_BLOCKS; b++) wo[n + b] = wk[b * LB_THREADS - 1];
    expect_buf(r, 0, w);
    expect_buf_ex(r, 2, wo, (size_t)n + LB_BLOCKS, NULL);
    expect_buf(r, 3, wk);
    free(in);
    free(w);
    free(wo);
    free(wk);
}

#endif
