/* tests/kernels/test_compile.c: NVRTC compile path — PTX, kernel names,
 * errors and warnings in the learner's file, the on-disk cache, includes,
 * templates and ptxas resource usage. NVRTC runs without a GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/compile.h"
#include "kernels/compile_internal.h"

typedef struct Fixture {
    char dir[64];
    CompileOptions opts;
} Fixture;

static int setup(void **state) {
    Fixture *f = xcalloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/cudojo-test-compile-XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    f->opts.cache_dir = f->dir;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    Fixture *f = *state;
    char *cmd = xasprintf("rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

static int count_cache_files(const char *dir) {
    char *cmd = xasprintf("ls '%s' | grep -c '\\.nvrtc$'", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p && fscanf(p, "%d", &n) != 1) n = -1;
    if (p) pclose(p);
    free(cmd);
    return n;
}

static const char *VECTOR_ADD =
    "__global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "extern \"C\" __global__ void scale(float *x, float s) { x[threadIdx.x] *= s; }\n";

static void compile__produces_ptx_and_lists_entries__when_kernel_is_valid(void **state) {
    Fixture *f = *state;
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("vector_add.cu", VECTOR_ADD, &f->opts, &m);
    assert_null(d);
    assert_non_null(m);
    assert_non_null(strstr(m->ptx, ".target sm_80"));
    assert_non_null(strstr(m->ptx, ".loc"));            /* -lineinfo */
    assert_int_equal(m->ptx_size, strlen(m->ptx));
    assert_null(m->cubin);
    assert_int_equal(m->n_kernels, 2);
    const KernelInfo *k = compiled_module_find(m, "vector_add");
    assert_non_null(k);
    assert_string_equal(k->lowered, "_Z10vector_addPKfS0_Pfi");
    assert_ptr_equal(compiled_module_find(m, "_Z10vector_addPKfS0_Pfi"), k);
    k = compiled_module_find(m, "scale");
    assert_non_null(k);
    assert_string_equal(k->lowered, "scale");
    assert_int_equal(k->registers, -1);
    assert_null(compiled_module_find(m, "missing"));
    assert_false(m->cache_hit);
    assert_true(m->compile_ms > 0);
    assert_string_equal(m->source_path, "vector_add.cu");
    compiled_module_free(&m);
    assert_null(m);
}

static void compile__reports_file_line_col_and_caret__when_syntax_error(void **state) {
    Fixture *f = *state;
    const char *src = "__global__ void k(float *a, int n) {\n"
                      "\tint i = threadIdx.x;\n"
                      "    if (i < n) a[i] = b[i] * 2.0f;\n"
                      "}\n";
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("work/double.cu", src, &f->opts, &m);
    assert_null(m);
    assert_non_null(d);
    assert_int_equal(d->severity, DIAG_ERROR);
    assert_string_equal(d->code, "compile");
    assert_string_equal(d->file, "work/double.cu");
    assert_int_equal(d->line, 3);
    assert_int_equal(d->col, 23);
    assert_non_null(strstr(d->message, "identifier \"b\" is undefined"));
    assert_string_equal(d->excerpt, "    if (i < n) a[i] = b[i] * 2.0f;\n"
                                    "                      ^");
    char *text = diag_format_all(d, false);
    assert_non_null(strstr(text, "work/double.cu:3:23: error:"));
    assert_null(strstr(text, "detected in the compilation"));   /* no raw NVRTC log */
    free(text);
    diag_free(&d);
}

static void compile__reports_every_error_with_tab_columns__when_several(void **state) {
    Fixture *f = *state;
    const char *src = "__global__ void k(float *a) {\n"
                      "\t\ta[0] = zz + 1;\n"
                      "    a[1] = undefined_fn(3)\n"
                      "}\n";
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("k.cu", src, &f->opts, &m);
    assert_null(m);
    assert_true(diag_count_errors(d) >= 2);
    assert_int_equal(d->line, 2);
    assert_int_equal(d->col, 10);          /* two tabs count as two columns */
    assert_string_equal(d->excerpt, "\t\ta[0] = zz + 1;\n\t\t       ^");
    assert_int_equal(d->next->line, 3);
    assert_non_null(strstr(d->next->message, "undefined_fn"));
    diag_free(&d);
}

