/* tests/kernels/test_cuda_backend.c: the GPU backend.
 *
 * Without a GPU (CI): the "no GPU: <reason>" answer, the wording of CUDA's
 * errors, launch-limit checks and the PTX parameter layout. With a GPU (or
 * under `make test-gpu`, where CUDOJO_TEST_GPU=1 turns a missing GPU into a
 * failure): memory round trips, a correct vector add from the cubin and from
 * the PTX, timing, printf capture, peak bandwidth and the error reports. The
 * illegal-address test runs last because it loses the CUDA context. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/backend.h"
#include "kernels/compile.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/cuda_internal.h"
#include "kernels/gpu_lock.h"
#include "kernels/host_pool.h"

typedef struct Gpu {
    Backend *b;
    Diag *why;
    DeviceInfo info;
} Gpu;

static Gpu gpu;

static int group_setup(void **state) {
    (void)state;
    gpu.b = cuda_backend_new(&gpu.why);
    if (gpu.b) assert_null(gpu.b->ops->device_info(gpu.b, &gpu.info));
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    backend_close(&gpu.b);
    diag_free(&gpu.why);
    return 0;
}

/* Skips without a GPU, unless CUDOJO_TEST_GPU says one must be there. */
static void need_gpu(void) {
    if (gpu.b) return;
    if (getenv("CUDOJO_TEST_GPU"))
        fail_msg("CUDOJO_TEST_GPU is set but the GPU backend failed: %s",
                 gpu.why ? gpu.why->message : "(no reason)");
    skip();
}

static const char *KERNELS =
    "__global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "__global__ void count(int *total) { atomicAdd(total, 1); }\n"
    "__device__ long long now_ns() { long long t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return t; }\n"
    "__global__ void spin(long long ns) { long long t0 = now_ns(); while (now_ns() - t0 < ns) {} }\n"
    "__global__ void hello(int x) { if (threadIdx.x == 0) printf(\"hello %d\\n\", x); }\n"
    "__global__ void wild(float *a, long long off) { a[off] = 1.0f; }\n"
    "struct Pair { double x, y; };\n"
    "extern \"C\" __global__ void by_value(Pair p, char c, short s, double *out) { out[0] = p.x + p.y + c + s; }\n";

static CompiledModule *compile_kernels(int cubin_arch) {
    CompileOptions o = {0};
    o.cache_dir = "";
    o.cubin_arch = cubin_arch;
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("kernels.cu", KERNELS, &o, &m);
    if (d) fail_msg("%s", diag_format_all(d, false));
    return m;
}

/* ---- without a GPU ---- */

static void cuda_backend_new__says_no_gpu_and_why__when_none_works(void **state) {
    (void)state;
    if (gpu.b) skip();
    assert_non_null(gpu.why);
    assert_string_equal(gpu.why->code, "no-gpu");
    assert_int_equal(strncmp(gpu.why->message, "no GPU: ", 8), 0);
    assert_true(strlen(gpu.why->message) > 12);
    void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!libcuda)
        assert_non_null(strstr(gpu.why->message, "driver"));    /* this CI machine: no driver */
    else
        dlclose(libcuda);
    /* backend_open(AUTO) must not fail because of it (the emulator takes over). */
    Diag *why = NULL;
    Backend *b = cuda_backend_new(&why);
    assert_null(b);
    assert_string_equal(why->message, gpu.why->message);
    diag_free(&why);
}

static DeviceInfo h200(void) {
    DeviceInfo d;
    memset(&d, 0, sizeof d);
    d.max_threads_per_block = 1024;
    d.max_block[0] = 1024, d.max_block[1] = 1024, d.max_block[2] = 64;
    d.max_grid[0] = 2147483647, d.max_grid[1] = 65535, d.max_grid[2] = 65535;
    d.shared_per_block = 48 << 10;
    d.shared_per_block_optin = 227 << 10;
    d.regs_per_block = 65536;
    return d;
}

