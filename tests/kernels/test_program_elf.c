/* tests/kernels/test_program_elf.c: whether a compiled program can only use
 * one stream per device (program_one_stream, kernels/program_elf.c): then
 * its run gets CUDA_DEVICE_MAX_CONNECTIONS=1, one hardware queue (its
 * context is made faster beside other programs'). Programs compiled by
 * nvcc as the course compiles them (-cudart shared), and linked by cc; each
 * way to a second stream says no; so do other libraries, a program without
 * libcudart, files that are not ELF and cut-off images. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/kernels/program_fixture.h"

#define KERNEL "__global__ void k(int *x) { x[threadIdx.x] = threadIdx.x; }\n"

/* Compiles `src` as the course does; caller frees. */
static CompiledProgram *build(Fixture *f, const char *name, const char *src) {
    CompiledProgram *p = NULL;
    Diag *d = program_compile(name, src, &f->copts, &p);
    if (d) fprintf(stderr, "%s\n", d->message);
    assert_null(d);
    return p;
}

static bool one_stream(Fixture *f, const char *name, const char *src) {
    CompiledProgram *p = build(f, name, src);
    bool one = program_one_stream(p->exe);
    compiled_program_free(&p);
    return one;
}

/* Links `src` (C) with cc against libcudart and `more` ("" or "-lNAME"); caller frees. */
static char *cc_link(Fixture *f, const char *name, const char *src, const char *more) {
    char *lib = xasprintf("-L%s/lib64", getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda");
    const char *link[] = {lib, "-lcudart", *more ? more : NULL, NULL};
    char *exe = cc_build_linked(f, name, src, link);
    free(lib);
    return exe;
}

static void one_stream__yes__for_a_program_on_the_default_stream(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    assert_true(one_stream(f, "plain.cu",
                           "#include <cstdio>\n" KERNEL
                           "int main() { int *d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); int h = 0;\n"
                           "  cudaEvent_t e; cudaEventCreate(&e); cudaEventRecord(e);\n"
                           "  cudaMemcpyAsync(&h, d + 1, 4, cudaMemcpyDeviceToHost); cudaDeviceSynchronize();\n"
                           "  printf(\"%d\\n\", h); return 0; }\n"));
}

static void one_stream__no__for_each_way_to_a_second_stream(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    assert_false(one_stream(f, "streams.cu",
                            KERNEL "int main() { cudaStream_t s;\n"
                                   "  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); int *d; cudaMalloc(&d, 128);\n"
                                   "  k<<<1, 32, 0, s>>>(d); return cudaDeviceSynchronize(); }\n"));
    assert_false(one_stream(f, "graph.cu",
                            KERNEL "int main() { cudaGraph_t g; cudaGraphCreate(&g, 0); return 0; }\n"));
    assert_false(one_stream(f, "threads.cu",
                            "#include <thread>\n" KERNEL
                            "int main() { int *d; cudaMalloc(&d, 128);\n"
                            "  std::thread t([&] { k<<<1, 32, 0, cudaStreamPerThread>>>(d); }); t.join();\n"
                            "  return cudaDeviceSynchronize(); }\n"));
    /* the per-thread default stream's entry points (nvcc --default-stream per-thread, which the course never
       passes, or called by name) */
    char *ptds = cc_link(f, "ptds",
                         "extern int cudaStreamSynchronize_ptsz(void *);\n"
                         "int main(void) { return cudaStreamSynchronize_ptsz(0); }\n", "");
    assert_false(program_one_stream(ptds));
    free(ptds);
}

static void one_stream__no__for_another_library_or_without_libcudart(void **state) {
    Fixture *f = *state;
    const char *src = "extern int cudaDeviceSynchronize(void);\nint main(void) { return cudaDeviceSynchronize(); }\n";
    char *alone = cc_link(f, "alone", src, "");
    assert_true(program_one_stream(alone));                  /* the control */
    char *more = cc_link(f, "more",     /* used, or the linker leaves it out (--as-needed); the toolkit's own */
                         "extern int cudaDeviceSynchronize(void);\nextern int cublasCreate_v2(void **);\n"
                         "int main(void) { void *h; return cublasCreate_v2(&h) && cudaDeviceSynchronize(); }\n",
                         "-lcublas");
    assert_false(program_one_stream(more));
    char *made = cc_link(f, "made",
                         "extern int cudaStreamCreate(void *);\n"
                         "int main(void) { void *s; return cudaStreamCreate(&s); }\n", "");
    assert_false(program_one_stream(made));
    char *host = cc_build(f, "host", "int main(void) { return 0; }\n");
    assert_false(program_one_stream(host));
    free(alone);
    free(more);
    free(made);
    free(host);
}

/* The libraries that call NVIDIA's driver themselves, by their DT_NEEDED
 * names in the order linked; none for a program on libcudart alone, for
 * one without libraries, for what is not a whole ELF image. */
static void driver_libraries__names_each_library_that_calls_the_driver(void **state) {
    Fixture *f = *state;
    const char *src = "extern int cudaDeviceSynchronize(void);\nint main(void) { return cudaDeviceSynchronize(); }\n";
    char *alone = cc_link(f, "alone", src, "");
    assert_null(program_driver_libraries(alone));
    char *blas = cc_link(f, "blas",
                         "extern int cudaDeviceSynchronize(void);\nextern int cublasCreate_v2(void **);\n"
                         "int main(void) { void *h; return cublasCreate_v2(&h) && cudaDeviceSynchronize(); }\n",
                         "-lcublas");
    char *libs = program_driver_libraries(blas);
    assert_non_null(libs);
    assert_non_null(strstr(libs, "libcublas.so."));
    assert_null(strstr(libs, "libcudart"));
    free(libs);
    char *host = cc_build(f, "host", "int main(void) { return 0; }\n");
    assert_null(program_driver_libraries(host));
    assert_null(program_driver_libraries(f->dir));
    assert_null(program_driver_libraries("/nonexistent/program"));
    char *img = NULL, path[128];
    size_t n = 0;
    assert_null(fs_read_file(blas, &img, &n));
    snprintf(path, sizeof path, "%s/cut", f->dir);
    for (size_t keep = 0; keep < n; keep += n / 97 + 1) {     /* every cut: a list or none, never a crash */
        assert_null(fs_write_file_atomic(path, img, keep));
        free(program_driver_libraries(path));
    }
    free(img);
    free(alone);
    free(blas);
    free(host);
}

static void one_stream__no__for_what_is_not_a_whole_elf_image(void **state) {
    Fixture *f = *state;
    char path[128];
    snprintf(path, sizeof path, "%s/not-elf", f->dir);
    assert_null(fs_write_file_atomic(path, "#!/bin/sh\n", 10));
    assert_false(program_one_stream(path));
    assert_false(program_one_stream(f->dir));                  /* a folder */
    assert_false(program_one_stream("/nonexistent/program"));
    if (!has_nvcc()) return;
    CompiledProgram *p = build(f, "cut.cu", KERNEL "int main() { int *d; return cudaMalloc(&d, 4); }\n");
    char *img = NULL;
    size_t n = 0;
    assert_null(fs_read_file(p->exe, &img, &n));
    assert_true(program_one_stream(p->exe));
    snprintf(path, sizeof path, "%s/cut", f->dir);
    for (size_t keep = 0; keep < n; keep += n / 97 + 1) {     /* every cut: no, never a crash */
        assert_null(fs_write_file_atomic(path, img, keep));
        assert_false(program_one_stream(path));
    }
    free(img);
    compiled_program_free(&p);
}

/* The run: CUDA_DEVICE_MAX_CONNECTIONS=1 for a one-stream program on the
 * GPU runtime; not with CUDOJO_ONE_QUEUE=0, not for a program with streams,
 * not over the caller's own setting under cudojo exec (keep_env). */
static void run__gets_one_queue__only_when_the_program_has_one_stream(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    const char *show = "#include <cstdio>\n#include <cstdlib>\n"
                       "int main() { const char *v = getenv(\"CUDA_DEVICE_MAX_CONNECTIONS\");\n"
                       "  printf(\"queues: %s\\n\", v ? v : \"driver\"); return 0; }\n";
    CompiledProgram *p = build(f, "show.cu", show);
    assert_null(program_run(p->exe, &f->ropts, &f->res));
    assert_string_equal(f->res.out, "queues: 1\n");
    program_result_fini(&f->res);
    setenv("CUDOJO_ONE_QUEUE", "0", 1);
    assert_null(program_run(p->exe, &f->ropts, &f->res));
    unsetenv("CUDOJO_ONE_QUEUE");
    assert_string_equal(f->res.out, "queues: driver\n");
    program_result_fini(&f->res);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 1);
    f->ropts.keep_env = true;
    assert_null(program_run(p->exe, &f->ropts, &f->res));
    f->ropts.keep_env = false;
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    assert_string_equal(f->res.out, "queues: 4\n");
    program_result_fini(&f->res);
    compiled_program_free(&p);
    const char *streams = "#include <cstdio>\n#include <cstdlib>\n"
                          "int main() { cudaStream_t s; if (getenv(\"NEVER_SET_X\")) cudaStreamCreate(&s);\n"
                          "  const char *v = getenv(\"CUDA_DEVICE_MAX_CONNECTIONS\");\n"
                          "  printf(\"queues: %s\\n\", v ? v : \"driver\"); return 0; }\n";
    p = build(f, "show2.cu", streams);
    assert_null(program_run(p->exe, &f->ropts, &f->res));
    assert_string_equal(f->res.out, "queues: driver\n");
    program_result_fini(&f->res);
    /* CUDOJO_STREAM_QUEUES gives a program with streams that many */
    setenv("CUDOJO_STREAM_QUEUES", "4", 1);
    assert_null(program_run(p->exe, &f->ropts, &f->res));
    assert_string_equal(f->res.out, "queues: 4\n");
    program_result_fini(&f->res);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "2", 1);     /* the caller's own, kept under cudojo exec */
    f->ropts.keep_env = true;
    assert_null(program_run(p->exe, &f->ropts, &f->res));
    f->ropts.keep_env = false;
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    unsetenv("CUDOJO_STREAM_QUEUES");
    assert_string_equal(f->res.out, "queues: 2\n");
    compiled_program_free(&p);
}