static void compile__maps_warning_to_learners_line__when_variable_unused(void **state) {
    Fixture *f = *state;
    const char *src = "extern \"C\" __global__ void k(float *a) {\n"
                      "    int unused;\n"
                      "    a[0] = 1.0f;\n"
                      "}\n";
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("w.cu", src, &f->opts, &m);
    assert_null(d);
    assert_non_null(m);
    assert_non_null(m->warnings);
    assert_int_equal(m->warnings->severity, DIAG_WARNING);
    assert_string_equal(m->warnings->file, "w.cu");
    assert_int_equal(m->warnings->line, 2);
    assert_int_equal(m->warnings->col, 9);
    assert_non_null(strstr(m->warnings->message, "\"unused\" was declared but never referenced"));
    assert_null(strstr(m->warnings->message, "#177"));
    assert_non_null(m->warnings->excerpt);
    compiled_module_free(&m);
}

static void compile__hits_cache_without_nvrtc__when_same_source_twice(void **state) {
    Fixture *f = *state;
    CompiledModule *a = NULL, *b = NULL;
    assert_null(compile_cuda("v.cu", VECTOR_ADD, &f->opts, &a));
    assert_false(a->cache_hit);
    assert_int_equal(count_cache_files(f->dir), 1);
    unsigned long runs = compile_nvrtc_runs();
    assert_null(compile_cuda("v.cu", VECTOR_ADD, &f->opts, &b));
    assert_true(b->cache_hit);
    assert_int_equal(compile_nvrtc_runs(), runs);
    assert_string_equal(a->ptx, b->ptx);
    assert_int_equal(b->n_kernels, 2);
    assert_non_null(compiled_module_find(b, "vector_add"));
    assert_true(b->compile_ms >= 0);
    compiled_module_free(&b);
    /* Any option change is a different entry. */
    const char *defs[] = {"-DN=3"};
    f->opts.extra_opts = defs;
    f->opts.n_extra_opts = 1;
    assert_null(compile_cuda("v.cu", VECTOR_ADD, &f->opts, &b));
    assert_false(b->cache_hit);
    assert_int_equal(count_cache_files(f->dir), 2);
    compiled_module_free(&a);
    compiled_module_free(&b);
}

