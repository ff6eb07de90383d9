/* tests/emu/test_diag.c: the emulator names the learner's mistake, with the
 * right line, thread and block; and measures coalescing, bank conflicts and
 * divergence exactly for known access patterns. */
#include "base/xalloc.h"
#include "tests/emu/emu_fixture.h"

/* Runs `src`'s kernel k(int *p) on a grid of `grid` × `block` threads with an
 * int array p of n elements filled with 0..n-1. */
static DevPtr run_k(EmuFx *f, const char *src, unsigned grid, unsigned block, size_t n, bool adversarial) {
    EmuOptions o = fx_opts(true, true);
    o.adversarial = adversarial;
    fx_load(f, src, &o);
    int *h = malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++) h[i] = (int)i;
    DevPtr p = fx_array(f, "p", 4, n, h);
    free(h);
    KernelArg args[] = {kernel_arg_ptr(p)};
    fx_run(f, "k", grid, block, args, 1);
    return p;
}

static void diag__reports_race__when_barrier_missing(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ int s[128];\n"
          "    int t = threadIdx.x;\n"
          "    s[t] = p[t];\n"
          "    int left = s[(t + 127) % 128];\n"
          "    p[t] = left;\n"
          "}\n", 1, 128, 128, false);
    const Diag *d = fx_finding(&f, "race-shared");
    if (!d) fail_msg("no race found: %s", f.findings);
    assert_int_equal(d->line, 5);
    assert_non_null(strstr(d->message, "read after write"));
    assert_non_null(strstr(d->message, "__syncthreads"));
    fx_free(&f);
}

static void diag__reports_no_race__when_barrier_present(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ int s[128];\n"
          "    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;\n"
          "    s[t] = p[g];\n"
          "    __syncthreads();\n"
          "    int left = s[(t + 127) % 128];\n"
          "    __syncthreads();\n"
          "    s[t] = left * 2;\n"
          "    p[g] = s[t];\n"
          "}\n", 2, 128, 256, true);
    /* (each block its own part of p: with p[t] both blocks would race on p[0..127]) */
    if (f.r.findings) fail_msg("unexpected: %s", f.findings);
    fx_free(&f);
}

static void diag__reports_write_after_read__when_second_barrier_missing(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ int s[64];\n"
          "    int t = threadIdx.x;\n"
          "    s[t] = p[t];\n"
          "    __syncthreads();\n"
          "    int v = s[63 - t];\n"
          "    s[t] = v + 1;\n"
          "    p[t] = v;\n"
          "}\n", 1, 64, 64, false);
    const Diag *d = fx_finding(&f, "race-shared");
    if (!d) fail_msg("no race found: %s", f.findings);
    assert_int_equal(d->line, 7);
    assert_non_null(strstr(d->message, "lines 6 and 7"));
    fx_free(&f);
}

static void diag__reports_barrier_divergence__when_syncthreads_in_if(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ int s[64];\n"
          "    int t = threadIdx.x;\n"
          "    if (t < 32) {\n"
          "        s[t] = p[t];\n"
          "        __syncthreads();\n"
          "        p[t] = s[31 - t];\n"
          "    }\n"
          "}\n", 1, 64, 64, false);
    const Diag *d = fx_finding(&f, "barrier-divergence");
    if (!d) fail_msg("no barrier divergence: %s", f.findings);
    assert_int_equal(d->line, 6);
    assert_non_null(strstr(d->message, "32 of the 64 threads"));
    fx_free(&f);
}

static void diag__reports_uninitialised_shared_read(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ int s[64];\n"
          "    int t = threadIdx.x;\n"
          "    if (t < 63) s[t] = p[t];\n"
          "    __syncthreads();\n"
          "    p[t] = s[t];\n"
          "}\n", 1, 64, 64, false);
    const Diag *d = fx_finding(&f, "uninit-shared");
    if (!d) fail_msg("no uninitialised read: %s", f.findings);
    assert_int_equal(d->line, 6);
    assert_int_equal(d->thread[0], 63);
    fx_free(&f);
}

/* PTX as nvcc writes it for a Thrust/CUB program: `.file 1` is the toolkit
 * header nvcc met first, the learner's file comes later. Lines are the
 * learner's file's, and a read of unwritten shared memory at a line of the
 * toolkit's code (CUB's SerialMerge reads one past a run on purpose) is not
 * reported; the same read at the learner's line is. */