static LaunchConfig config(unsigned gx, unsigned gy, unsigned bx, unsigned by, unsigned bz) {
    LaunchConfig c = {{gx, gy, 1}, {bx, by, bz}, 0, 0, 0, false, 0, 0, 0};
    return c;
}

static void check_launch__names_the_limit__when_block_too_large(void **state) {
    (void)state;
    DeviceInfo d = h200();
    LaunchConfig c = config(10, 1, 2048, 1, 1);
    Diag *x = cuda_check_launch(&d, &c, "vector_add", "v.cu", -1);
    assert_non_null(x);
    assert_non_null(strstr(x->message, "block too large"));
    assert_non_null(strstr(x->message, "at most 1024 threads per block"));
    assert_string_equal(x->file, "v.cu");
    diag_free(&x);
    c = config(10, 1, 1, 1, 128);
    x = cuda_check_launch(&d, &c, "k", NULL, -1);
    assert_non_null(strstr(x->message, "block.z = 128"));
    assert_non_null(strstr(x->message, "at most 64"));
    diag_free(&x);
    c = config(1, 70000, 32, 1, 1);
    x = cuda_check_launch(&d, &c, "k", NULL, -1);
    assert_non_null(strstr(x->message, "grid.y = 70000"));
    diag_free(&x);
    c = config(0, 1, 32, 1, 1);
    x = cuda_check_launch(&d, &c, "k", NULL, -1);
    assert_non_null(strstr(x->message, "at least 1"));
    diag_free(&x);
    c = config(1, 1, 256, 1, 1);
    c.shared_bytes = 300 << 10;
    x = cuda_check_launch(&d, &c, "k", NULL, -1);
    assert_non_null(strstr(x->message, "dynamic shared memory"));
    diag_free(&x);
    c = config(1, 1, 1024, 1, 1);
    x = cuda_check_launch(&d, &c, "k", NULL, 128);        /* 128 regs × 1024 threads */
    assert_non_null(strstr(x->message, "__launch_bounds__"));
    assert_non_null(strstr(x->message, "131072"));
    diag_free(&x);
    c = config(4000, 1, 1024, 1, 1);
    assert_null(cuda_check_launch(&d, &c, "k", NULL, 32));
}

static void error_diag__advises_emulator_and_marks_sticky__when_illegal_address(void **state) {
    (void)state;
    bool sticky = false;
    /* 700 = cudaErrorIllegalAddress, 716 misaligned, 710 assert, 9 invalid configuration. */
    Diag *d = cuda_error_diag(700, "an illegal memory access was encountered", "launch", "vector_add",
                              "v.cu", NULL, -1, NULL, &sticky);
    assert_true(sticky);
    assert_string_equal(d->code, CUDA_DIAG_STICKY);
    assert_string_equal(d->file, "v.cu");
    assert_non_null(strstr(d->message, "vector_add"));
    assert_non_null(strstr(d->message, "--backend=emu"));
    assert_non_null(strstr(d->message, "worker restarts"));
    diag_free(&d);
    d = cuda_error_diag(716, "misaligned address", "launch", "k", NULL, NULL, -1, NULL, &sticky);
    assert_true(sticky);
    assert_non_null(strstr(d->message, "misaligned"));
    diag_free(&d);
    d = cuda_error_diag(710, "device-side assert triggered", "launch", "k", NULL, NULL, -1, NULL, &sticky);
    assert_true(sticky);
    assert_non_null(strstr(d->message, "assert"));
    diag_free(&d);
    d = cuda_error_diag(9, "invalid configuration argument", "launch", "k", NULL, NULL, -1, NULL, &sticky);
    assert_false(sticky);
    assert_string_equal(d->code, "gpu");
    diag_free(&d);
}

