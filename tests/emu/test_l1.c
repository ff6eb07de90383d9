/* tests/emu/test_l1.c: the metrics' L1 model (kernels/emu/emu_metrics.c
 * l1_read, EmuL1Set in emu_worker.h): which loads hit it.
 *
 * Its hits feed memory_waits_hit, which the time prediction reads
 * (kernels/PREDICT.md), so they must not depend on where the host put the
 * arrays: matmul-naive's solution counted 13125 of 15092 waits as hits on
 * one host and 8792 on another when lines were host addresses. The model
 * on known patterns: one warp reads 32 rows of an array twice, a float per
 * lane and step; a miss brings one 32-byte sector per lane, so the first
 * pass hits 7 of 8 steps, and the second all when the rows fit (128 KiB
 * of 128-byte lines, 4 ways, least recently used out) and 7 of 8 when they
 * do not. */
#include "tests/emu/emu_fixture.h"

static const char *MATMUL_NAIVE =
    "extern \"C\" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K) {\n"
    "    int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int col = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (row < M && col < N) {\n"
    "        float acc = 0.0f;\n"
    "        for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];\n"
    "        C[row * N + col] = acc;\n"
    "    }\n"
    "}\n";

/* Lane l reads a[l * row + k] for k < cols, twice, one wait per load. */
static const char *ROWS_TWICE =
    "extern \"C\" __global__ void rows_twice(const float *a, float *out, int row, int cols) {\n"
    "    float s = 0.0f;\n"
    "    #pragma unroll 1\n"
    "    for (int p = 0; p < 2; p++) {\n"
    "        #pragma unroll 1\n"
    "        for (int k = 0; k < cols; k++) s += a[threadIdx.x * row + k];\n"
    "    }\n"
    "    out[threadIdx.x] = s;\n"
    "}\n"
    "extern \"C\" __global__ void then_view(const float *p, const float *q, float *out) {\n"
    "    float s = 0.0f;\n"
    "    #pragma unroll 1\n"
    "    for (int i = 0; i < 2; i++) {\n"
    "        const float *b = i ? q : p + 32;\n"
    "        s += b[threadIdx.x];\n"
    "    }\n"
    "    out[threadIdx.x] = s;\n"
    "}\n";

enum { MM_M = 200, MM_N = 196, MM_K = 44 };   /* matmul-naive's emulator size (lessons/18-matmul) */

typedef struct MmRun { DevPtr a; uint64_t waits, hits, sectors; } MmRun;

/* matmul-naive at its emulator size on arrays allocated after a `dummy`
 * bytes array (0: none), which moves them on the host; frees them after. */
static MmRun matmul_naive_after(EmuFx *f, size_t dummy) {
    static float A[MM_M * MM_K], B[MM_K * MM_N];
    for (int i = 0; i < MM_M * MM_K; i++) A[i] = (float)(i % 7);
    for (int i = 0; i < MM_K * MM_N; i++) B[i] = (float)(i % 5);
    DevPtr pad = dummy ? fx_array(f, "dummy", 1, dummy, NULL) : 0;
    DevPtr da = fx_array(f, "A", 4, MM_M * MM_K, A), db = fx_array(f, "B", 4, MM_K * MM_N, B);
    DevPtr dc = fx_array(f, "C", 4, MM_M * MM_N, NULL);
    KernelArg args[] = {kernel_arg_ptr(da), kernel_arg_ptr(db), kernel_arg_ptr(dc), kernel_arg_i32(MM_M),
                        kernel_arg_i32(MM_N), kernel_arg_i32(MM_K)};
    Diag *d = fx_launch(f, "sgemm", (Dim3){(MM_M + 31) / 32, (MM_N + 31) / 32, 1}, (Dim3){32, 32, 1}, 0, args, 6);
    if (d) fail_msg("launch: %s", diag_format_all(d, false));
    MmRun r = {da, (uint64_t)fx_total(f, "memory_waits"), (uint64_t)fx_total(f, "memory_waits_hit"),
               (uint64_t)fx_total(f, "global_sectors")};
    DevPtr all[] = {da, db, dc, pad};
    for (int i = 0; i < 4; i++)
        if (all[i]) assert_null(f->b->ops->mem_free(f->b, all[i]));
    return r;
}