static void diag__reports_uninit_shared_in_learner_code_only__when_toolkit_header_is_file_1(void **state) {
    (void)state;
    static const char ptx[] =
        ".version 8.0\n.target sm_80\n.address_size 64\n\n"
        ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
        "\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<4>;\n"
        "\t.shared .align 4 .b8 s[256];\n"
        "\t.loc 2 9 3\n"
        "\tld.param.u64 %rd1, [k_param_0];\n"
        "\tcvta.to.global.u64 %rd2, %rd1;\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\t.loc 1 97 5\n"
        "\tld.shared.u32 %r3, [s+4];\n"
        "\t.loc 2 12 3\n"
        "\tld.shared.u32 %r4, [s+8];\n"
        "\tadd.s32 %r5, %r3, %r4;\n"
        "\tmul.wide.u32 %rd3, %r1, 4;\n"
        "\tadd.s64 %rd2, %rd2, %rd3;\n"
        "\tst.global.u32 [%rd2], %r5;\n"
        "\tret;\n}\n"
        "\t.file 1 \"/usr/local/cuda-13.0/include/cccl/cub/block/block_merge_sort.cuh\"\n"
        "\t.file 2 \"/home/learner/sort.cu\"\n";
    EmuFx f;
    memset(&f, 0, sizeof f);
    EmuOptions o = fx_opts(true, false);
    Diag *why = NULL;
    f.b = emu_backend_new(&o, &why);
    assert_non_null(f.b);
    f.cm = xcalloc(1, sizeof *f.cm);
    f.cm->ptx = xstrdup(ptx);
    f.cm->ptx_size = strlen(ptx);
    f.cm->source_path = xstrdup("sort.cu");
    Diag *d = f.b->ops->module_load(f.b, f.cm, &f.m);
    if (d) fail_msg("module_load: %s", diag_format_all(d, false));
    launch_report_init(&f.r);
    DevPtr p = fx_array(&f, "p", 4, 32, NULL);
    KernelArg args[] = {kernel_arg_ptr(p)};
    fx_run(&f, "k", 1, 32, args, 1);
    int n = 0;
    for (const Diag *x = f.r.findings; x; x = x->next) n += !strcmp(x->code, "uninit-shared");
    const Diag *u = fx_finding(&f, "uninit-shared");
    if (!u || n != 1) fail_msg("want one uninit-shared finding at line 12: %s", f.findings);
    assert_int_equal(u->line, 12);
    fx_free(&f);
}

static void diag__reports_shared_oob__when_tile_off_by_one(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ int s[32];\n"
          "    int t = threadIdx.x;\n"
          "    s[t + 1] = p[t];\n"
          "    __syncthreads();\n"
          "    p[t] = s[t];\n"
          "}\n", 1, 32, 32, false);
    const Diag *d = fx_finding(&f, "oob-shared");
    if (!d) fail_msg("no shared oob: %s", f.findings);
    assert_int_equal(d->line, 4);
    assert_int_equal(d->thread[0], 31);
    fx_free(&f);
}

static void diag__reports_misaligned_access(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    int *q = (int *)((char *)p + 2);\n"
          "    p[threadIdx.x] = q[threadIdx.x];\n"
          "}\n", 1, 32, 64, false);
    const Diag *d = fx_finding(&f, "misaligned");
    if (!d) fail_msg("no misaligned: %s", f.findings);
    assert_int_equal(d->line, 3);
    fx_free(&f);
}

static void diag__reports_assert_with_thread(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "#include <cassert>\n"
          "extern \"C\" __global__ void k(int *p) {\n"
          "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "    assert(p[t] != 70);\n"
          "}\n", 4, 32, 128, false);
    const Diag *d = fx_finding(&f, "assert");
    if (!d) fail_msg("no assert: %s", f.findings);
    assert_int_equal(d->line, 4);
    assert_int_equal(d->block[0], 2);
    assert_int_equal(d->thread[0], 6);
    assert_non_null(strstr(d->message, "p[t] != 70"));
    fx_free(&f);
}

static void diag__reports_intra_warp_hazard__when_warp_reduce_lacks_syncwarp(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ int s[64];\n"
          "    int t = threadIdx.x;\n"
          "    s[t] = p[t];\n"
          "    __syncthreads();\n"
          "    if (t < 32) {\n"
          "        s[t] += s[t + 16];\n"
          "        s[t] += s[t + 8];\n"
          "    }\n"
          "    if (t == 0) p[0] = s[0];\n"
          "}\n", 1, 64, 64, false);
    const Diag *d = fx_finding(&f, "race-warp");
    if (!d) fail_msg("no intra-warp hazard: %s", f.findings);
    assert_int_equal(d->severity, DIAG_WARNING);
    assert_non_null(strstr(d->message, "__syncwarp"));
    assert_null(fx_finding(&f, "race-shared"));
    fx_free(&f);
}

