/* tests/kernels/test_cuda_peaks.c: the device's peaks (kernels/cuda/cuda_peaks.c).
 * Without a GPU: the tuned copy kernels copy every element (run on the
 * emulator, tails included), every peak kernel compiles for sm_90 without
 * spilling, the cache's JSON round-trips and refuses another method. On a
 * GPU (CUDOJO_TEST_GPU=1): the first lookup measures and writes the cache,
 * the second reads it, another fingerprint is measured again, and the
 * figure is the better of the kernel and cudaMemcpy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "kernels/backend.h"
#include "kernels/compile.h"
#include "kernels/cuda/cuda_peaks.h"

static void peak_kernels__compile_for_sm_90_without_spills__always(void **state) {
    (void)state;
    CompileOptions o = {0};
    o.virtual_arch = 90;
    o.cubin_arch = 90;
    o.cache_dir = "";
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("cudojo-peaks.cu", cuda_peaks_source(), &o, &m);
    if (d) fail_msg("%s", diag_format_all(d, false));
    static const char *const names[] = {"peak_copy1", "peak_copy2", "peak_copy4", "peak_fma32", "peak_fma64"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const KernelInfo *k = compiled_module_find(m, names[i]);
        assert_non_null(k);
        assert_true(k->spill_bytes <= 0);
        assert_true(k->local_bytes <= 0);
    }
    compiled_module_free(&m);
}

/* Each copy kernel, with a grid that leaves a ragged tail, copies all n float4. */
static void peak_copy_kernels__copy_every_element_with_a_ragged_tail__on_the_emulator(void **state) {
    (void)state;
    EmuOptions eo = {0};
    eo.threads = 1;
    eo.checks = true;
    Diag *why = NULL;
    Backend *b = emu_backend_new(&eo, &why);
    assert_non_null(b);
    CompileOptions o = {0};
    o.cache_dir = "";
    CompiledModule *cm = NULL;
    Diag *d = compile_cuda("cudojo-peaks.cu", cuda_peaks_source(), &o, &cm);
    if (d) fail_msg("%s", diag_format_all(d, false));
    BackendModule *bm = NULL;
    assert_null(b->ops->module_load(b, cm, &bm));
    const unsigned long long n4 = 1000;          /* 4000 floats; grid 3 x 64 threads: strides of 192 */
    float *src = malloc(n4 * 16), *dst = malloc(n4 * 16);
    for (unsigned long long i = 0; i < n4 * 4; i++) src[i] = (float)i + 0.5f;
    static const char *const names[] = {"peak_copy1", "peak_copy2", "peak_copy4"};
    for (int k = 0; k < 3; k++) {
        DevPtr s, t;
        assert_null(b->ops->mem_alloc(b, n4 * 16, "src", 16, &s));
        assert_null(b->ops->mem_alloc(b, n4 * 16, "dst", 16, &t));
        assert_null(b->ops->copy_to_device(b, s, src, n4 * 16));
        assert_null(b->ops->memset(b, t, 0, n4 * 16));
        LaunchConfig cfg = {.grid = {3, 1, 1}, .block = {64, 1, 1}};
        KernelArg args[3] = {kernel_arg_ptr(s), kernel_arg_ptr(t), kernel_arg_u64(n4)};
        LaunchReport r;
        launch_report_init(&r);
        d = b->ops->launch(b, bm, names[k], &cfg, args, 3, &r);
        if (d) fail_msg("%s: %s", names[k], diag_format_all(d, false));
        if (r.findings) fail_msg("%s: %s", names[k], diag_format_all(r.findings, false));
        launch_report_fini(&r);
        memset(dst, 0, n4 * 16);
        assert_null(b->ops->copy_to_host(b, dst, t, n4 * 16));
        if (memcmp(src, dst, n4 * 16)) fail_msg("%s did not copy every element", names[k]);
        assert_null(b->ops->mem_free(b, s));
        assert_null(b->ops->mem_free(b, t));
    }
    free(src);
    free(dst);
    b->ops->module_unload(b, &bm);
    compiled_module_free(&cm);
    backend_close(&b);
}