static void compile__recompiles_and_rewrites__when_cache_entry_corrupt(void **state) {
    Fixture *f = *state;
    CompiledModule *m = NULL;
    assert_null(compile_cuda("v.cu", VECTOR_ADD, &f->opts, &m));
    char *ptx = xstrdup(m->ptx);
    compiled_module_free(&m);
    char *cmd = xasprintf("for x in '%s'/*.nvrtc; do head -c 200 \"$x\" > \"$x.t\" && mv \"$x.t\" \"$x\"; done",
                          f->dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    unsigned long runs = compile_nvrtc_runs();
    assert_null(compile_cuda("v.cu", VECTOR_ADD, &f->opts, &m));
    assert_false(m->cache_hit);
    assert_true(compile_nvrtc_runs() > runs);
    assert_string_equal(m->ptx, ptx);
    compiled_module_free(&m);
    assert_null(compile_cuda("v.cu", VECTOR_ADD, &f->opts, &m));
    assert_true(m->cache_hit);
    assert_string_equal(m->ptx, ptx);
    compiled_module_free(&m);
    free(ptx);
}

static void compile__never_hits__when_cache_disabled(void **state) {
    Fixture *f = *state;
    f->opts.cache_dir = "";
    CompiledModule *m = NULL;
    for (int i = 0; i < 2; i++) {
        unsigned long runs = compile_nvrtc_runs();
        assert_null(compile_cuda("v.cu", VECTOR_ADD, &f->opts, &m));
        assert_false(m->cache_hit);
        assert_int_equal(compile_nvrtc_runs(), runs + 1);
        compiled_module_free(&m);
    }
    assert_int_equal(count_cache_files(f->dir), 0);
}

static void compile__finds_toolkit_headers__when_fp16_and_cooperative_groups(void **state) {
    Fixture *f = *state;
    const char *src = "#include <cuda_fp16.h>\n"
                      "#include <cooperative_groups.h>\n"
                      "namespace cg = cooperative_groups;\n"
                      "__global__ void half_sum(const __half *x, float *out) {\n"
                      "    cg::thread_block b = cg::this_thread_block();\n"
                      "    float v = __half2float(x[b.thread_rank()]);\n"
                      "    b.sync();\n"
                      "    atomicAdd(out, v);\n"
                      "}\n";
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("half.cu", src, &f->opts, &m);
    if (d) fail_msg("%s", diag_format_all(d, false));
    assert_non_null(compiled_module_find(m, "half_sum"));
    compiled_module_free(&m);
}

static void compile__accepts_tutorial_includes__when_stdio_and_stdint(void **state) {
    Fixture *f = *state;
    const char *src = "#include <cstdio>\n#include <stdio.h>\n#include <stdint.h>\n"
                      "#include <assert.h>\n#include <math.h>\n#include <climits>\n#include <cfloat>\n"
                      "#include <cuda_runtime.h>\n"
                      "__global__ void hello(int32_t *x) {\n"
                      "    assert(x[0] < INT_MAX);\n"
                      "    printf(\"hello from %d (%f)\\n\", threadIdx.x, sqrtf(FLT_EPSILON));\n"
                      "}\n";
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("hello.cu", src, &f->opts, &m);
    if (d) fail_msg("%s", diag_format_all(d, false));
    assert_non_null(compiled_module_find(m, "hello"));
    assert_non_null(strstr(m->ptx, "vprintf"));
    compiled_module_free(&m);
}

static void compile__lowers_template__when_name_expression_given(void **state) {
    Fixture *f = *state;
    const char *src = "template <typename T> __global__ void scale(T *x, T s) { x[threadIdx.x] *= s; }\n";
    const char *names[] = {"scale<float>", "scale<double>"};
    f->opts.name_exprs = names;
    f->opts.n_name_exprs = 2;
    CompiledModule *m = NULL;
    assert_null(compile_cuda("t.cu", src, &f->opts, &m));
    assert_int_equal(m->n_kernels, 2);
    const KernelInfo *kf = compiled_module_find(m, "scale<float>");
    const KernelInfo *kd = compiled_module_find(m, "scale<double>");
    assert_non_null(kf);
    assert_non_null(kd);
    assert_string_equal(kf->lowered, "_Z5scaleIfEvPT_S0_");
    assert_non_null(strstr(m->ptx, kd->lowered));
    compiled_module_free(&m);
    /* The cached module keeps the expression names. */
    assert_null(compile_cuda("t.cu", src, &f->opts, &m));
    assert_true(m->cache_hit);
    assert_non_null(compiled_module_find(m, "scale<double>"));
    compiled_module_free(&m);
}

static void compile__reports_registers_and_shared__when_cubin_requested(void **state) {
    Fixture *f = *state;
    const char *src = "__global__ void tile(const float *a, float *c) {\n"
                      "    __shared__ float s[128];\n"
                      "    s[threadIdx.x] = a[threadIdx.x];\n"
                      "    __syncthreads();\n"
                      "    c[threadIdx.x] = s[127 - threadIdx.x];\n"
                      "}\n";
    f->opts.cubin_arch = 90;
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("tile.cu", src, &f->opts, &m);
    if (d) fail_msg("%s", diag_format_all(d, false));
    assert_non_null(m->cubin);
    assert_true(m->cubin_size > 0);
    assert_int_equal(m->cubin_arch, 90);
    assert_non_null(strstr(m->ptx, ".target sm_90"));   /* the cubin program's own PTX (test_compile_gpu_build) */
    const KernelInfo *k = compiled_module_find(m, "tile");
    assert_non_null(k);
    assert_true(k->registers > 0 && k->registers < 255);
    assert_int_equal(k->shared_static, 512);
    assert_int_equal(k->spill_bytes, 0);
    assert_int_equal(k->local_bytes, 0);
    int regs = k->registers;
    compiled_module_free(&m);
    assert_null(compile_cuda("tile.cu", src, &f->opts, &m));
    assert_true(m->cache_hit);
    assert_non_null(m->cubin);
    assert_int_equal(compiled_module_find(m, "tile")->registers, regs);
    compiled_module_free(&m);
}

static void compile__explains_limit__when_static_shared_too_large(void **state) {
    Fixture *f = *state;
    const char *src = "__global__ void big(float *a) {\n"
                      "    __shared__ float s[20000];\n"
                      "    s[threadIdx.x] = 1; __syncthreads(); a[0] = s[(int)a[1]];\n"
                      "}\n";
    f->opts.cubin_arch = 90;
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("big.cu", src, &f->opts, &m);
    assert_null(m);
    assert_non_null(d);
    assert_string_equal(d->file, "big.cu");
    assert_non_null(strstr(d->message, "48 KiB"));
    assert_non_null(strstr(d->message, "big"));
    diag_free(&d);
}

static void compile__says_what_failed__when_option_rejected(void **state) {
    Fixture *f = *state;
    const char *bad[] = {"--no-such-option"};
    f->opts.extra_opts = bad;
    f->opts.n_extra_opts = 1;
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("v.cu", VECTOR_ADD, &f->opts, &m);
    assert_null(m);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "--no-such-option"));
    diag_free(&d);
}

