/* tests/emu/test_exec.c: the emulator runs real NVRTC output correctly:
 * results, printf, calls, atomics, warp operations, launch validation. */
#include "tests/emu/emu_fixture.h"

#include <math.h>

static const char VECTOR_ADD[] =
    "extern \"C\" __global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

static void exec__adds_vectors__when_guarded(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, true);
    fx_load(&f, VECTOR_ADD, &o);
    enum { N = 100003 };
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
    for (int i = 0; i < N; i++) { a[i] = (float)i * 0.5f; b[i] = 1.0f / (float)(i + 1); }
    DevPtr da = fx_array(&f, "a", 4, N, a), db = fx_array(&f, "b", 4, N, b), dc = fx_array(&f, "c", 4, N, NULL);
    KernelArg args[] = {kernel_arg_ptr(da), kernel_arg_ptr(db), kernel_arg_ptr(dc), kernel_arg_i32(N)};
    fx_run(&f, "vector_add", (N + 255) / 256, 256, args, 4);
    fx_get(&f, c, dc, N * sizeof *c);
    for (int i = 0; i < N; i++) assert_true(c[i] == a[i] + b[i]);
    assert_null(f.r.findings);
    assert_true(f.r.modeled);
    assert_true(f.r.ms_median < 0);
    /* coalesced: 4 sectors per request, as ideal */
    assert_true(fabs(fx_line(&f, 3, "sectors_per_request") - fx_line(&f, 3, "ideal_sectors_per_request")) < 0.01);
    assert_true(fx_total(&f, "warp_instructions") > 0);
    free(a); free(b); free(c);
    fx_free(&f);
}

static void exec__reports_oob_with_line_and_allocation__when_guard_missing(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "extern \"C\" __global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    c[i] = a[i] + b[i];\n"
            "}\n", &o);
    enum { N = 1000 };
    DevPtr da = fx_array(&f, "a", 4, N, NULL), db = fx_array(&f, "b", 4, N, NULL), dc = fx_array(&f, "c", 4, N, NULL);
    KernelArg args[] = {kernel_arg_ptr(da), kernel_arg_ptr(db), kernel_arg_ptr(dc), kernel_arg_i32(N)};
    fx_run(&f, "vector_add", 4, 256, args, 4);
    const Diag *d = fx_finding(&f, "oob-global");
    assert_non_null(d);
    assert_int_equal(d->line, 3);
    assert_string_equal(d->file, "k.cu");
    assert_int_equal(d->severity, DIAG_ERROR);
    assert_true(d->has_thread);
    assert_int_equal(d->block[0], 3);
    assert_int_equal(d->thread[0], 232);
    assert_non_null(strstr(d->message, "read a[1000] but a has 1000 elements"));
    assert_non_null(d->excerpt);
    assert_int_equal(diag_count(f.r.findings), 1);   /* merged per (kind, line) */
    fx_free(&f);
}

/* "x has 1 element", not "1 elements": the finding reads as a sentence. */
static void exec__says_one_element__when_a_one_element_array_is_overrun(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "extern \"C\" __global__ void count(float *total) {\n"
            "    total[threadIdx.x] = 1.0f;\n"
            "}\n", &o);
    DevPtr dt = fx_array(&f, "total", 4, 1, NULL);
    KernelArg args[] = {kernel_arg_ptr(dt)};
    fx_run(&f, "count", 1, 2, args, 1);
    const Diag *d = fx_finding(&f, "oob-global");
    assert_non_null(d);
    assert_non_null(strstr(d->message, "wrote total[1] but total has 1 element."));
    fx_free(&f);
}

static const char REDUCE[] =
    "extern \"C\" __global__ void block_sum(const float *x, float *out) {\n"
    "    __shared__ float s[256];\n"
    "    int t = threadIdx.x;\n"
    "    s[t] = x[blockIdx.x * 256 + t];\n"
    "    __syncthreads();\n"
    "    for (int k = 128; k > 0; k >>= 1) {\n"
    "        if (t < k) s[t] += s[t + k];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0) out[blockIdx.x] = s[0];\n"
    "}\n";

/* A module of 300 kernels (a Thrust program has hundreds): every one is
 * loaded, the last as well as the first. */
static void exec__launches_any_kernel__when_the_module_has_hundreds(void **state) {
    (void)state;
    enum { NK = 300 };
    char *src = malloc(NK * 80);
    size_t len = 0;
    for (int k = 0; k < NK; k++)
        len += (size_t)sprintf(src + len, "extern \"C\" __global__ void k%d(int *p) { p[threadIdx.x] = %d; }\n", k, k);
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f, src, &o);
    free(src);
    DevPtr p = fx_array(&f, "p", 4, 32, NULL);
    KernelArg args[] = {kernel_arg_ptr(p)};
    int got[32];
    fx_run(&f, "k299", 1, 32, args, 1);
    fx_get(&f, got, p, sizeof got);
    assert_int_equal(got[31], 299);
    fx_run(&f, "k0", 1, 32, args, 1);
    fx_get(&f, got, p, sizeof got);
    assert_int_equal(got[0], 0);
    fx_free(&f);
}