static void ptx_params__gives_sizes__when_pointers_scalars_and_structs(void **state) {
    (void)state;
    CompiledModule *m = compile_kernels(0);
    size_t sizes[8];
    const KernelInfo *k = compiled_module_find(m, "vector_add");
    assert_int_equal(cuda_ptx_params(m->ptx, k->lowered, sizes, 8), 4);
    assert_int_equal(sizes[0], 8);
    assert_int_equal(sizes[2], 8);
    assert_int_equal(sizes[3], 4);
    assert_int_equal(cuda_ptx_params(m->ptx, "by_value", sizes, 8), 4);
    assert_int_equal(sizes[0], 16);
    assert_int_equal(sizes[1], 1);
    assert_int_equal(sizes[2], 2);
    assert_int_equal(sizes[3], 8);
    assert_int_equal(cuda_ptx_params(m->ptx, "nope", sizes, 8), -1);
    KernelArg args[4] = {kernel_arg_ptr(1), kernel_arg_ptr(2), kernel_arg_ptr(3), kernel_arg_i32(4)};
    assert_null(cuda_check_args(m->ptx, k->lowered, "vector_add", "kernels.cu", args, 4));
    Diag *d = cuda_check_args(m->ptx, k->lowered, "vector_add", "kernels.cu", args, 3);
    assert_non_null(strstr(d->message, "takes 4 arguments but the launch passes 3"));
    diag_free(&d);
    args[3] = kernel_arg_i64(4);
    d = cuda_check_args(m->ptx, k->lowered, "vector_add", "kernels.cu", args, 4);
    assert_non_null(strstr(d->message, "argument 4 of kernel vector_add is 8 bytes"));
    diag_free(&d);
    compiled_module_free(&m);
}

/* ---- with a GPU ---- */

static void device_info__describes_the_gpu__when_present(void **state) {
    (void)state;
    need_gpu();
    assert_true(gpu.info.name[0] != '\0');
    assert_true(gpu.info.cc_major >= 5);
    assert_true(gpu.info.sm_count > 0);
    assert_true(gpu.info.global_mem > (1u << 30));
    assert_int_equal(gpu.info.warp_size, 32);
    assert_true(gpu.info.max_threads_per_block >= 1024);
    assert_true(gpu.info.driver_version > 0);
    assert_true(gpu.info.mem_clock_khz > 0);
    assert_true(gpu.info.peak_bandwidth_gbs > 0);
}

static void memory__round_trips__when_copied_and_memset(void **state) {
    (void)state;
    need_gpu();
    Backend *b = gpu.b;
    enum { N = 1000 };
    int host[N], back[N];
    for (int i = 0; i < N; i++) host[i] = i * 7 - 3;
    DevPtr p;
    assert_null(b->ops->mem_alloc(b, sizeof host, "x", sizeof host[0], &p));
    assert_true(p != 0);
    assert_null(b->ops->copy_to_device(b, p, host, sizeof host));
    memset(back, 0, sizeof back);
    assert_null(b->ops->copy_to_host(b, back, p, sizeof back));
    assert_memory_equal(host, back, sizeof host);
    assert_null(b->ops->memset(b, p, 0xff, sizeof host));
    assert_null(b->ops->copy_to_host(b, back, p, sizeof back));
    assert_int_equal(back[0], -1);
    assert_int_equal(back[N - 1], -1);
    Diag *d = b->ops->copy_to_host(b, back, p, sizeof back + 4);   /* one past the end */
    assert_non_null(d);
    assert_non_null(strstr(d->message, "x has 4000 bytes"));
    diag_free(&d);
    assert_null(b->ops->mem_free(b, p));
}

/* budget_ms: LaunchConfig.timed_budget_ms; want_reps: the reps it should
 * leave (timed_reps when 0). */
