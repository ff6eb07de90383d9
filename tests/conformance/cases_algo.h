/* tests/conformance/cases_algo.h: setups and CPU references for io.cu
 * (printf, assert, malloc) and the whole teaching kernels of algos.cu and
 * coop_groups.cu. The references replay each kernel's order of floating-point
 * operations (tree order, shuffle order, fma chains), so the comparisons are
 * exact. Included by test_conformance.c. */
#ifndef CUDOJO_TESTS_CONFORMANCE_CASES_ALGO_H
#define CUDOJO_TESTS_CONFORMANCE_CASES_ALGO_H

#include "tests/conformance/harness.h"

/* ---- io.cu -------------------------------------------------------------- */

static void setup_io_printf(Run *r) {
    int n = r->n = 8;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    float *f = IN(r, "f", float, ET_F32, n);
    static const int32_t av[8] = {42, 17, -5, 0xbeef, 29, -123456, 7, 99};
    static const float fv[4] = {3.14159265f, -2.5f, 12345.678f, 0.000123f};
    memcpy(a, av, sizeof av);
    memcpy(f, fv, sizeof fv);
    arg_i32(r, n);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Splits text into lines (the copies are owned by *lines); returns the count. */
static int split_lines(const char *text, char ***lines) {
    int n = 0, cap = 16;
    *lines = xcalloc((size_t)cap, sizeof **lines);
    const char *p = text ? text : "";
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (n == cap) *lines = xrealloc(*lines, sizeof **lines * (size_t)(cap *= 2));
        (*lines)[n++] = xstrndup(p, len);
        p += len + (e ? 1 : 0);
    }
    return n;
}

static void check_io_printf(Run *r) {
    const int32_t *a = r->bufs[0].host;
    const float *f = r->bufs[1].host;
    StrBuf want;
    strbuf_init(&want);
    strbuf_printf(&want, "int %d neg %d unsigned %u hex %x HEX %X oct %o\n", a[0], -a[1], (unsigned)a[2], a[3], a[3],
                  a[0]);
    strbuf_printf(&want, "ll %lld ull %llu char %c str %s pct %%\n", (long long)a[0] * 100000000ll,
                  18446744073709551615ull, 'A' + a[4] % 26, "cudojo");
    strbuf_printf(&want, "float %f %.3f %e %g %10.4f|%-8d|%08d\n", (double)f[0], (double)f[1], (double)f[2],
                  (double)f[3], (double)f[0], a[0], a[1]);
    for (int t = 1; t <= 4; t++) strbuf_printf(&want, "thread %d value %d\n", t, a[t]);
    const char *got = r->rep.device_output;
    if (!got) {
        run_fail(r, "  device_output is NULL; want:\n%s", want.data);
        strbuf_fini(&want);
        return;
    }
    /* Thread 0's three lines in order; all lines as a multiset (warps may interleave). */
    char **gl, **wl;
    int ng = split_lines(got, &gl), nw = split_lines(want.data, &wl);
    int k = 0;
    for (int i = 0; i < ng && k < 3; i++)
        if (!strcmp(gl[i], wl[k])) k++;
    if (k < 3) run_fail(r, "  thread 0's printf lines are missing or out of order");
    qsort(gl, (size_t)ng, sizeof *gl, cmp_str);
    qsort(wl, (size_t)nw, sizeof *wl, cmp_str);
    bool same = ng == nw;
    for (int i = 0; same && i < ng; i++) same = !strcmp(gl[i], wl[i]);
    if (!same) run_fail(r, "  device_output differs.\n--- got:\n%s--- want (any order):\n%s", got, want.data);
    for (int i = 0; i < ng; i++) free(gl[i]);
    for (int i = 0; i < nw; i++) free(wl[i]);
    free(gl);
    free(wl);
    strbuf_fini(&want);
}

#define ASSERT_INDEX 77   /* block 1, thread 13 of 64 */

static void setup_io_assert(Run *r) {
    int n = r->n = 128;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    for (int i = 0; i < n; i++) a[i] = i + 100;
    a[ASSERT_INDEX] = 13;
    OUT(r, "out", int32_t, ET_I32, n);
    arg_i32(r, n);
}

/* The line of `marker` in a source file, 0 if absent. */
static int marker_line(const char *path, const char *marker);

static void check_io_assert(Run *r) {
    int want_line = marker_line("tests/conformance/io.cu", "// ASSERT-LINE");
    const Diag *hit = NULL;
    for (const Diag *d = r->rep.findings; d; d = d->next)
        if (d->severity == DIAG_ERROR && d->line == want_line) hit = d;
    if (!hit) {
        char *all = diag_format_all(r->rep.findings, false);
        run_fail(r, "  no error finding at io.cu:%d for the failed assert; findings:\n%s", want_line, all ? all : "(none)");
        free(all);
        return;
    }
    expect_true(r, hit->file && strstr(hit->file, "io.cu"), "the assert finding must name io.cu");
    if (hit->has_thread)
        expect_true(r, hit->block[0] == ASSERT_INDEX / 64 && hit->thread[0] == ASSERT_INDEX % 64,
                    "the assert finding must name block 1, thread 13");
    else
        run_fail(r, "  the assert finding has no block/thread coordinates");
}