/* CUDOJO_STREAM_QUEUES: a whole number from 1 to 32, else 0 (the driver's). */
static void stream_queues__takes_1_to_32__else_the_drivers(void **state) {
    (void)state;
    static const struct {
        const char *v;
        int queues;
    } cases[] = {{NULL, 0}, {"", 0}, {"1", 1}, {"4", 4}, {"32", 32}, {"33", 0}, {"0", 0},
                 {"-2", 0}, {"+2", 0}, {" 2", 0}, {"2x", 0}, {"99999999999999999999", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (program_stream_queues_of(cases[i].v) != cases[i].queues)
            fail_msg("'%s': %d, not %d", cases[i].v ? cases[i].v : "(unset)",
                     program_stream_queues_of(cases[i].v), cases[i].queues);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(one_stream__yes__for_a_program_on_the_default_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(one_stream__no__for_each_way_to_a_second_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(one_stream__no__for_another_library_or_without_libcudart, setup, teardown),
        cmocka_unit_test_setup_teardown(one_stream__no__for_what_is_not_a_whole_elf_image, setup, teardown),
        cmocka_unit_test_setup_teardown(driver_libraries__names_each_library_that_calls_the_driver, setup, teardown),
        cmocka_unit_test_setup_teardown(run__gets_one_queue__only_when_the_program_has_one_stream, setup, teardown),
        cmocka_unit_test(stream_queues__takes_1_to_32__else_the_drivers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