static void run_vector_add_budget(int cubin_arch, int timed_reps, double budget_ms, int want_reps) {
    Backend *b = gpu.b;
    CompiledModule *m = compile_kernels(cubin_arch);
    BackendModule *bm = NULL;
    assert_null(b->ops->module_load(b, m, &bm));
    enum { N = 100003 };
    float *a = xmalloc(N * sizeof *a), *c = xmalloc(N * sizeof *c), *bb = xmalloc(N * sizeof *bb);
    for (int i = 0; i < N; i++) a[i] = (float)i, bb[i] = 0.5f * (float)i;
    DevPtr da, db, dc;
    assert_null(b->ops->mem_alloc(b, N * sizeof(float), "a", 4, &da));
    assert_null(b->ops->mem_alloc(b, N * sizeof(float), "b", 4, &db));
    assert_null(b->ops->mem_alloc(b, N * sizeof(float), "c", 4, &dc));
    assert_null(b->ops->copy_to_device(b, da, a, N * sizeof(float)));
    assert_null(b->ops->copy_to_device(b, db, bb, N * sizeof(float)));
    assert_null(b->ops->memset(b, dc, 0, N * sizeof(float)));
    KernelArg args[4] = {kernel_arg_ptr(da), kernel_arg_ptr(db), kernel_arg_ptr(dc), kernel_arg_i32(N)};
    LaunchConfig cfg = {{(N + 255) / 256, 1, 1}, {256, 1, 1}, 0, timed_reps, 0, false, 0, 0, budget_ms};
    LaunchReport r;
    launch_report_init(&r);
    Diag *d = b->ops->launch(b, bm, "vector_add", &cfg, args, 4, &r);
    if (d) fail_msg("%s", diag_format_all(d, false));
    assert_null(b->ops->copy_to_host(b, c, dc, N * sizeof(float)));
    for (int i = 0; i < N; i++)
        if (c[i] != 1.5f * (float)i) fail_msg("c[%d] = %g, want %g", i, c[i], 1.5 * i);
    if (timed_reps) {
        assert_int_equal(r.reps, want_reps ? want_reps : timed_reps);
        if (want_reps && want_reps != timed_reps)
            assert_int_equal(json_integer_value(json_object_get(r.metrics, "reps_asked")), timed_reps);
        assert_true(r.ms_median > 0);
        assert_true(r.ms_min > 0 && r.ms_min <= r.ms_median);
        assert_non_null(json_object_get(r.metrics, "ms_median"));
        /* the spread: min <= median <= p90 <= max */
        double p90 = json_number_value(json_object_get(r.metrics, "ms_p90"));
        double max = json_number_value(json_object_get(r.metrics, "ms_max"));
        assert_true(r.ms_median <= p90 + 1e-9 && p90 <= max);
        assert_false(r.modeled);
    }
    launch_report_fini(&r);
    b->ops->mem_free(b, da);
    b->ops->mem_free(b, db);
    b->ops->mem_free(b, dc);
    b->ops->module_unload(b, &bm);
    assert_null(bm);
    compiled_module_free(&m);
    free(a), free(bb), free(c);
}

static void run_vector_add(int cubin_arch, int timed_reps) { run_vector_add_budget(cubin_arch, timed_reps, 0, 0); }

static void launch__adds_vectors__when_loaded_from_cubin(void **state) {
    (void)state;
    need_gpu();
    run_vector_add(gpu.info.cc_major * 10 + gpu.info.cc_minor, 0);
}

static void launch__adds_vectors__when_loaded_from_ptx(void **state) {
    (void)state;
    need_gpu();
    run_vector_add(0, 0);
}

static void launch__reports_median_time__when_timed(void **state) {
    (void)state;
    need_gpu();
    run_vector_add(gpu.info.cc_major * 10 + gpu.info.cc_minor, 20);
}

/* Timed runs are queued behind a host gate in batches of CUDA_TIMED_BATCH
   (cuda_backend.c timed_runs): 70 runs are two full batches and a part. */
static void launch__times_every_rep__when_reps_span_several_gate_batches(void **state) {
    (void)state;
    need_gpu();
    run_vector_add(gpu.info.cc_major * 10 + gpu.info.cc_minor, 70);
}

/* k:time's budget (timed_budget_ms): 3 reps when they alone pass it, all
   of them when it is ample. */