static void exec__sums_blocks_in_shared_memory(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, true);
    fx_load(&f, REDUCE, &o);
    enum { B = 64, N = B * 256 };
    float *x = malloc(N * sizeof *x), out[B];
    for (int i = 0; i < N; i++) x[i] = (float)(i % 7);
    DevPtr dx = fx_array(&f, "x", 4, N, x), dout = fx_array(&f, "out", 4, B, NULL);
    KernelArg args[] = {kernel_arg_ptr(dx), kernel_arg_ptr(dout)};
    fx_run(&f, "block_sum", B, 256, args, 2);
    fx_get(&f, out, dout, sizeof out);
    for (int b = 0; b < B; b++) {
        float want = 0;
        for (int i = 0; i < 256; i++) want += x[b * 256 + i];
        assert_true(out[b] == want);   /* small integers: exact in any order */
    }
    assert_null(f.r.findings);
    assert_int_equal((int)fx_total(&f, "barriers"), B * 9);
    assert_true(fx_line(&f, 7, "bank_conflict_degree") == 1.0);
    free(x);
    fx_free(&f);
}

static void exec__reduces_a_warp_with_shuffles(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "extern \"C\" __global__ void warp_sum(const int *x, int *out, unsigned *ballot) {\n"
            "    int v = x[threadIdx.x];\n"
            "    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
            "    unsigned b = __ballot_sync(0xffffffff, x[threadIdx.x] & 1);\n"
            "    int w = __shfl_sync(0xffffffff, x[threadIdx.x], 31 - threadIdx.x);\n"
            "    int any = __any_sync(0xffffffff, x[threadIdx.x] == 7);\n"
            "    if (threadIdx.x == 0) { out[0] = v; out[1] = w; out[2] = any; ballot[0] = b; }\n"
            "}\n", &o);
    int x[32], out[3];
    unsigned ballot;
    for (int i = 0; i < 32; i++) x[i] = i * 3 + 1;
    DevPtr dx = fx_array(&f, "x", 4, 32, x), dout = fx_array(&f, "out", 4, 3, NULL), db = fx_array(&f, "ballot", 4, 1, NULL);
    KernelArg args[] = {kernel_arg_ptr(dx), kernel_arg_ptr(dout), kernel_arg_ptr(db)};
    fx_run(&f, "warp_sum", 1, 32, args, 3);
    fx_get(&f, out, dout, sizeof out);
    fx_get(&f, &ballot, db, sizeof ballot);
    int sum = 0;
    unsigned want_b = 0;
    for (int i = 0; i < 32; i++) { sum += x[i]; if (x[i] & 1) want_b |= 1u << i; }
    assert_int_equal(out[0], sum);
    assert_int_equal(out[1], x[31]);
    assert_int_equal(out[2], 1);
    assert_int_equal(ballot, want_b);
    assert_null(f.r.findings);
    fx_free(&f);
}

static void exec__prints_per_thread_in_order__when_printf(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    o.threads = 4;
    fx_load(&f,
            "#include <cstdio>\n"
            "extern \"C\" __global__ void hello(int k) {\n"
            "    printf(\"block %d thread %d k=%d %.2f %s\\n\", blockIdx.x, threadIdx.x, k, 1.5, \"ok\");\n"
            "}\n", &o);
    KernelArg args[] = {kernel_arg_i32(7)};
    fx_run(&f, "hello", 3, 2, args, 1);
    assert_non_null(f.r.device_output);
    assert_string_equal(f.r.device_output,
                        "block 0 thread 0 k=7 1.50 ok\nblock 0 thread 1 k=7 1.50 ok\n"
                        "block 1 thread 0 k=7 1.50 ok\nblock 1 thread 1 k=7 1.50 ok\n"
                        "block 2 thread 0 k=7 1.50 ok\nblock 2 thread 1 k=7 1.50 ok\n");
    fx_free(&f);
}

/* CUDA's device printf as the H200 does it (tests/programs/printf_star.cu):
 * `*` takes a width from an int argument (a negative one left-justifies);
 * a specification outside the device's grammar (`.*`, hh, z, j, t, %n)
 * takes no argument; the host prints z, j, t, %n as written, and a `.*`
 * without a `*` width too; hh it formats, with the argument meant for
 * an earlier specification or, past the last kept (even with none kept),
 * the bytes of the format's copy; %p of NULL is glibc's (nil); printf
 * returns the number of arguments kept. */
static void exec__printf_formats_star_widths_and_refuses_what_a_gpu_refuses(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "#include <cstdio>\n"
            "extern \"C\" __global__ void fmt(int w, int p, int *ret) {\n"
            "    ret[0] = printf(\"[%*d] [%-*d] [%-*s] [%*d]\\n\", w, 42, w, 42, w, \"ab\", -w, 7);\n"
            "    ret[1] = printf(\"%hd %hu %ld %lld %lu\\n\", 70000, 70000, -8l, -9ll, 6ul);\n"
            "    int n = 17;\n"
            "    ret[2] = printf(\"[%.*f] %zu %hhd %jd %td a%nb\\n\", p, 3.14, (size_t)5, -5, (long long)-9, (ptrdiff_t)3, &n);\n"
            "    ret[3] = n;\n"
            "    ret[4] = printf(\"%hhd %d %d\\n\", -5, 6, 7);\n"
            "    ret[5] = printf(\"[%ls] [%5ls] %p %p %%\\n\", L\"wide\", L\"ab\", (void *)0x1000, (void *)0);\n"
            "}\n", &o);
    DevPtr dr = fx_array(&f, "ret", 4, 6, NULL);
    KernelArg args[] = {kernel_arg_i32(6), kernel_arg_i32(2), kernel_arg_ptr(dr)};
    fx_run(&f, "fmt", 1, 1, args, 3);
    assert_null(f.r.findings);
    assert_non_null(f.r.device_output);
    assert_string_equal(f.r.device_output,
                        "[    42] [42    ] [ab    ] [7     ]\n"
                        "4464 4464 -8 -9 6\n"
                        "[%.*f] %zu 91 %jd %td a%nb\n"  /* %hhd: '[', the format copy's first byte */
                        "-5 6 1684564005\n"   /* "%hhd" read as an int: the format's copy */
                        "[wide] [   ab] 0x1000 (nil) %\n");
    int ret[6];
    fx_get(&f, ret, dr, sizeof ret);
    assert_int_equal(ret[0], 8);
    assert_int_equal(ret[1], 5);
    assert_int_equal(ret[2], 0);
    assert_int_equal(ret[3], 17);   /* %n stores nothing */
    assert_int_equal(ret[4], 2);
    assert_int_equal(ret[5], 4);
    fx_free(&f);
}

