/* tests/kernels/test_compile_gpu_build.c: a GPU build (CompileOptions
 * .cubin_arch) is one NVRTC program that gives the cubin and the PTX
 * (compute_XX); its PTX lists the same kernels with the same parameters as
 * the compute_80 build, for the GPU backend's argument check and for the
 * emulator, over every lesson solution; the PTX is compiled again for
 * compute_80 when the emulator cannot decode the sm_90 one, and the sm_90
 * PTX stays when only sm_90 builds the source; the module's warnings hold
 * no ptxas lines; front-end and ptxas errors read as before. Without a
 * cubin a build is one compute_80 program, as always. NVRTC runs without a
 * GPU; nothing here launches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/compile.h"
#include "kernels/compile_internal.h"
#include "kernels/cuda/cuda_internal.h"
#include "kernels/emu/emu.h"

/* The -D values the lessons' .lua files pass for the macros some solutions
 * need (as tests/kernels/test_cubin_info.c). */
static const char *const LESSON_DEFINES[] = {
    "-DNCOEF=4", "-DCOEFFS=1.0f,2.0f,3.0f,4.0f", "-DN=4096", "-DCHUNK=4096", "-DITEMS=4",
    "-DTM=4", "-DTN=4", "-DITERS=8", "-DROUNDS=2", "-DDEGREE=8", "-DSTEPS=64",
};
#define N_LESSON_DEFINES ((int)(sizeof LESSON_DEFINES / sizeof LESSON_DEFINES[0]))

typedef struct Fixture {
    char dir[64];
    CompileOptions opts;
} Fixture;