static void setup_io_malloc(Run *r) {
    int n = r->n = 256;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 131;
    for (int i = 0; i < n; i++) a[i] = (int32_t)(rng_next(&s) % 10000);
    OUT(r, "out", int32_t, ET_I32, n);
    arg_i32(r, n);
}

static void check_io_malloc(Run *r) {
    const int32_t *a = r->bufs[0].host;
    int32_t *w = xcalloc((size_t)r->n, 4);
    for (int i = 0; i < r->n; i++) {
        int len = 1 + (a[i] & 15), s = 0;
        for (int k = len - 1; k >= 0; k--) s += (a[i] * k) ^ k;
        w[i] = s;
    }
    expect_buf(r, 1, w);
    free(w);
}

/* ---- algos.cu ------------------------------------------------------------ */

#define TREE_N 16384
#define TREE_THREADS 256

static void setup_tree_reduce(Run *r) {
    int n = r->n = TREE_N;
    float *a = IN(r, "a", float, ET_F32, n);
    uint64_t s = 141;
    for (int i = 0; i < n; i++) a[i] = rand_f32_in(&s, -1.0f, 1.0f);
    OUT(r, "out", float, ET_F32, TREE_N / TREE_THREADS);
    arg_i32(r, n);
}

static void check_tree_reduce(Run *r) {
    const float *a = r->bufs[0].host;
    float w[TREE_N / TREE_THREADS], s[TREE_THREADS];
    for (int b = 0; b < TREE_N / TREE_THREADS; b++) {
        memcpy(s, a + b * TREE_THREADS, sizeof s);
        for (int stride = TREE_THREADS / 2; stride > 0; stride >>= 1)
            for (int t = 0; t < stride; t++) s[t] += s[t + stride];
        w[b] = s[0];
    }
    expect_buf_ex(r, 1, w, 0, NULL);
}

#define SCAN_THREADS 128

static void setup_blelloch_scan(Run *r) {
    int n = r->n = 2000;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 142;
    for (int i = 0; i < n; i++) a[i] = (int32_t)(rng_next(&s) % 201) - 100;
    OUT(r, "out", int32_t, ET_I32, n);
    arg_i32(r, n);
}

static void check_blelloch_scan(Run *r) {
    const int32_t *a = r->bufs[0].host;
    int32_t *w = xcalloc((size_t)r->n, 4);
    for (int base = 0; base < r->n; base += 2 * SCAN_THREADS) {
        int32_t run = 0;
        for (int i = base; i < base + 2 * SCAN_THREADS && i < r->n; i++) {
            w[i] = run;
            run += a[i];
        }
    }
    expect_buf_ex(r, 1, w, 0, NULL);
    free(w);
}

#define SORT_THREADS 512

static void setup_bitonic_sort(Run *r) {
    int n = r->n = 2000;
    float *a = IN(r, "a", float, ET_F32, n);
    uint64_t s = 143;
    for (int i = 0; i < n; i++) a[i] = (i % 9 == 0) ? 1.5f : rand_f32_in(&s, -1000.0f, 1000.0f);   /* with duplicates */
    OUT(r, "out", float, ET_F32, n);
    arg_i32(r, n);
}