/* The host half of device printf knows a `.*` precision only after a `*`
 * width (H200: `%d [%.*f]` with the int kept printed `7 [%.*f]`, session
 * 9; `[%*.*f]` took its width, its precision and its value and printed
 * `[    0.00]`, session 8): a `.*` on its own comes out as written even when
 * the device kept arguments, after a width of digits too, and takes none. */
static void exec__printf_host_takes_a_star_precision_only_after_a_star_width(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "#include <cstdio>\n"
            "extern \"C\" __global__ void fmt(int w, int p, double x, int *ret) {\n"
            "    ret[0] = printf(\"after one: %d [%.*f]\\n\", 7, p, x);\n"
            "    ret[1] = printf(\"[%8.*f] %d\\n\", p, x);\n"
            "    ret[2] = printf(\"[%*.*f] [%*d]\\n\", w, p, 2.5, w, 42);\n"
            "}\n", &o);
    DevPtr dr = fx_array(&f, "ret", 4, 3, NULL);
    KernelArg args[] = {kernel_arg_i32(8), kernel_arg_i32(2), kernel_arg_f64(1.5), kernel_arg_ptr(dr)};
    fx_run(&f, "fmt", 1, 1, args, 4);
    assert_null(f.r.findings);
    assert_non_null(f.r.device_output);
    assert_string_equal(f.r.device_output,
                        "after one: 7 [%.*f]\n"
                        /* the device keeps p for the %d, and the host's %d takes it */
                        "[%8.*f] 2\n"
                        /* the device refuses `%*.*f` and keeps w and p for `%*d`; the host
                           takes them for `%*.*f`, its value from the format's copy (a tiny
                           double), and `%*d` from the copy too (out of int's range: 0) */
                        "[    0.00] [0]\n");
    int ret[3];
    fx_get(&f, ret, dr, sizeof ret);
    assert_int_equal(ret[0], 1);
    assert_int_equal(ret[1], 1);
    assert_int_equal(ret[2], 2);
    fx_free(&f);
}

static void exec__calls_noinline_functions_and_device_malloc(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "__device__ __noinline__ int triple_plus(int x, const int *p) { return 3 * x + p[x]; }\n"
            "extern \"C\" __global__ void k(int *p) {\n"
            "    int i = threadIdx.x;\n"
            "    int *tmp = (int *)malloc(2 * sizeof(int));\n"
            "    tmp[0] = i; tmp[1] = triple_plus(i, p);\n"
            "    __syncthreads();\n"
            "    p[i] = tmp[0] + tmp[1];\n"
            "    free(tmp);\n"
            "}\n", &o);
    int p[64];
    for (int i = 0; i < 64; i++) p[i] = 100 + i;
    DevPtr dp = fx_array(&f, "p", 4, 64, p);
    KernelArg args[] = {kernel_arg_ptr(dp)};
    fx_run(&f, "k", 1, 64, args, 1);
    int out[64];
    fx_get(&f, out, dp, sizeof out);
    for (int i = 0; i < 64; i++) assert_int_equal(out[i], i + 3 * i + 100 + i);
    fx_free(&f);
}

static void exec__counts_with_atomics_in_shared_and_global(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    o.threads = 3;
    fx_load(&f,
            "extern \"C\" __global__ void hist(const unsigned char *x, int n, unsigned *bins, float *fsum) {\n"
            "    __shared__ unsigned s[16];\n"
            "    if (threadIdx.x < 16) s[threadIdx.x] = 0;\n"
            "    __syncthreads();\n"
            "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
            "        atomicAdd(&s[x[i] & 15], 1u);\n"
            "    __syncthreads();\n"
            "    if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], s[threadIdx.x]);\n"
            "    atomicAdd(fsum, 0.5f);\n"
            "    atomicMax((unsigned *)&bins[16], (unsigned)threadIdx.x);\n"
            "}\n", &o);
    enum { N = 10000 };
    unsigned char *x = malloc(N);
    unsigned want[17] = {0};
    for (int i = 0; i < N; i++) { x[i] = (unsigned char)(i * 7 + i / 3); want[x[i] & 15]++; }
    want[16] = 127;
    DevPtr dx = fx_array(&f, "x", 1, N, x), db = fx_array(&f, "bins", 4, 17, NULL), ds = fx_array(&f, "fsum", 4, 1, NULL);
    KernelArg args[] = {kernel_arg_ptr(dx), kernel_arg_i32(N), kernel_arg_ptr(db), kernel_arg_ptr(ds)};
    fx_run(&f, "hist", 8, 128, args, 4);
    unsigned bins[17];
    float fs;
    fx_get(&f, bins, db, sizeof bins);
    fx_get(&f, &fs, ds, sizeof fs);
    for (int i = 0; i < 17; i++) assert_int_equal(bins[i], want[i]);
    assert_true(fs == 512.0f);
    if (f.r.findings) fail_msg("unexpected findings: %s", f.findings);
    free(x);
    fx_free(&f);
}