static void launch__times_3_reps__when_they_pass_the_budget(void **state) {
    (void)state;
    need_gpu();
    run_vector_add_budget(gpu.info.cc_major * 10 + gpu.info.cc_minor, 20, 1e-6, 3);
}

/* Two reps of a long kernel (~40 ms of spinning each) that spend the
   budget and agree within 1%: no third. */
static void launch__times_2_reps__when_two_long_ones_agree_and_pass_the_budget(void **state) {
    (void)state;
    need_gpu();
    Backend *b = gpu.b;
    CompiledModule *m = compile_kernels(gpu.info.cc_major * 10 + gpu.info.cc_minor);
    BackendModule *bm = NULL;
    assert_null(b->ops->module_load(b, m, &bm));
    KernelArg args[1] = {kernel_arg_i64(40 * 1000 * 1000)};
    LaunchConfig cfg = {{1, 1, 1}, {1, 1, 1}, 0, 20, 0, false, 0, 0, 50};
    LaunchReport r;
    launch_report_init(&r);
    Diag *d = b->ops->launch(b, bm, "spin", &cfg, args, 1, &r);
    if (d) fail_msg("%s", diag_format_all(d, false));
    print_message("spin: %d reps, median %.3f ms, min %.3f ms\n", r.reps, r.ms_median, r.ms_min);
    assert_int_equal(r.reps, 2);
    assert_true(r.ms_median >= 10);
    assert_int_equal(json_integer_value(json_object_get(r.metrics, "reps_asked")), 20);
    launch_report_fini(&r);
    b->ops->module_unload(b, &bm);
    compiled_module_free(&m);
}

/* Only the repetitions of a timed launch hold the GPU lock alone: its first
   run (a correctness run, ~40 ms of spinning here) and the snapshot of its
   results are shared, so the exclusive hold is about the 2 reps' 80 ms. */
static void launch__holds_the_gpu_alone_only_for_the_reps__when_timed(void **state) {
    (void)state;
    need_gpu();
    char dir[] = "/tmp/cudojo-lockdir-XXXXXX";
    assert_non_null(mkdtemp(dir));
    setenv("CUDOJO_GPU_LOCK_DIR", dir, 1);
    Backend *b = gpu.b;
    CompiledModule *m = compile_kernels(gpu.info.cc_major * 10 + gpu.info.cc_minor);
    BackendModule *bm = NULL;
    assert_null(b->ops->module_load(b, m, &bm));
    KernelArg args[1] = {kernel_arg_i64(40 * 1000 * 1000)};
    LaunchConfig cfg = {{1, 1, 1}, {1, 1, 1}, 0, 20, 0, false, 0, 0, 50};
    LaunchReport r;
    launch_report_init(&r);
    GpuLockStats s0, s1;
    gpu_lock_stats(&s0);
    Diag *d = b->ops->launch(b, bm, "spin", &cfg, args, 1, &r);
    gpu_lock_stats(&s1);
    if (d) fail_msg("%s", diag_format_all(d, false));
    GpuLockStats ds = gpu_lock_stats_diff(&s1, &s0);
    print_message("spin: %d reps; alone %.1f ms, shared %.1f ms (%ld sections)\n", r.reps,
                  ds.held_exclusive_s * 1e3, ds.held_shared_s * 1e3, ds.shared_sections);
    assert_int_equal(ds.exclusive_sections, 1);
    assert_true(ds.shared_sections >= 2);               /* the first run, the restore */
    assert_true(ds.held_shared_s >= 0.035);             /* the first run's spin */
    assert_true(ds.held_exclusive_s < (r.reps + 0.5) * 0.040 + 0.015);
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    launch_report_fini(&r);
    b->ops->module_unload(b, &bm);
    compiled_module_free(&m);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    assert_int_equal(system(rm), 0);
}

static void launch__times_every_rep__when_the_budget_is_ample(void **state) {
    (void)state;
    need_gpu();
    run_vector_add_budget(gpu.info.cc_major * 10 + gpu.info.cc_minor, 20, 1e6, 20);
}