static void l1__hits_the_same__wherever_the_host_puts_the_arrays(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(false, true);
    fx_load(&f, MATMUL_NAIVE, &o);
    MmRun first = matmul_naive_after(&f, 0);
    assert_true(first.waits > 0);
    assert_true(first.hits > first.waits / 2);   /* 32 warps of a block re-read its rows of A */
    const size_t dummies[] = {4096, 3 * 4096 + 100, (1u << 20) + 20480, 7 * 65536};
    for (int i = 0; i < 4; i++) {
        MmRun r = matmul_naive_after(&f, dummies[i]);
        assert_int_equal(r.waits, first.waits);
        assert_int_equal(r.sectors, first.sectors);
        if (r.hits != first.hits)
            fail_msg("after a %zu-byte array (A at 0x%llx, was 0x%llx): %llu hits of %llu waits, first %llu", dummies[i],
                     (unsigned long long)r.a, (unsigned long long)first.a, (unsigned long long)r.hits,
                     (unsigned long long)r.waits, (unsigned long long)first.hits);
    }
    fx_free(&f);
}

/* rows_twice's waits and hits for rows `row` floats apart, `cols` read. */
static void rows_twice(int row, int cols, uint64_t *waits, uint64_t *hits) {
    EmuFx f;
    EmuOptions o = fx_opts(false, true);
    fx_load(&f, ROWS_TWICE, &o);
    DevPtr da = fx_array(&f, "a", 4, (size_t)32 * (size_t)row, NULL), dout = fx_array(&f, "out", 4, 32, NULL);
    KernelArg args[] = {kernel_arg_ptr(da), kernel_arg_ptr(dout), kernel_arg_i32(row), kernel_arg_i32(cols)};
    fx_run(&f, "rows_twice", 1, 32, args, 4);
    *waits = (uint64_t)fx_total(&f, "memory_waits");
    *hits = (uint64_t)fx_total(&f, "memory_waits_hit");
    fx_free(&f);
}

static void l1__second_pass_hits__when_the_rows_fit(void **state) {
    (void)state;
    uint64_t waits, hits;
    rows_twice(512, 512, &waits, &hits);   /* 32 rows of 2 KiB: 64 KiB, 512 lines */
    assert_int_equal(waits, 2 * 512);
    assert_int_equal(hits, 2 * 512 - 512 / 8);   /* only the first pass's first step of each sector misses */
}

static void l1__second_pass_misses__when_the_rows_thrash_it(void **state) {
    (void)state;
    uint64_t waits, hits;
    rows_twice(4096, 4096, &waits, &hits);   /* 32 rows of 16 KiB: 512 KiB, 4096 lines */
    assert_int_equal(waits, 2 * 4096);
    assert_int_equal(hits, 2 * (4096 - 4096 / 8));   /* both passes miss each sector's first step */
}

static void l1__rows_a_power_of_two_apart_fit__when_their_lines_do(void **state) {
    (void)state;
    uint64_t waits, hits;
    /* 32 rows 16 KiB apart, 1 KiB of each: 256 lines, a set of 4 ways for
     * each with an index of the line's low bits would leave them 16 sets */
    rows_twice(4096, 256, &waits, &hits);
    assert_int_equal(waits, 2 * 256);
    assert_int_equal(hits, 2 * 256 - 256 / 8);
}

static void l1__a_view_hits_its_parents_lines(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(false, true);
    fx_load(&f, ROWS_TWICE, &o);
    float p[256], out[32];
    for (int i = 0; i < 256; i++) p[i] = (float)i;
    DevPtr dp = fx_array(&f, "p", 4, 256, p), dout = fx_array(&f, "out", 4, 32, NULL), dq;
    assert_null(f.b->ops->mem_view(f.b, dp, 32 * 4, 64 * 4, "q", 4, &dq));
    KernelArg args[] = {kernel_arg_ptr(dp), kernel_arg_ptr(dq), kernel_arg_ptr(dout)};
    fx_run(&f, "then_view", 1, 32, args, 3);
    assert_int_equal((int)fx_total(&f, "memory_waits"), 2);
    assert_int_equal((int)fx_total(&f, "memory_waits_hit"), 1);   /* q[l] is p[l + 32], read just before */
    fx_get(&f, out, dout, sizeof out);
    for (int l = 0; l < 32; l++) assert_true(out[l] == 2.0f * (float)(l + 32));
    fx_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(l1__hits_the_same__wherever_the_host_puts_the_arrays),
        cmocka_unit_test(l1__second_pass_hits__when_the_rows_fit),
        cmocka_unit_test(l1__second_pass_misses__when_the_rows_thrash_it),
        cmocka_unit_test(l1__rows_a_power_of_two_apart_fit__when_their_lines_do),
        cmocka_unit_test(l1__a_view_hits_its_parents_lines),
    };
    (void)fx_line, (void)fx_finding;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