static void exec__uses_dynamic_shared_memory(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "extern \"C\" __global__ void rev(int *d, int n) {\n"
            "    extern __shared__ int s[];\n"
            "    int t = threadIdx.x;\n"
            "    s[t] = d[t];\n"
            "    __syncthreads();\n"
            "    d[t] = s[n - t - 1];\n"
            "}\n", &o);
    int d[100];
    for (int i = 0; i < 100; i++) d[i] = i * i;
    DevPtr dd = fx_array(&f, "d", 4, 100, d);
    KernelArg args[] = {kernel_arg_ptr(dd), kernel_arg_i32(100)};
    Diag *err = fx_launch(&f, "rev", (Dim3){1, 1, 1}, (Dim3){100, 1, 1}, 100 * sizeof(int), args, 2);
    assert_null(err);
    int out[100];
    fx_get(&f, out, dd, sizeof out);
    for (int i = 0; i < 100; i++) assert_int_equal(out[i], (99 - i) * (99 - i));
    assert_null(f.r.findings);
    fx_free(&f);
}

static void exec__computes_ieee_results_bit_exactly(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(false, false);
    fx_load(&f,
            "extern \"C\" __global__ void m(const float *x, float *yf, double *yd, int *yi) {\n"
            "    int i = threadIdx.x;\n"
            "    float v = x[i];\n"
            "    yf[4 * i + 0] = v / 3.0f;\n"
            "    yf[4 * i + 1] = sqrtf(v);\n"
            "    yf[4 * i + 2] = fmaf(v, 1.1f, -0.3f);\n"
            "    yf[4 * i + 3] = (float)(int)v + __float2int_rn(v * 0.5f);\n"
            "    yd[i] = (double)v / 7.0 + sqrt((double)v);\n"
            "    yi[2 * i] = (int)v / 3 - (int)v % 5;\n"
            "    yi[2 * i + 1] = __popc((unsigned)(int)v) + __clz((int)v) + __brev((unsigned)i);\n"
            "}\n", &o);
    float x[64];
    for (int i = 0; i < 64; i++) x[i] = (float)i * 1.37f - 20.0f;
    DevPtr dx = fx_array(&f, "x", 4, 64, x), dyf = fx_array(&f, "yf", 4, 256, NULL);
    DevPtr dyd = fx_array(&f, "yd", 8, 64, NULL), dyi = fx_array(&f, "yi", 4, 128, NULL);
    KernelArg args[] = {kernel_arg_ptr(dx), kernel_arg_ptr(dyf), kernel_arg_ptr(dyd), kernel_arg_ptr(dyi)};
    fx_run(&f, "m", 1, 64, args, 4);
    float yf[256];
    double yd[64];
    int yi[128];
    fx_get(&f, yf, dyf, sizeof yf);
    fx_get(&f, yd, dyd, sizeof yd);
    fx_get(&f, yi, dyi, sizeof yi);
    for (int i = 0; i < 64; i++) {
        float v = x[i];
        assert_true(yf[4 * i] == v / 3.0f);
        float s = sqrtf(v);
        assert_true(memcmp(&yf[4 * i + 1], &s, 4) == 0 || (isnan(s) && isnan(yf[4 * i + 1])));
        assert_true(yf[4 * i + 2] == fmaf(v, 1.1f, -0.3f));
        assert_true(yf[4 * i + 3] == (float)(int)v + (float)(int)nearbyintf(v * 0.5f));
        double wd = (double)v / 7.0 + sqrt((double)v);
        assert_true(yd[i] == wd || (isnan(wd) && isnan(yd[i])));
        assert_int_equal(yi[2 * i], (int)v / 3 - (int)v % 5);
        unsigned r = 0, u = (unsigned)i;
        for (int b = 0; b < 32; b++) if (u >> b & 1) r |= 1u << (31 - b);
        int clz = (int)v == 0 ? 32 : __builtin_clz((unsigned)(int)v);
        assert_int_equal(yi[2 * i + 1], (int)(__builtin_popcount((unsigned)(int)v) + clz + r));
    }
    fx_free(&f);
}

static void exec__rejects_launch__when_block_too_large(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(false, false);
    fx_load(&f, VECTOR_ADD, &o);
    KernelArg args[] = {kernel_arg_ptr(0), kernel_arg_ptr(0), kernel_arg_ptr(0), kernel_arg_i32(0)};
    Diag *d = fx_launch(&f, "vector_add", (Dim3){1, 1, 1}, (Dim3){2048, 1, 1}, 0, args, 4);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "invalid configuration argument"));
    assert_non_null(strstr(d->message, "1024"));
    diag_free(&d);
    d = fx_launch(&f, "vector_add", (Dim3){1, 1, 1}, (Dim3){32, 1, 1}, 256 * 1024, args, 4);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "shared memory"));
    diag_free(&d);
    fx_free(&f);
}