/* The arrays' host buffers (host_buffer_take): page-locked, reused once
   given back, and copies from them reach the device. */
static void host_buffer__is_reused_and_copies__when_given_back(void **state) {
    (void)state;
    need_gpu();
    Backend *b = gpu.b;
    enum { BYTES = 4 << 20 };
    bool zeroed = true;
    unsigned char *h = b->ops->host_buffer_take(b, BYTES, &zeroed);
    assert_non_null(h);
    memset(h, 0x3c, BYTES);
    DevPtr p;
    assert_null(b->ops->mem_alloc(b, BYTES, "x", 1, &p));
    assert_null(b->ops->copy_to_device(b, p, h, BYTES));
    memset(h, 0, BYTES);
    assert_null(b->ops->copy_to_host(b, h, p, BYTES));
    assert_int_equal(h[BYTES - 1], 0x3c);
    b->ops->host_buffer_give(b, h);
    unsigned char *again = b->ops->host_buffer_take(b, BYTES, &zeroed);
    assert_ptr_equal(again, h);
    assert_false(zeroed);
    b->ops->host_buffer_give(b, again);
    assert_null(b->ops->mem_free(b, p));
}

/* A buffer over HOST_PIECE_BYTES is pinned in pieces (kernels/host_pool.h):
   fresh (zeroed), page-locked in every piece, and a copy at an offset that
   crosses pieces (in pieces of its own) goes there and back intact. */
static void host_buffer__pinned_in_pieces__copies_across_them__when_bigger_than_a_piece(void **state) {
    (void)state;
    need_gpu();
    Backend *b = gpu.b;
    const size_t bytes = 2 * HOST_PIECE_BYTES + 12345, off = 4097, len = bytes - off - 3;
    bool zeroed = false;
    unsigned char *h = b->ops->host_buffer_take(b, bytes, &zeroed);
    assert_non_null(h);
    assert_true(zeroed);
    for (size_t at = 0; at < bytes; at += HOST_PIECE_BYTES / 2) {
        struct cudaPointerAttributes a;
        assert_int_equal(cudaPointerGetAttributes(&a, h + at), cudaSuccess);
        assert_int_equal(a.type, cudaMemoryTypeHost);
    }
    for (size_t i = 0; i < bytes; i++) h[i] = (unsigned char)(i * 2654435761u >> 24);
    DevPtr p;
    assert_null(b->ops->mem_alloc(b, len, "big", 1, &p));
    assert_null(b->ops->copy_to_device(b, p, h + off, len));
    unsigned char *back = b->ops->host_buffer_take(b, bytes, &zeroed);
    assert_non_null(back);
    assert_null(b->ops->copy_to_host(b, back + 1, p, len));
    assert_memory_equal(back + 1, h + off, len);
    b->ops->host_buffer_give(b, back);
    b->ops->host_buffer_give(b, h);
    assert_null(b->ops->mem_free(b, p));
}

static void launch__keeps_one_runs_result__when_timed_kernel_accumulates(void **state) {
    (void)state;
    need_gpu();
    Backend *b = gpu.b;
    CompiledModule *m = compile_kernels(0);
    BackendModule *bm = NULL;
    assert_null(b->ops->module_load(b, m, &bm));
    DevPtr t;
    assert_null(b->ops->mem_alloc(b, 4, "total", 4, &t));
    assert_null(b->ops->memset(b, t, 0, 4));
    KernelArg arg = kernel_arg_ptr(t);
    LaunchConfig cfg = {{10, 1, 1}, {128, 1, 1}, 0, 5, 0, false, 0, 0, 0};
    LaunchReport r;
    launch_report_init(&r);
    assert_null(b->ops->launch(b, bm, "count", &cfg, &arg, 1, &r));
    int total = 0;
    assert_null(b->ops->copy_to_host(b, &total, t, 4));
    assert_int_equal(total, 1280);
    launch_report_fini(&r);
    b->ops->mem_free(b, t);
    b->ops->module_unload(b, &bm);
    compiled_module_free(&m);
}