static void compile__names_the_expression__when_exercise_kernel_cannot_be_instantiated(void **state) {
    Fixture *f = *state;
    const char *src = "template <typename T> __global__ void scale(T *x) { x[0] *= 2; }\n";
    const char *names[] = {"scale<floot>"};
    f->opts.name_exprs = names;
    f->opts.n_name_exprs = 1;
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("t.cu", src, &f->opts, &m);
    assert_null(m);
    assert_int_equal(diag_count(d), 1);
    assert_string_equal(d->file, "t.cu");
    assert_non_null(strstr(d->message, "scale<floot>"));
    assert_non_null(strstr(d->message, "\"floot\" is undefined"));
    assert_null(strstr(d->message, "__nv_name_map"));
    diag_free(&d);
}

static void compile__drops_least_recently_used__when_cache_grows_past_its_limit(void **state) {
    Fixture *f = *state;
    enum { N_OLD = COMPILE_CACHE_KEEP + 100 };
    for (int i = 0; i < N_OLD; i++) {
        char *p = xasprintf("%s/old%04d.nvrtc", f->dir, i);
        FILE *fp = fopen(p, "w");
        assert_non_null(fp);
        fclose(fp);
        struct timespec t[2] = {{1000000 + i, 0}, {1000000 + i, 0}};
        assert_int_equal(utimensat(AT_FDCWD, p, t, 0), 0);
        free(p);
    }
    CompiledModule *m = NULL;
    assert_null(compile_cuda("v.cu", VECTOR_ADD, &f->opts, &m));
    compiled_module_free(&m);
    int left = count_cache_files(f->dir);
    assert_true(left > 100 && left <= COMPILE_CACHE_KEEP);
    char *oldest = xasprintf("%s/old0000.nvrtc", f->dir), *newest = xasprintf("%s/old%04d.nvrtc", f->dir, N_OLD - 1);
    assert_false(fs_exists(oldest));
    assert_true(fs_exists(newest));
    free(oldest);
    free(newest);
    assert_null(compile_cuda("v.cu", VECTOR_ADD, &f->opts, &m));
    assert_true(m->cache_hit);             /* the entry just written survived */
    compiled_module_free(&m);
}

static void compile__recovers_plain_names__when_mangled(void **state) {
    (void)state;
    static const char *cases[][2] = {
        {"_Z10vector_addPKfS0_Pfi", "vector_add"},
        {"_ZN2ns3fooEPf", "ns::foo"},
        {"_Z5scaleIfEvPT_S0_", "scale"},
        {"_ZN2ns5scaleIiEEvPT_", "ns::scale"},
        {"_ZN12_GLOBAL__N_14wrapEv", "(anonymous namespace)::wrap"},
        {"plain_c", "plain_c"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = compile_demangle(cases[i][0]);
        assert_string_equal(s, cases[i][1]);
        free(s);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(compile__produces_ptx_and_lists_entries__when_kernel_is_valid, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__reports_file_line_col_and_caret__when_syntax_error, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__reports_every_error_with_tab_columns__when_several, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__maps_warning_to_learners_line__when_variable_unused, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__hits_cache_without_nvrtc__when_same_source_twice, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__recompiles_and_rewrites__when_cache_entry_corrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__never_hits__when_cache_disabled, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__finds_toolkit_headers__when_fp16_and_cooperative_groups, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__accepts_tutorial_includes__when_stdio_and_stdint, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__lowers_template__when_name_expression_given, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__reports_registers_and_shared__when_cubin_requested, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__explains_limit__when_static_shared_too_large, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__says_what_failed__when_option_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__names_the_expression__when_exercise_kernel_cannot_be_instantiated, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__drops_least_recently_used__when_cache_grows_past_its_limit, setup, teardown),
        cmocka_unit_test(compile__recovers_plain_names__when_mangled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