static void exec__stops_runaway_kernel__when_budget_exceeded(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(false, false);
    o.instruction_budget = 200000;
    fx_load(&f,
            "extern \"C\" __global__ void spin(volatile int *flag) {\n"
            "    while (*flag == 0) { }\n"
            "}\n", &o);
    DevPtr d = fx_array(&f, "flag", 4, 1, NULL);
    KernelArg args[] = {kernel_arg_ptr(d)};
    fx_run(&f, "spin", 4, 64, args, 1);
    const Diag *fd = fx_finding(&f, "did-not-finish");
    assert_non_null(fd);
    assert_non_null(strstr(fd->message, "did not finish"));
    fx_free(&f);
}

static void exec__gives_same_output__with_any_thread_count(void **state) {
    (void)state;
    char *outs[3];
    int threads[3] = {1, 2, 5};
    for (int k = 0; k < 3; k++) {
        EmuFx f;
        EmuOptions o = fx_opts(true, true);
        o.threads = threads[k];
        o.deterministic = k == 0;
        fx_load(&f,
                "#include <cstdio>\n"
                "extern \"C\" __global__ void k(int *p) {\n"
                "    if (threadIdx.x % 8 == 0) printf(\"%d:%d \", blockIdx.x, threadIdx.x);\n"
                "    p[blockIdx.x * blockDim.x + threadIdx.x + 1] = 1;\n"
                "}\n", &o);
        DevPtr d = fx_array(&f, "p", 4, 64 * 16, NULL);
        KernelArg args[] = {kernel_arg_ptr(d)};
        fx_run(&f, "k", 16, 64, args, 1);
        char *metrics = json_dumps(f.r.metrics, JSON_SORT_KEYS);
        outs[k] = malloc(strlen(f.r.device_output) + strlen(f.findings) + strlen(metrics) + 3);
        sprintf(outs[k], "%s|%s|%s", f.r.device_output, f.findings, metrics);
        free(metrics);
        fx_free(&f);
    }
    assert_string_equal(outs[0], outs[1]);
    assert_string_equal(outs[0], outs[2]);
    assert_non_null(strstr(outs[0], "p[1024] but p has 1024 elements"));
    for (int k = 0; k < 3; k++) free(outs[k]);
}

static void exec__runs_template_kernels_by_name_expression(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    const char *names[] = {"scale<float>", "scale<int>"};
    CompileOptions co;
    memset(&co, 0, sizeof co);
    co.cache_dir = "";
    co.name_exprs = names;
    co.n_name_exprs = 2;
    fx_load_opts(&f,
                 "template <typename T> __global__ void scale(T *x, T s) { x[threadIdx.x] *= s; }\n", &o, &co);
    float xf[32];
    int xi[32];
    for (int i = 0; i < 32; i++) { xf[i] = (float)i; xi[i] = i; }
    DevPtr df = fx_array(&f, "xf", 4, 32, xf), di = fx_array(&f, "xi", 4, 32, xi);
    KernelArg af[] = {kernel_arg_ptr(df), kernel_arg_f32(2.5f)};
    KernelArg ai[] = {kernel_arg_ptr(di), kernel_arg_i32(-3)};
    fx_run(&f, "scale<float>", 1, 32, af, 2);
    fx_run(&f, "scale<int>", 1, 32, ai, 2);
    fx_get(&f, xf, df, sizeof xf);
    fx_get(&f, xi, di, sizeof xi);
    for (int i = 0; i < 32; i++) {
        assert_true(xf[i] == (float)i * 2.5f);
        assert_int_equal(xi[i], -3 * i);
    }
    fx_free(&f);
}


static void exec__counts_votes_with_syncthreads_count_and_or(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "extern \"C\" __global__ void k(const int *x, int *out) {\n"
            "    int v = x[threadIdx.x];\n"
            "    int c = __syncthreads_count(v > 10);\n"
            "    int a = __syncthreads_and(v >= 0);\n"
            "    int o = __syncthreads_or(v == 99);\n"
            "    if (threadIdx.x == 0) { out[0] = c; out[1] = a; out[2] = o; }\n"
            "}\n", &o);
    int x[96];
    for (int i = 0; i < 96; i++) x[i] = i;
    DevPtr dx = fx_array(&f, "x", 4, 96, x), dout = fx_array(&f, "out", 4, 3, NULL);
    KernelArg args[] = {kernel_arg_ptr(dx), kernel_arg_ptr(dout)};
    fx_run(&f, "k", 1, 96, args, 2);
    int out[3];
    fx_get(&f, out, dout, sizeof out);
    assert_int_equal(out[0], 85);
    assert_int_equal(out[1], 1);
    assert_int_equal(out[2], 0);
    assert_null(f.r.findings);
    fx_free(&f);
}