static void launch__captures_printf__when_kernel_prints(void **state) {
    (void)state;
    need_gpu();
    Backend *b = gpu.b;
    CompiledModule *m = compile_kernels(0);
    BackendModule *bm = NULL;
    assert_null(b->ops->module_load(b, m, &bm));
    KernelArg arg = kernel_arg_i32(42);
    LaunchConfig cfg = {{1, 1, 1}, {32, 1, 1}, 0, 3, 0, false, 0, 0, 0};
    LaunchReport r;
    launch_report_init(&r);
    assert_null(b->ops->launch(b, bm, "hello", &cfg, &arg, 1, &r));
    assert_non_null(r.device_output);
    assert_string_equal(r.device_output, "hello 42\n");   /* the first run only, not the timed ones */
    launch_report_fini(&r);
    b->ops->module_unload(b, &bm);
    compiled_module_free(&m);
}

static void kernel_resources__agree_with_ptxas__when_loaded_from_cubin_or_ptx(void **state) {
    (void)state;
    need_gpu();
    Backend *b = gpu.b;
    static const char *src =
        "extern \"C\" __global__ void spill(const int *idx, float *out) {\n"
        "    float w[16];\n"
        "    for (int i = 0; i < 16; i++) w[i] = out[i] * i;\n"
        "    out[threadIdx.x] = w[idx[threadIdx.x] & 15];   // run-time index: w lives in local memory\n"
        "}\n";
    DeviceInfo di;
    assert_null(b->ops->device_info(b, &di));
    for (int cubin = 0; cubin < 2; cubin++) {
        CompileOptions o = {0};
        o.cache_dir = "";
        o.cubin_arch = cubin ? di.cc_major * 10 + di.cc_minor : 0;
        CompiledModule *m = NULL;
        Diag *d = compile_cuda("spill.cu", src, &o, &m);
        if (d) fail_msg("%s", diag_format_all(d, false));
        BackendModule *bm = NULL;
        assert_null(b->ops->module_load(b, m, &bm));
        int regs = -1, local = -1, shared = -1;
        assert_null(cuda_backend_kernel_resources(b, bm, "spill", &regs, &local, &shared));
        assert_true(regs > 0);
        assert_int_equal(shared, 0);
        /* From PTX the driver's JIT decides (on the H200 it kept w[] out of
         * local memory); from our cubin the numbers are ptxas's. */
        assert_true(local >= 0);
        if (cubin) {                /* the same numbers ptxas printed */
            assert_true(local >= 64);   /* 16 floats */
            const KernelInfo *k = compiled_module_find(m, "spill");
            assert_int_equal(regs, k->registers);
            assert_int_equal(local, k->local_bytes);
        }
        b->ops->module_unload(b, &bm);
        compiled_module_free(&m);
    }
}

static void launch__explains__when_block_oversized_or_kernel_missing(void **state) {
    (void)state;
    need_gpu();
    Backend *b = gpu.b;
    CompiledModule *m = compile_kernels(0);
    BackendModule *bm = NULL;
    assert_null(b->ops->module_load(b, m, &bm));
    KernelArg args[4] = {kernel_arg_ptr(0), kernel_arg_ptr(0), kernel_arg_ptr(0), kernel_arg_i32(0)};
    LaunchConfig cfg = {{1, 1, 1}, {2048, 1, 1}, 0, 0, 0, false, 0, 0, 0};
    LaunchReport r;
    launch_report_init(&r);
    Diag *d = b->ops->launch(b, bm, "vector_add", &cfg, args, 4, &r);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "at most 1024 threads per block"));
    diag_free(&d);
    d = b->ops->launch(b, bm, "vector_sub", &cfg, args, 4, &r);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "no kernel named vector_sub"));
    assert_non_null(strstr(d->message, "vector_add"));
    diag_free(&d);
    assert_true(cuda_backend_usable(b));
    launch_report_fini(&r);
    b->ops->module_unload(b, &bm);
    compiled_module_free(&m);
}