static int cmp_f32(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void check_bitonic_sort(Run *r) {
    const float *a = r->bufs[0].host;
    float *w = xcalloc((size_t)r->n, 4), blk[SORT_THREADS];
    for (int base = 0; base < r->n; base += SORT_THREADS) {
        for (int t = 0; t < SORT_THREADS; t++) blk[t] = base + t < r->n ? a[base + t] : 3.0e38f;
        qsort(blk, SORT_THREADS, 4, cmp_f32);
        for (int t = 0; t < SORT_THREADS && base + t < r->n; t++) w[base + t] = blk[t];
    }
    expect_buf_ex(r, 1, w, 0, NULL);
    free(w);
}

#define TR_W 200
#define TR_H 130

static void setup_transpose_tiled(Run *r) {
    r->n = TR_W * TR_H;
    float *in = IN(r, "in", float, ET_F32, TR_W * TR_H);
    for (int i = 0; i < TR_W * TR_H; i++) in[i] = (float)i * 0.5f;
    OUT(r, "out", float, ET_F32, TR_W * TR_H);
    arg_i32(r, TR_W);
    arg_i32(r, TR_H);
}

static void check_transpose_tiled(Run *r) {
    const float *in = r->bufs[0].host;
    float *w = xcalloc(TR_W * TR_H, 4);
    for (int y = 0; y < TR_H; y++)
        for (int x = 0; x < TR_W; x++) w[x * TR_H + y] = in[y * TR_W + x];
    expect_buf_ex(r, 1, w, 0, NULL);
    free(w);
}

#define MM_M 70
#define MM_N 50
#define MM_K 37
#define MM_BS 16

static void setup_sgemm_tiled(Run *r) {
    r->n = MM_M * MM_N;
    float *A = IN(r, "A", float, ET_F32, MM_M * MM_K), *B = IN(r, "B", float, ET_F32, MM_K * MM_N);
    uint64_t s = 144;
    for (int i = 0; i < MM_M * MM_K; i++) A[i] = rand_f32_in(&s, -1.0f, 1.0f);
    for (int i = 0; i < MM_K * MM_N; i++) B[i] = rand_f32_in(&s, -1.0f, 1.0f);
    OUT(r, "C", float, ET_F32, MM_M * MM_N);
    arg_i32(r, MM_M);
    arg_i32(r, MM_N);
    arg_i32(r, MM_K);
}

static void check_sgemm_tiled(Run *r) {
    const float *A = r->bufs[0].host, *B = r->bufs[1].host;
    float *w = xcalloc(MM_M * MM_N, 4);
    int ktiles = (MM_K + MM_BS - 1) / MM_BS * MM_BS;
    for (int row = 0; row < MM_M; row++)
        for (int col = 0; col < MM_N; col++) {
            float acc = 0.0f;
            for (int q = 0; q < ktiles; q++) {   /* padded tile entries are zeros: fma(0, 0, acc) */
                float x = q < MM_K ? A[row * MM_K + q] : 0.0f, y = q < MM_K ? B[q * MM_N + col] : 0.0f;
                acc = fmaf(x, y, acc);
            }
            w[row * MM_N + col] = acc;
        }
    expect_buf_ex(r, 2, w, 0, NULL);
    free(w);
}

#define HIST_N 100000

static void setup_histogram_shared(Run *r) {
    r->n = HIST_N;
    uint8_t *d = IN(r, "data", uint8_t, ET_U8, HIST_N);
    uint64_t s = 145;
    for (int i = 0; i < HIST_N; i++) d[i] = (uint8_t)(rng_next(&s) % ((i & 1) ? 256 : 40));   /* skewed */
    OUT(r, "hist", uint32_t, ET_U32, 64);
    arg_i32(r, HIST_N);
}

static void check_histogram_shared(Run *r) {
    const uint8_t *d = r->bufs[0].host;
    uint32_t w[64] = {0};
    for (int i = 0; i < HIST_N; i++) w[d[i] % 64]++;
    expect_buf_ex(r, 1, w, 0, NULL);
}

#define MC_BLOCKS 16
#define MC_THREADS 128
#define MC_SEED 12345u
#define MC_PER_THREAD 64

static void setup_monte_carlo(Run *r) {
    r->n = MC_BLOCKS;
    OUT(r, "hits", uint32_t, ET_U32, MC_BLOCKS);
    arg_u32(r, MC_SEED);
    arg_i32(r, MC_PER_THREAD);
}

static uint32_t hash_u32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static void check_monte_carlo(Run *r) {
    uint32_t w[MC_BLOCKS] = {0};
    for (uint32_t tid = 0; tid < MC_BLOCKS * MC_THREADS; tid++)
        for (int k = 0; k < MC_PER_THREAD; k++) {
            uint32_t h1 = hash_u32(MC_SEED ^ hash_u32(tid * 2654435761u + (uint32_t)k));
            uint32_t h2 = hash_u32(h1 + 0x9e3779b9u);
            float x = (float)(h1 >> 8) * (1.0f / 16777216.0f);
            float y = (float)(h2 >> 8) * (1.0f / 16777216.0f);
            if (fmaf(x, x, y * y) <= 1.0f) w[tid / MC_THREADS]++;   /* NVRTC emits fma(x, x, y*y) */
        }
    expect_buf_ex(r, 0, w, 0, NULL);
}

/* ---- coop_groups.cu ---------------------------------------------------- */

#define CG_BLOCKS 4
#define CG_THREADS 256

static void setup_cg_tile_reduce(Run *r) {
    int n = r->n = 1000;
    int32_t *a = IN(r, "a", int32_t, ET_I32, n);
    uint64_t s = 151;
    for (int i = 0; i < n; i++) a[i] = (int32_t)(rng_next(&s) % 2001) - 1000;
    OUT(r, "out", int32_t, ET_I32, CG_BLOCKS);
    OUT(r, "tile8", int32_t, ET_I32, n / 8);
    arg_i32(r, n);
}

static void check_cg_tile_reduce(Run *r) {
    const int32_t *a = r->bufs[0].host;
    int32_t w[CG_BLOCKS] = {0}, *t8 = xcalloc((size_t)r->n / 8, 4);
    for (int i = 0; i < r->n; i++) {
        w[i / CG_THREADS] += a[i];
        t8[i / 8] += a[i];
    }
    expect_buf_ex(r, 1, w, 0, NULL);
    expect_buf_ex(r, 2, t8, 0, NULL);
    free(t8);
}

#endif