static void exec__uses_local_arrays_constants_and_globals(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "__constant__ float coef[4] = {0.5f, 1.5f, -2.0f, 4.0f};\n"
            "__device__ int table[8] = {1, 2, 3};\n"
            "__device__ unsigned counter;\n"
            "extern \"C\" __global__ void k(const int *idx, float *out, int n) {\n"
            "    float local[16];\n"
            "    int i = threadIdx.x;\n"
            "    for (int j = 0; j < 16; j++) local[j] = coef[j % 4] * (float)(i + j);\n"
            "    out[i] = local[idx[i] % 16] + (float)table[i % 8];\n"
            "    atomicAdd(&counter, 1u);\n"
            "    __syncthreads();\n"
            "    if (i == 0) out[n] = (float)counter;\n"
            "}\n", &o);
    int idx[64];
    for (int i = 0; i < 64; i++) idx[i] = (i * 7) % 23;
    DevPtr di = fx_array(&f, "idx", 4, 64, idx), dout = fx_array(&f, "out", 4, 65, NULL);
    KernelArg args[] = {kernel_arg_ptr(di), kernel_arg_ptr(dout), kernel_arg_i32(64)};
    fx_run(&f, "k", 1, 64, args, 3);
    float out[65];
    fx_get(&f, out, dout, sizeof out);
    const float coef[4] = {0.5f, 1.5f, -2.0f, 4.0f};
    const int table[8] = {1, 2, 3, 0, 0, 0, 0, 0};
    for (int i = 0; i < 64; i++) {
        int j = idx[i] % 16;
        assert_true(out[i] == coef[j % 4] * (float)(i + j) + (float)table[i % 8]);
    }
    assert_true(out[64] == 64.0f);
    if (f.r.findings) fail_msg("unexpected: %s", f.findings);
    fx_free(&f);
}

static void exec__runs_half_precision_and_2d_blocks(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "#include <cuda_fp16.h>\n"
            "extern \"C\" __global__ void k(const float *x, float *out, int w) {\n"
            "    int cx = blockIdx.x * blockDim.x + threadIdx.x, cy = blockIdx.y * blockDim.y + threadIdx.y;\n"
            "    int i = cy * w + cx;\n"
            "    __half h = __float2half(x[i]);\n"
            "    __half2 p = __halves2half2(h, __float2half(2.0f));\n"
            "    p = __hmul2(p, p);\n"
            "    out[i] = __half2float(__low2half(p)) + __half2float(__high2half(p));\n"
            "}\n", &o);
    enum { W = 16, H = 8 };
    float x[W * H], out[W * H];
    for (int i = 0; i < W * H; i++) x[i] = (float)i * 0.25f;
    DevPtr dx = fx_array(&f, "x", 4, W * H, x), dout = fx_array(&f, "out", 4, W * H, NULL);
    KernelArg args[] = {kernel_arg_ptr(dx), kernel_arg_ptr(dout), kernel_arg_i32(W)};
    Diag *d = fx_launch(&f, "k", (Dim3){W / 8, H / 4, 1}, (Dim3){8, 4, 1}, 0, args, 3);
    assert_null(d);
    fx_get(&f, out, dout, sizeof out);
    /* x = i/4 ≤ 31.75 is exact in half; its square rounds to half precision */
    for (int i = 0; i < W * H; i++) {
        float sq = x[i] * x[i];
        float lo = sq;
        if (sq > 0) {
            int e;
            frexpf(sq, &e);
            float ulp = ldexpf(1.0f, e - 11);
            lo = nearbyintf(sq / ulp) * ulp;
        }
        assert_true(out[i] == lo + 4.0f);
    }
    fx_free(&f);
}

/* NaNs through the conversions the H200 measured (sessions 8 and 9,
 * tests/programs/half_bf16.cu), in compute_90 PTX as a GPU of sm_90 runs
 * cuda_fp16.h/cuda_bf16.h: a double NaN to half (cvt.rn.f16.f64) is 0x7e00
 * and to bf16 (cvt.rn.bf16.f64) 0x7fc0, where a float NaN gives 0x7fff for
 * both; bf16 to float (cvt.f32.bf16) keeps the NaN's bits, half to float
 * gives the canonical 0x7fffffff. */
static void exec__converts_nans_as_an_h200__when_double_or_bf16(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    CompileOptions co;
    memset(&co, 0, sizeof co);
    co.cache_dir = "";
    co.virtual_arch = 90;
    fx_load_opts(&f,
                 "#include <cuda_fp16.h>\n"
                 "#include <cuda_bf16.h>\n"
                 "extern \"C\" __global__ void k(const double *d, unsigned *o) {\n"
                 "    float x = (float)d[0];\n"
                 "    o[0] = __half_as_ushort(__double2half(d[0]));\n"
                 "    o[1] = __bfloat16_as_ushort(__double2bfloat16(d[0]));\n"
                 "    o[2] = __half_as_ushort(__float2half(x));\n"
                 "    o[3] = __bfloat16_as_ushort(__float2bfloat16(x));\n"
                 "    o[4] = __float_as_uint(__bfloat162float(__ushort_as_bfloat16(0x7fff)));\n"
                 "    o[5] = __float_as_uint(__half2float(__ushort_as_half(0x7fff)));\n"
                 "    o[6] = __bfloat16_as_ushort(__double2bfloat16(d[1]));\n"
                 "}\n", &o, &co);
    double in[2] = {NAN, 1.0 / 3.0};
    DevPtr dd = fx_array(&f, "d", 8, 2, in), dout = fx_array(&f, "o", 4, 7, NULL);
    KernelArg args[] = {kernel_arg_ptr(dd), kernel_arg_ptr(dout)};
    fx_run(&f, "k", 1, 1, args, 2);
    unsigned out[7];
    fx_get(&f, out, dout, sizeof out);
    assert_int_equal(out[0], 0x7e00);
    assert_int_equal(out[1], 0x7fc0);
    assert_int_equal(out[2], 0x7fff);
    assert_int_equal(out[3], 0x7fff);
    assert_int_equal(out[4], 0x7fff0000u);
    assert_int_equal(out[5], 0x7fffffffu);
    assert_int_equal(out[6], 0x3eab);   /* 1/3 rounds as before */
    fx_free(&f);
}