static void peaks_json__round_trips_and_refuses_another_method__always(void **state) {
    (void)state;
    CudaPeaks p = {0}, q;
    p.copy_gbs = 4271.5;
    p.kernel_gbs = 4271.5;
    p.memcpy_gbs = 4190.25;
    p.kernel_spread = 0.004;
    p.fp32_gflops = 60000;
    p.fp64_gflops = 30000;
    p.bytes = (size_t)1 << 31;
    p.reps = 31;
    p.measured_at = 1764600000;
    snprintf(p.copy_from, sizeof p.copy_from, "copy kernel");
    snprintf(p.fingerprint, sizeof p.fingerprint, "NVIDIA H200|GPU-1234|driver 580.65.06 (CUDA 13000)");
    snprintf(p.kernel_config, sizeof p.kernel_config, "512 threads x 4 blocks/SM, 2 float4 per thread per step");
    json_t *j = cuda_peaks_to_json(&p);
    assert_true(cuda_peaks_from_json(j, &q));
    assert_true(q.copy_gbs == p.copy_gbs && q.memcpy_gbs == p.memcpy_gbs && q.fp64_gflops == p.fp64_gflops);
    assert_true(q.bytes == p.bytes && q.reps == 31 && q.measured_at == p.measured_at);
    assert_string_equal(q.fingerprint, p.fingerprint);
    assert_string_equal(q.copy_from, "copy kernel");
    assert_string_equal(q.kernel_config, p.kernel_config);
    json_object_set_new(j, "method", json_integer(CUDA_PEAKS_METHOD + 1));
    assert_false(cuda_peaks_from_json(j, &q));
    json_object_set_new(j, "method", json_integer(CUDA_PEAKS_METHOD));
    json_object_set_new(j, "copy_gbs", json_real(-1));
    assert_false(cuda_peaks_from_json(j, &q));
    json_decref(j);
}

static bool gpu_tests(void) {
    const char *v = getenv("CUDOJO_TEST_GPU");
    return v && !strcmp(v, "1") && backend_gpu_count() > 0;
}

static void peaks__measured_once_then_read_from_the_cache__on_a_gpu(void **state) {
    (void)state;
    if (!gpu_tests()) skip();
    Diag *why = NULL;
    Backend *b = backend_open(BACKEND_CUDA, NULL, &why, NULL);     /* makes the context */
    assert_non_null(b);
    char dir[] = "/tmp/cudojo-peaks-XXXXXX";
    assert_non_null(mkdtemp(dir));
    CudaPeaks a, c;
    assert_null(cuda_peaks_get(0, dir, &a));
    assert_false(a.cached);
    assert_true(a.copy_gbs > 100 && a.kernel_gbs > 0 && a.memcpy_gbs > 0);
    assert_true(a.copy_gbs == (a.kernel_gbs > a.memcpy_gbs ? a.kernel_gbs : a.memcpy_gbs));
    assert_true(a.fp32_gflops > 1000 && a.fp64_gflops > 0);
    assert_true(a.bytes >= ((size_t)1 << 30));
    assert_null(cuda_peaks_get(0, dir, &c));
    assert_true(c.cached);
    assert_true(c.copy_gbs == a.copy_gbs);
    /* another driver (fingerprint) is measured again */
    char *path = cuda_peaks_cache_path(0, dir);
    json_t *j = json_load_file(path, 0, NULL);
    assert_non_null(j);
    json_object_set_new(j, "fingerprint", json_string("another driver"));
    assert_int_equal(json_dump_file(j, path, 0), 0);
    json_decref(j);
    assert_null(cuda_peaks_get(0, dir, &c));
    assert_false(c.cached);
    printf("# copy %.0f GB/s (%s; kernel %.0f, cudaMemcpy %.0f), FP32 %.1f TFLOP/s, FP64 %.1f TFLOP/s\n", a.copy_gbs,
           a.copy_from, a.kernel_gbs, a.memcpy_gbs, a.fp32_gflops / 1e3, a.fp64_gflops / 1e3);
    unlink(path);
    free(path);
    char *sub = path_join(dir, "peaks");
    rmdir(sub);
    free(sub);
    rmdir(dir);
    backend_close(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(peak_kernels__compile_for_sm_90_without_spills__always),
        cmocka_unit_test(peak_copy_kernels__copy_every_element_with_a_ragged_tail__on_the_emulator),
        cmocka_unit_test(peaks_json__round_trips_and_refuses_another_method__always),
        cmocka_unit_test(peaks__measured_once_then_read_from_the_cache__on_a_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