static void diag__reports_shuffle_mask__when_called_in_divergent_branch(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    int v = p[threadIdx.x];\n"
          "    if (threadIdx.x < 16)\n"
          "        v += __shfl_down_sync(0xffffffff, v, 8);\n"
          "    p[threadIdx.x] = v;\n"
          "}\n", 1, 32, 32, false);
    const Diag *d = fx_finding(&f, "warp-sync-mask");
    if (!d) fail_msg("no mask finding: %s", f.findings);
    assert_int_equal(d->line, 4);
    fx_free(&f);
}

static void diag__reports_trap(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    if (p[threadIdx.x] == 5) __trap();\n"
          "    p[threadIdx.x] = 1;\n"
          "}\n", 1, 32, 32, false);
    const Diag *d = fx_finding(&f, "trap");
    if (!d) fail_msg("no trap: %s", f.findings);
    assert_int_equal(d->line, 2);
    assert_int_equal(d->thread[0], 5);
    fx_free(&f);
}

static void diag__fails_every_time__when_adversarial_and_barrier_missing(void **state) {
    (void)state;
    /* warp 1 reads what warp 0 writes: without the barrier the adversarial
     * order (and poisoned shared memory) must show a wrong result */
    int wrong = 0;
    for (int rep = 0; rep < 3; rep++) {
        EmuFx f;
        DevPtr p = run_k(&f,
              "extern \"C\" __global__ void k(int *p) {\n"
              "    __shared__ int s[256];\n"
              "    int t = threadIdx.x;\n"
              "    s[t] = p[t] + 1;\n"
              "    p[t] = s[255 - t];\n"
              "}\n", 1, 256, 256, true);
        int out[256];
        fx_get(&f, out, p, sizeof out);
        bool ok = true;
        for (int t = 0; t < 256; t++) if (out[t] != 255 - t + 1) ok = false;
        if (!ok && fx_finding(&f, "race-shared")) wrong++;
        fx_free(&f);
    }
    assert_int_equal(wrong, 3);
}

static void diag__measures_uncoalesced_access(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    int t = threadIdx.x;\n"
          "    p[t * 32] = p[t];\n"
          "}\n", 1, 32, 32 * 32, false);
    /* the load is 1 request of 4 sectors; the strided store is 32 sectors */
    assert_true(fx_line(&f, 3, "sectors_per_request") == (4.0 + 32.0) / 2);
    assert_true(fx_line(&f, 3, "ideal_sectors_per_request") == 4.0);
    const Diag *d = fx_finding(&f, "uncoalesced");
    assert_non_null(d);
    assert_int_equal(d->severity, DIAG_WARNING);
    assert_int_equal(d->line, 3);
    fx_free(&f);
}

/* A wmma fragment is whole rows of its tile: loading and storing it is as
 * coalesced as its layout allows (it once read "16 sectors where 0.0 would
 * hold the data": the fragment had no layout ideal). */
static void diag__reports_no_uncoalesced_access__for_wmma_fragments(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "#include <mma.h>\n"
          "using namespace nvcuda;\n"
          "extern \"C\" __global__ void k(int *p) {\n"
          "    const half *a = (const half *)p, *b = (const half *)(p + 128);\n"
          "    float *c = (float *)(p + 256);\n"
          "    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;\n"
          "    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;\n"
          "    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;\n"
          "    wmma::fill_fragment(fc, 0.0f);\n"
          "    wmma::load_matrix_sync(fa, a, 16);\n"
          "    wmma::load_matrix_sync(fb, b, 16);\n"
          "    wmma::mma_sync(fc, fa, fb, fc);\n"
          "    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);\n"
          "}\n", 1, 32, 512, false);
    assert_null(fx_finding(&f, "uncoalesced"));
    assert_true(fx_line(&f, 10, "sectors_per_request") > 0);
    assert_true(fx_line(&f, 10, "layout_sectors_per_request") == fx_line(&f, 10, "ideal_sectors_per_request"));
    assert_true(fx_line(&f, 13, "layout_sectors_per_request") == fx_line(&f, 13, "ideal_sectors_per_request"));
    fx_free(&f);
}