static void exec__runs_fast_math_within_documented_bounds(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(false, false);
    CompileOptions co;
    memset(&co, 0, sizeof co);
    co.cache_dir = "";
    co.fast_math = true;
    fx_load_opts(&f,
                 "extern \"C\" __global__ void k(const float *x, float *out) {\n"
                 "    int i = threadIdx.x;\n"
                 "    float v = x[i];\n"
                 "    out[4 * i] = __sinf(v);\n"
                 "    out[4 * i + 1] = expf(v);\n"
                 "    out[4 * i + 2] = logf(v + 2.0f);\n"
                 "    out[4 * i + 3] = v / 3.0f;\n"
                 "}\n", &o, &co);
    float x[64], out[256];
    for (int i = 0; i < 64; i++) x[i] = (float)i / 16.0f - 1.5f;
    DevPtr dx = fx_array(&f, "x", 4, 64, x), dout = fx_array(&f, "out", 4, 256, NULL);
    KernelArg args[] = {kernel_arg_ptr(dx), kernel_arg_ptr(dout)};
    fx_run(&f, "k", 1, 64, args, 2);
    fx_get(&f, out, dout, sizeof out);
    for (int i = 0; i < 64; i++) {
        assert_true(fabs(out[4 * i] - sin(x[i])) < 1e-6);
        assert_true(fabs(out[4 * i + 1] - exp(x[i])) <= 4e-7 * exp(x[i]) + 1e-7);
        assert_true(fabs(out[4 * i + 2] - log(x[i] + 2.0)) < 2e-6);
        assert_true(fabs(out[4 * i + 3] - x[i] / 3.0) <= 2.4e-7 * fabs(x[i] / 3.0));
    }
    fx_free(&f);
}

static void exec__computes_byte_dot_products__when_nvrtc_uses_dp4a(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "extern \"C\" __global__ void gray(const unsigned char *rgb, unsigned char *g, int n) {\n"
            "    int p = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (p >= n) return;\n"
            "    int r = rgb[3 * p], gg = rgb[3 * p + 1], b = rgb[3 * p + 2];\n"
            "    g[p] = (unsigned char)((77 * r + 150 * gg + 29 * b + 128) >> 8);\n"
            "    int s = __dp4a((int)0x80ff7f01, (int)0x02fe0304, 5);\n"
            "    unsigned u = __dp4a(0x80ff7f01u, 0x02fe0304u, 5u);\n"
            "    if (p == 0) { g[n] = (unsigned char)s; g[n + 1] = (unsigned char)(s >> 8); g[n + 2] = (unsigned char)u; g[n + 3] = (unsigned char)(u >> 8); }\n"
            "}\n", &o);
    enum { N = 300 };
    unsigned char rgb[3 * N], out[N + 4];
    for (int i = 0; i < 3 * N; i++) rgb[i] = (unsigned char)(i * 37 + 11);
    DevPtr dr = fx_array(&f, "rgb", 1, 3 * N, rgb), dg = fx_array(&f, "g", 1, N + 4, NULL);
    KernelArg args[] = {kernel_arg_ptr(dr), kernel_arg_ptr(dg), kernel_arg_i32(N)};
    fx_run(&f, "gray", 3, 128, args, 3);
    fx_get(&f, out, dg, sizeof out);
    for (int p = 0; p < N; p++)
        assert_int_equal(out[p], (77 * rgb[3 * p] + 150 * rgb[3 * p + 1] + 29 * rgb[3 * p + 2] + 128) >> 8);
    int s = 5 + 1 * 4 + 127 * 3 + (-1) * (-2) + (-128) * 2;
    unsigned u = 5u + 1u * 4u + 127u * 3u + 255u * 254u + 128u * 2u;
    assert_int_equal(out[N] | out[N + 1] << 8, (unsigned)s & 0xffff);
    assert_int_equal(out[N + 2] | out[N + 3] << 8, u & 0xffff);
    fx_free(&f);
}

/* ulps between two floats of the same sign */
static long ulp_diff(float a, float b) {
    int32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return labs((long)x - (long)y);
}

static void exec__runs_sinf_with_carry_arithmetic__when_argument_is_large(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(false, false);
    fx_load(&f,
            "struct P { float scale[3]; int n; };\n"
            "extern \"C\" __global__ void k(const float *x, float *out, P p) {\n"
            "    int i = threadIdx.x;\n"
            "    float v = x[i] * p.scale[i % 3];\n"
            "    out[i] = sinf(v) + (float)p.n;\n"
            "}\n", &o);
    float x[64], out[64];
    for (int i = 0; i < 64; i++) x[i] = (float)(i + 1) * 98765.4321f;   /* Payne-Hanek range reduction */
    DevPtr dx = fx_array(&f, "x", 4, 64, x), dout = fx_array(&f, "out", 4, 64, NULL);
    struct { float scale[3]; int n; } p = {{1.0f, -1.0f, 3.0f}, 0};
    KernelArg pa;
    memset(&pa, 0, sizeof pa);
    pa.size = sizeof p;
    memcpy(pa.bytes, &p, sizeof p);
    KernelArg args[] = {kernel_arg_ptr(dx), kernel_arg_ptr(dout), pa};
    fx_run(&f, "k", 1, 64, args, 3);
    fx_get(&f, out, dout, sizeof out);
    for (int i = 0; i < 64; i++) {
        float v = x[i] * p.scale[i % 3];
        float want = (float)sin((double)v);
        if (ulp_diff(out[i], want) > 2) fail_msg("sinf(%.9g): got %.9g want %.9g", v, out[i], want);
    }
    fx_free(&f);
}