static void peak_copy_gbs__measures_bandwidth__when_gpu_present(void **state) {
    (void)state;
    need_gpu();
    double g = gpu.b->ops->peak_copy_gbs(gpu.b);
    assert_true(g > 10);
    assert_true(g < 100000);
    assert_true(gpu.b->ops->peak_copy_gbs(gpu.b) == g);     /* measured once */
}

/* Last: loses the CUDA context. */
static void launch__reports_illegal_address_and_becomes_unusable__when_kernel_writes_wild(void **state) {
    (void)state;
    need_gpu();
    Backend *b = gpu.b;
    CompiledModule *m = compile_kernels(0);
    BackendModule *bm = NULL;
    assert_null(b->ops->module_load(b, m, &bm));
    DevPtr p;
    assert_null(b->ops->mem_alloc(b, 64, "a", 4, &p));
    KernelArg args[2] = {kernel_arg_ptr(p), kernel_arg_i64(1LL << 40)};
    LaunchConfig cfg = {{1, 1, 1}, {1, 1, 1}, 0, 0, 0, false, 0, 0, 0};
    LaunchReport r;
    launch_report_init(&r);
    Diag *d = b->ops->launch(b, bm, "wild", &cfg, args, 2, &r);
    assert_non_null(d);
    assert_string_equal(d->code, CUDA_DIAG_STICKY);
    assert_non_null(strstr(d->message, "illegal memory access"));
    assert_non_null(strstr(d->message, "--backend=emu"));
    assert_string_equal(d->file, "kernels.cu");
    diag_free(&d);
    assert_false(cuda_backend_usable(b));
    d = b->ops->memset(b, p, 0, 64);
    assert_non_null(d);
    assert_string_equal(d->code, CUDA_DIAG_STICKY);
    diag_free(&d);
    launch_report_fini(&r);
    b->ops->module_unload(b, &bm);
    compiled_module_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cuda_backend_new__says_no_gpu_and_why__when_none_works),
        cmocka_unit_test(check_launch__names_the_limit__when_block_too_large),
        cmocka_unit_test(error_diag__advises_emulator_and_marks_sticky__when_illegal_address),
        cmocka_unit_test(ptx_params__gives_sizes__when_pointers_scalars_and_structs),
        cmocka_unit_test(device_info__describes_the_gpu__when_present),
        cmocka_unit_test(memory__round_trips__when_copied_and_memset),
        cmocka_unit_test(launch__adds_vectors__when_loaded_from_cubin),
        cmocka_unit_test(launch__adds_vectors__when_loaded_from_ptx),
        cmocka_unit_test(launch__reports_median_time__when_timed),
        cmocka_unit_test(launch__times_every_rep__when_reps_span_several_gate_batches),
        cmocka_unit_test(launch__times_3_reps__when_they_pass_the_budget),
        cmocka_unit_test(launch__times_2_reps__when_two_long_ones_agree_and_pass_the_budget),
        cmocka_unit_test(launch__holds_the_gpu_alone_only_for_the_reps__when_timed),
        cmocka_unit_test(launch__times_every_rep__when_the_budget_is_ample),
        cmocka_unit_test(host_buffer__is_reused_and_copies__when_given_back),
        cmocka_unit_test(host_buffer__pinned_in_pieces__copies_across_them__when_bigger_than_a_piece),
        cmocka_unit_test(launch__keeps_one_runs_result__when_timed_kernel_accumulates),
        cmocka_unit_test(launch__captures_printf__when_kernel_prints),
        cmocka_unit_test(launch__explains__when_block_oversized_or_kernel_missing),
        cmocka_unit_test(peak_copy_gbs__measures_bandwidth__when_gpu_present),
        cmocka_unit_test(kernel_resources__agree_with_ptxas__when_loaded_from_cubin_or_ptx),
        cmocka_unit_test(launch__reports_illegal_address_and_becomes_unusable__when_kernel_writes_wild),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