static void diag__measures_bank_conflicts__when_tile_read_by_column(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ int tile[32][32];\n"
          "    __shared__ int padded[32][33];\n"
          "    int x = threadIdx.x, y = threadIdx.y;\n"
          "    tile[y][x] = p[y * 32 + x];\n"
          "    padded[y][x] = p[y * 32 + x];\n"
          "    __syncthreads();\n"
          "    int a = tile[x][y];\n"
          "    int b = padded[x][y];\n"
          "    p[y * 32 + x] = a + b;\n"
          "}\n", 1, 32, 32 * 32, false);
    /* block is 32×1 here: column reads by 32 lanes hit one bank 32 times */
    assert_true(fx_line(&f, 8, "bank_conflict_degree") == 32.0);
    assert_true(fx_line(&f, 9, "bank_conflict_degree") == 1.0);
    assert_true(fx_line(&f, 5, "bank_conflict_degree") == 1.0);
    const Diag *d = fx_finding(&f, "bank-conflict");
    assert_non_null(d);
    assert_int_equal(d->severity, DIAG_WARNING);
    assert_int_equal(d->line, 8);
    for (d = f.r.findings; d; d = d->next) assert_false(d->line == 9 && !strcmp(d->code, "bank-conflict"));
    fx_free(&f);
}

static void diag__measures_divergence(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    int t = threadIdx.x;\n"
          "    if (t % 2 == 0) p[t] = p[t] * 3 + 1;\n"
          "    else p[t] = p[t] / 2;\n"
          "}\n", 2, 64, 128, false);
    assert_true(fx_total(&f, "divergent_branches") >= 4);   /* every warp diverges */
    assert_true(fx_line(&f, 3, "active_lanes_avg") < 32.0);
    fx_free(&f);
}


static void diag__reports_local_oob__when_local_array_overrun(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    int a[8];\n"
          "    for (int i = 0; i < 8; i++) a[i] = p[i];\n"
          "    p[threadIdx.x] = a[p[threadIdx.x] + 100];\n"
          "}\n", 1, 32, 64, false);
    const Diag *d = fx_finding(&f, "oob-local");
    if (!d) fail_msg("no local oob: %s", f.findings);
    assert_int_equal(d->line, 4);
    fx_free(&f);
}

static void diag__reports_deadlock__when_barrier_waits_for_shuffle(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    int v = p[threadIdx.x];\n"
          "    if (threadIdx.x < 16) {\n"
          "        __syncthreads();\n"
          "    } else {\n"
          "        v = __shfl_sync(0xffffffff, v, 0);\n"
          "    }\n"
          "    p[threadIdx.x] = v;\n"
          "}\n", 1, 32, 32, false);
    const Diag *d = fx_finding(&f, "deadlock");
    if (!d && !fx_finding(&f, "warp-sync-mask")) fail_msg("no deadlock: %s", f.findings);
    fx_free(&f);
}

static void diag__reports_global_oob_below_start(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    int i = threadIdx.x;\n"
          "    p[i] = p[i - 1];\n"
          "}\n", 1, 32, 32, false);
    const Diag *d = fx_finding(&f, "oob-global");
    if (!d) fail_msg("no oob: %s", f.findings);
    assert_non_null(strstr(d->message, "read p[-1] but p has 32 elements"));
    assert_int_equal(d->thread[0], 0);
    fx_free(&f);
}

static void diag__measures_bank_conflicts_of_8_byte_accesses(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ double d[64 * 2];\n"
          "    int t = threadIdx.x;\n"
          "    d[t] = p[t];\n"
          "    d[t * 2 + 64] = p[t];\n"
          "    __syncthreads();\n"
          "    p[t] = (int)d[t] + (int)d[t * 2 + 64];\n"
          "}\n", 1, 32, 32, false);
    /* consecutive doubles: 2 phases, no conflict; stride 2 doubles: 2-way per phase */
    assert_true(fx_line(&f, 4, "bank_conflict_degree") == 1.0);
    assert_true(fx_line(&f, 5, "bank_conflict_degree") == 2.0);
    fx_free(&f);
}

static void diag__reports_global_race__when_sum_is_not_atomic(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    int v = p[threadIdx.x + 1];\n"
          "    p[0] += v;\n"
          "}\n", 1, 64, 65, false);
    const Diag *d = fx_finding(&f, "race-global");
    if (!d) fail_msg("no global race: %s", f.findings);
    assert_int_equal(d->line, 3);
    assert_non_null(strstr(d->message, "p[0]"));
    assert_non_null(strstr(d->message, "atomic"));
    fx_free(&f);
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    int v = p[threadIdx.x + 1];\n"
          "    atomicAdd(&p[0], v);\n"
          "}\n", 1, 64, 65, false);
    if (f.r.findings) fail_msg("atomics flagged: %s", f.findings);
    fx_free(&f);
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    p[0]++;\n"
          "}\n", 4, 32, 1, false);   /* block 0 teaches the checker that p is written */
    d = fx_finding(&f, "race-global");
    if (!d) fail_msg("no lost update: %s", f.findings);
    assert_int_equal(d->line, 2);
    fx_free(&f);
}