static void exec__copies_asynchronously__when_cp_async(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    fx_load(&f,
            "#include <cuda_pipeline.h>\n"
            "extern \"C\" __global__ void k(const float *g, float *out) {\n"
            "    __shared__ float s[128];\n"
            "    __pipeline_memcpy_async(&s[threadIdx.x], &g[threadIdx.x], sizeof(float));\n"
            "    __pipeline_commit();\n"
            "    __pipeline_wait_prior(0);\n"
            "    __syncthreads();\n"
            "    out[threadIdx.x] = s[127 - threadIdx.x];\n"
            "}\n", &o);
    float g[128], out[128];
    for (int i = 0; i < 128; i++) g[i] = (float)i * 1.5f;
    DevPtr dg = fx_array(&f, "g", 4, 128, g), dout = fx_array(&f, "out", 4, 128, NULL);
    KernelArg args[] = {kernel_arg_ptr(dg), kernel_arg_ptr(dout)};
    fx_run(&f, "k", 1, 128, args, 2);
    fx_get(&f, out, dout, sizeof out);
    for (int i = 0; i < 128; i++) assert_true(out[i] == g[127 - i]);
    if (f.r.findings) fail_msg("unexpected: %s", f.findings);
    fx_free(&f);
}

static void exec__hands_data_over__when_warps_use_a_named_barrier(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, false);
    o.adversarial = true;
    fx_load(&f,
            "extern \"C\" __global__ void k(int *p) {\n"
            "    __shared__ int buf[32];\n"
            "    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;\n"
            "    if (warp == 0) {\n"
            "        buf[lane] = p[lane] * 2;\n"
            "        asm volatile(\"bar.arrive 1, 64;\" ::: \"memory\");\n"
            "    } else {\n"
            "        asm volatile(\"bar.sync 1, 64;\" ::: \"memory\");\n"
            "        p[32 + lane] = buf[lane];\n"
            "    }\n"
            "}\n", &o);
    int p[64];
    for (int i = 0; i < 64; i++) p[i] = i + 5;
    DevPtr dp = fx_array(&f, "p", 4, 64, p);
    KernelArg args[] = {kernel_arg_ptr(dp)};
    for (int rep = 0; rep < 3; rep++) {
        fx_run(&f, "k", 4, 64, args, 1);
        int out[64];
        fx_get(&f, out, dp, sizeof out);
        for (int i = 0; i < 32; i++) assert_int_equal(out[32 + i], 2 * (i + 5));
        if (f.r.findings) fail_msg("unexpected: %s", f.findings);
    }
    fx_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exec__adds_vectors__when_guarded),
        cmocka_unit_test(exec__launches_any_kernel__when_the_module_has_hundreds),
        cmocka_unit_test(exec__reports_oob_with_line_and_allocation__when_guard_missing),
        cmocka_unit_test(exec__says_one_element__when_a_one_element_array_is_overrun),
        cmocka_unit_test(exec__sums_blocks_in_shared_memory),
        cmocka_unit_test(exec__reduces_a_warp_with_shuffles),
        cmocka_unit_test(exec__prints_per_thread_in_order__when_printf),
        cmocka_unit_test(exec__printf_formats_star_widths_and_refuses_what_a_gpu_refuses),
        cmocka_unit_test(exec__printf_host_takes_a_star_precision_only_after_a_star_width),
        cmocka_unit_test(exec__calls_noinline_functions_and_device_malloc),
        cmocka_unit_test(exec__counts_with_atomics_in_shared_and_global),
        cmocka_unit_test(exec__uses_dynamic_shared_memory),
        cmocka_unit_test(exec__computes_ieee_results_bit_exactly),
        cmocka_unit_test(exec__rejects_launch__when_block_too_large),
        cmocka_unit_test(exec__stops_runaway_kernel__when_budget_exceeded),
        cmocka_unit_test(exec__gives_same_output__with_any_thread_count),
        cmocka_unit_test(exec__runs_template_kernels_by_name_expression),
        cmocka_unit_test(exec__counts_votes_with_syncthreads_count_and_or),
        cmocka_unit_test(exec__uses_local_arrays_constants_and_globals),
        cmocka_unit_test(exec__runs_half_precision_and_2d_blocks),
        cmocka_unit_test(exec__converts_nans_as_an_h200__when_double_or_bf16),
        cmocka_unit_test(exec__runs_fast_math_within_documented_bounds),
        cmocka_unit_test(exec__computes_byte_dot_products__when_nvrtc_uses_dp4a),
        cmocka_unit_test(exec__runs_sinf_with_carry_arithmetic__when_argument_is_large),
        cmocka_unit_test(exec__copies_asynchronously__when_cp_async),
        cmocka_unit_test(exec__hands_data_over__when_warps_use_a_named_barrier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