static int setup(void **state) {
    Fixture *f = xcalloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/cudojo-test-compile-gpu-XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    f->opts.cache_dir = f->dir;
    f->opts.opt_level = -1;
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

/* compile_cuda, failing the test on an error; *runs = NVRTC programs it ran. */
static CompiledModule *compile_ok(const char *path, const char *src, const CompileOptions *o, unsigned long *runs) {
    unsigned long before = compile_nvrtc_runs();
    CompiledModule *m = NULL;
    Diag *d = compile_cuda(path, src, o, &m);
    if (d) fail_msg("%s: %s", path, diag_format_all(d, false));
    if (runs) *runs = compile_nvrtc_runs() - before;
    return m;
}

static const char *TILE =
    "__global__ void tile(const float *a, float *c) {\n"
    "    __shared__ float s[128];\n"
    "    s[threadIdx.x] = a[threadIdx.x];\n"
    "    __syncthreads();\n"
    "    c[threadIdx.x] = s[127 - threadIdx.x];\n"
    "}\n"
    "extern \"C\" __global__ void scale(float *x, float s, int n) { if (threadIdx.x < n) x[threadIdx.x] *= s; }\n";

static void compile__runs_one_nvrtc_program_for_the_ptx_and_the_cubin__when_a_cubin_is_wanted(void **state) {
    Fixture *f = *state;
    f->opts.cubin_arch = 90;
    unsigned long runs;
    CompiledModule *m = compile_ok("tile.cu", TILE, &f->opts, &runs);
    assert_int_equal(runs, 1);
    assert_non_null(m->cubin);
    assert_true(m->cubin_size > 0);
    assert_int_equal(m->cubin_arch, 90);
    assert_non_null(strstr(m->ptx, ".target sm_90"));  /* the cubin program's own PTX */
    assert_non_null(strstr(m->ptx, ".loc"));            /* -lineinfo */
    assert_int_equal(m->ptx_size, strlen(m->ptx));
    const KernelInfo *k = compiled_module_find(m, "tile");
    assert_non_null(k);
    assert_true(k->registers > 0 && k->registers < 255);
    assert_int_equal(k->shared_static, 512);
    assert_int_equal(k->spill_bytes, 0);
    assert_non_null(compiled_module_find(m, "scale"));
    compiled_module_free(&m);
    m = compile_ok("tile.cu", TILE, &f->opts, &runs);  /* the cache keeps what it made */
    assert_int_equal(runs, 0);
    assert_true(m->cache_hit);
    assert_non_null(m->cubin);
    assert_non_null(strstr(m->ptx, ".target sm_90"));
    compiled_module_free(&m);
}

static void compile__runs_one_compute_80_program__when_no_cubin_is_wanted(void **state) {
    Fixture *f = *state;
    unsigned long runs;
    CompiledModule *m = compile_ok("tile.cu", TILE, &f->opts, &runs);
    assert_int_equal(runs, 1);
    assert_null(m->cubin);
    assert_int_equal(m->cubin_arch, 0);
    assert_non_null(strstr(m->ptx, ".target sm_80"));
    assert_int_equal(compiled_module_find(m, "tile")->registers, -1);
    compiled_module_free(&m);
}

/* ---- the same kernels and parameters as the compute_80 build ---- */

/* Parameter sizes of every kernel as the GPU backend's argument check
 * (cuda_ptx_params) and the emulator (its loaded module) see them. */
static void assert_same_params(const char *path, const CompiledModule *a, const CompiledModule *b, Backend *emu) {
    BackendModule *ea = NULL, *eb = NULL;
    Diag *d = emu->ops->module_load(emu, a, &ea);
    if (!d) d = emu->ops->module_load(emu, b, &eb);
    if (d) fail_msg("%s: the emulator cannot load it: %s", path, d->message);
    for (int i = 0; i < a->n_kernels; i++) {
        const char *low = a->kernels[i].lowered;
        size_t sa[64], sb[64];
        int na = cuda_ptx_params(a->ptx, low, sa, 64), nb = cuda_ptx_params(b->ptx, low, sb, 64);
        if (na != nb || (na > 0 && memcmp(sa, sb, (size_t)(na < 64 ? na : 64) * sizeof sa[0])))
            fail_msg("%s: %s has other parameters in the sm_90 PTX", path, low);
        EmuKernelInfo ia, ib;
        assert_true(emu_module_kernel_info(ea, low, &ia));
        assert_true(emu_module_kernel_info(eb, low, &ib));
        assert_int_equal(ia.n_params, ib.n_params);
        assert_int_equal(ia.n_params, na);
        assert_int_equal(ia.param_size, ib.param_size);
        for (int p = 0; p < ia.n_params; p++) {
            assert_int_equal(ia.param_offsets[p], ib.param_offsets[p]);
            assert_int_equal(ia.param_sizes[p], ib.param_sizes[p]);
        }
        assert_int_equal(ia.shared_static, ib.shared_static);
    }
    emu->ops->module_unload(emu, &ea);
    emu->ops->module_unload(emu, &eb);
}

/* Builds `src` both ways (cache off); false when it does not compile on its own. */
static bool check_solution(const char *path, const char *src, Backend *emu, int *one_program) {
    CompileOptions o = {.cache_dir = "", .opt_level = -1};
    CompiledModule *a = NULL, *b = NULL;
    Diag *d = compile_cuda(path, src, &o, &a);
    if (d) {
        diag_free(&d);
        o.extra_opts = LESSON_DEFINES;
        o.n_extra_opts = N_LESSON_DEFINES;
        d = compile_cuda(path, src, &o, &a);
    }
    if (d) {
        diag_free(&d);
        return false;
    }
    o.cubin_arch = 90;
    unsigned long runs;
    b = compile_ok(path, src, &o, &runs);
    assert_non_null(b->cubin);
    *one_program += runs == 1;
    if (runs == 1) assert_non_null(strstr(b->ptx, ".target sm_90"));
    Diag *bad = emu_parse_check(b->ptx, b->ptx_size);
    if (bad) fail_msg("%s: the emulator cannot decode the GPU build's PTX: %s", path, bad->message);
    assert_int_equal(a->n_kernels, b->n_kernels);
    for (int i = 0; i < a->n_kernels; i++) {
        assert_string_equal(a->kernels[i].name, b->kernels[i].name);
        assert_string_equal(a->kernels[i].lowered, b->kernels[i].lowered);
    }
    assert_same_params(path, a, b, emu);
    compiled_module_free(&a);
    compiled_module_free(&b);
    return true;
}

static void compile__lists_the_kernels_and_params_of_the_compute_80_build__for_every_lesson_solution(void **state) {
    (void)state;
    glob_t g;
    assert_int_equal(glob("lessons/*/solutions/*.cu", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 40);
    EmuOptions eo = {.threads = 1};
    Diag *why = NULL;
    Backend *emu = emu_backend_new(&eo, &why);
    if (!emu) fail_msg("no emulator: %s", why ? why->message : "?");
    int files = 0, skipped = 0, one_program = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *src = NULL;
        size_t len = 0;
        Diag *d = fs_read_file(g.gl_pathv[i], &src, &len);
        if (d) fail_msg("%s", d->message);
        if (!strstr(src, "int main(")) {    /* whole programs are nvcc's */
            if (check_solution(g.gl_pathv[i], src, emu, &one_program)) {
                files++;
            } else {
                skipped++;
                print_message("skipped %s: it does not compile on its own\n", g.gl_pathv[i]);
            }
        }
        free(src);
    }
    print_message("%d kernel solutions (%d skipped), %d of them one NVRTC program (the rest fell back to "
                  "compute_80 PTX)\n", files, skipped, one_program);
    assert_true(files >= 40);
    assert_true(skipped <= files / 10);
    emu->ops->destroy(emu);
    globfree(&g);
}

/* ---- the emulator's fallback ---- */

/* griddepcontrol.wait (sm_90) is an instruction the emulator lacks; the
 * guard puts it in the sm_90 build only. */
static const char *SM90_GUARDED =
    "__global__ void fill(int *x) {\n"
    "#if __CUDA_ARCH__ >= 900\n"
    "    asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
    "#endif\n"
    "    x[threadIdx.x] = 3 * threadIdx.x;\n"
    "}\n";

static const char *GRIDDEP_PTX =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k()\n{\n\tgriddepcontrol.wait;\n\tret;\n}\n";

/* Skips (saying why) once the emulator decodes griddepcontrol.wait. */
static void require_undecodable_griddep(void) {
    Diag *premise = emu_parse_check(GRIDDEP_PTX, strlen(GRIDDEP_PTX));
    if (!premise) {
        print_message("the emulator decodes griddepcontrol.wait now: give this test an sm_90 instruction it lacks\n");
        skip();
    }
    diag_free(&premise);
}

static void compile__falls_back_to_compute_80_ptx__when_the_emulator_cannot_decode_the_sm_90_ptx(void **state) {
    Fixture *f = *state;
    require_undecodable_griddep();
    f->opts.cubin_arch = 90;
    unsigned long runs;
    CompiledModule *m = compile_ok("fill.cu", SM90_GUARDED, &f->opts, &runs);
    assert_int_equal(runs, 2);
    assert_non_null(strstr(m->ptx, ".target sm_80"));
    assert_null(strstr(m->ptx, "griddepcontrol"));
    Diag *bad = emu_parse_check(m->ptx, m->ptx_size);
    assert_null(bad);
    assert_non_null(m->cubin);                          /* the GPU's build is sm_90's, griddepcontrol and all */
    assert_int_equal(m->cubin_arch, 90);
    const KernelInfo *k = compiled_module_find(m, "fill");
    assert_non_null(k);
    assert_true(k->registers > 0);
    compiled_module_free(&m);
    m = compile_ok("fill.cu", SM90_GUARDED, &f->opts, &runs);  /* the entry holds the fallback */
    assert_int_equal(runs, 0);
    assert_true(m->cache_hit);
    assert_non_null(strstr(m->ptx, ".target sm_80"));
    assert_non_null(m->cubin);
    compiled_module_free(&m);
}

static void compile__keeps_the_sm_90_ptx__when_only_sm_90_builds_the_source(void **state) {
    Fixture *f = *state;
    require_undecodable_griddep();
    const char *src = "#if __CUDA_ARCH__ < 900\n"
                      "#error this kernel needs sm_90\n"
                      "#endif\n"
                      "__global__ void fill(int *x) {\n"
                      "    asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
                      "    x[threadIdx.x] = 1;\n"
                      "}\n";
    f->opts.cubin_arch = 90;
    unsigned long runs;
    CompiledModule *m = compile_ok("sm90.cu", src, &f->opts, &runs);
    assert_int_equal(runs, 2);                          /* the fallback was tried */
    assert_non_null(strstr(m->ptx, ".target sm_90"));
    assert_non_null(strstr(m->ptx, "griddepcontrol.wait"));
    assert_non_null(m->cubin);
    assert_null(m->warnings);                           /* the fallback's error is no learner's business */
    compiled_module_free(&m);
}

/* ---- logs ---- */

static void compile__keeps_ptxas_lines_out_of_the_warnings__when_a_cubin_is_built(void **state) {
    Fixture *f = *state;
    const char *src = "__global__ void k(float *a) {\n"
                      "    int unused = 3;\n"
                      "    a[threadIdx.x] = 1.0f;\n"
                      "}\n";
    f->opts.cubin_arch = 90;
    CompiledModule *m = NULL;
    char *ptxas = NULL;
    Diag *d = compile_cuda_logged("w.cu", src, &f->opts, &m, &ptxas);
    assert_null(d);
    assert_non_null(ptxas);                             /* ptxas -v's lines, for the resources */
    assert_non_null(strstr(ptxas, "ptxas"));
    assert_non_null(m->log);
    assert_null(strstr(m->log, "ptxas"));
    assert_non_null(m->warnings);
    assert_null(m->warnings->next);
    assert_string_equal(m->warnings->file, "w.cu");
    assert_int_equal(m->warnings->line, 2);
    assert_non_null(strstr(m->warnings->message, "unused"));
    free(ptxas);
    compiled_module_free(&m);
    assert_null(compile_cuda("w.cu", src, &f->opts, &m));  /* a hit reads the same warnings */
    assert_true(m->cache_hit);
    assert_non_null(m->warnings);
    assert_int_equal(m->warnings->line, 2);
    compiled_module_free(&m);
}

static void compile__reports_the_front_ends_error_in_the_learners_file__when_a_cubin_is_wanted(void **state) {
    Fixture *f = *state;
    const char *src = "__global__ void k(float *a) {\n"
                      "    a[threadIdx.x] = b;\n"
                      "}\n";
    f->opts.cubin_arch = 90;
    CompiledModule *m = NULL;
    unsigned long before = compile_nvrtc_runs();
    Diag *d = compile_cuda("e.cu", src, &f->opts, &m);
    assert_int_equal(compile_nvrtc_runs() - before, 1);
    assert_null(m);
    assert_non_null(d);
    assert_null(d->next);
    assert_string_equal(d->file, "e.cu");
    assert_int_equal(d->line, 2);
    assert_non_null(strstr(d->message, "\"b\" is undefined"));
    assert_null(strstr(d->message, "ptxas"));
    diag_free(&d);
}

static void compile__reports_ptxas_failure__when_only_ptxas_rejects_the_kernel(void **state) {
    Fixture *f = *state;
    const char *src = "__global__ void k(float *a) {\n"
                      "    asm volatile(\"no_such_instruction.b32 %0;\" :: \"r\"(1));\n"
                      "    a[0] = 1.0f;\n"
                      "}\n";
    f->opts.cubin_arch = 90;
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("p.cu", src, &f->opts, &m);
    assert_null(m);
    assert_non_null(d);
    assert_string_equal(d->file, "p.cu");
    assert_non_null(strstr(d->message, "ptxas (sm_90)"));
    diag_free(&d);
    f->opts.cubin_arch = 0;                             /* without ptxas the PTX is all there is */
    assert_null(compile_cuda("p.cu", src, &f->opts, &m));
    compiled_module_free(&m);
}

int main(void) {
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            compile__runs_one_nvrtc_program_for_the_ptx_and_the_cubin__when_a_cubin_is_wanted, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__runs_one_compute_80_program__when_no_cubin_is_wanted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            compile__falls_back_to_compute_80_ptx__when_the_emulator_cannot_decode_the_sm_90_ptx, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__keeps_the_sm_90_ptx__when_only_sm_90_builds_the_source, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(compile__keeps_ptxas_lines_out_of_the_warnings__when_a_cubin_is_built, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            compile__reports_the_front_ends_error_in_the_learners_file__when_a_cubin_is_wanted, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__reports_ptxas_failure__when_only_ptxas_rejects_the_kernel, setup,
                                        teardown),
        cmocka_unit_test(compile__lists_the_kernels_and_params_of_the_compute_80_build__for_every_lesson_solution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