static void diag__reports_no_race__when_threads_write_neighbouring_bytes(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ unsigned char s[128];\n"
          "    __shared__ short h[128];\n"
          "    int t = threadIdx.x;\n"
          "    s[t] = (unsigned char)p[t];\n"
          "    h[t] = (short)p[t];\n"
          "    ((unsigned char *)(p + 128))[t] = (unsigned char)(s[t] + h[t]);\n"
          "}\n", 1, 128, 160, false);
    if (f.r.findings) fail_msg("unexpected: %s", f.findings);
    fx_free(&f);
}

static void diag__reports_lost_update__when_one_warp_increments_shared_counter(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ int bins[4];\n"
          "    if (threadIdx.x < 4) bins[threadIdx.x] = 0;\n"
          "    __syncthreads();\n"
          "    bins[p[threadIdx.x] % 4]++;\n"
          "    __syncthreads();\n"
          "    if (threadIdx.x < 4) p[threadIdx.x] = bins[threadIdx.x];\n"
          "}\n", 1, 32, 32, false);
    const Diag *d = fx_finding(&f, "race-shared");
    if (!d) fail_msg("no lost update: %s", f.findings);
    assert_int_equal(d->line, 5);
    assert_int_equal(d->severity, DIAG_ERROR);
    fx_free(&f);
}

static void diag__reports_nothing__when_threads_set_a_flag_to_the_same_value(void **state) {
    (void)state;
    EmuFx f;
    run_k(&f,
          "extern \"C\" __global__ void k(int *p) {\n"
          "    __shared__ int found;\n"
          "    if (threadIdx.x == 0) found = 0;\n"
          "    __syncthreads();\n"
          "    if (p[threadIdx.x] > 40) found = 1;\n"
          "    if (p[threadIdx.x] > 50) p[0] = -1;\n"
          "    __syncthreads();\n"
          "    if (threadIdx.x == 1) p[1] = found;\n"
          "}\n", 1, 64, 64, false);
    if (f.r.findings) fail_msg("unexpected: %s", f.findings);
    fx_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diag__reports_race__when_barrier_missing),
        cmocka_unit_test(diag__reports_no_race__when_barrier_present),
        cmocka_unit_test(diag__reports_write_after_read__when_second_barrier_missing),
        cmocka_unit_test(diag__reports_barrier_divergence__when_syncthreads_in_if),
        cmocka_unit_test(diag__reports_uninitialised_shared_read),
        cmocka_unit_test(diag__reports_uninit_shared_in_learner_code_only__when_toolkit_header_is_file_1),
        cmocka_unit_test(diag__reports_shared_oob__when_tile_off_by_one),
        cmocka_unit_test(diag__reports_misaligned_access),
        cmocka_unit_test(diag__reports_assert_with_thread),
        cmocka_unit_test(diag__reports_intra_warp_hazard__when_warp_reduce_lacks_syncwarp),
        cmocka_unit_test(diag__reports_shuffle_mask__when_called_in_divergent_branch),
        cmocka_unit_test(diag__reports_trap),
        cmocka_unit_test(diag__fails_every_time__when_adversarial_and_barrier_missing),
        cmocka_unit_test(diag__measures_uncoalesced_access),
        cmocka_unit_test(diag__reports_no_uncoalesced_access__for_wmma_fragments),
        cmocka_unit_test(diag__measures_bank_conflicts__when_tile_read_by_column),
        cmocka_unit_test(diag__measures_divergence),
        cmocka_unit_test(diag__reports_local_oob__when_local_array_overrun),
        cmocka_unit_test(diag__reports_deadlock__when_barrier_waits_for_shuffle),
        cmocka_unit_test(diag__reports_global_oob_below_start),
        cmocka_unit_test(diag__measures_bank_conflicts_of_8_byte_accesses),
        cmocka_unit_test(diag__reports_global_race__when_sum_is_not_atomic),
        cmocka_unit_test(diag__reports_no_race__when_threads_write_neighbouring_bytes),
        cmocka_unit_test(diag__reports_lost_update__when_one_warp_increments_shared_counter),
        cmocka_unit_test(diag__reports_nothing__when_threads_set_a_flag_to_the_same_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
