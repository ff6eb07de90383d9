/* tests/kernels/test_program_compile.c: the options program_compile gives
 * nvcc (program_nvcc_options) and what they build: on a GPU one virtual
 * architecture, whose PTX sits beside the SASS made from it (grading's
 * emulator check runs that PTX); compute_80 PTX on the emulator and beside
 * the SASS of a GPU newer than the emulator's PTX; device line info, host
 * line tables only, no device link. The executables are read back (the fat
 * binary in .nv_fatbin) and run on the emulator runtime. nvcc cases skip
 * when nvcc is missing, emulator cases until $BUILD/emurt is built. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/emu/emu.h"
#include "kernels/fatbin.h"
#include "tests/kernels/program_fixture.h"

/* ---- the command line ---- */

static int count_of(char **v, const char *s) {
    int n = 0;
    for (char **p = v; *p; p++) n += !strcmp(*p, s);
    return n;
}

/* The argument after the first `flag`, or NULL. */
static const char *after(char **v, const char *flag) {
    for (char **p = v; *p; p++)
        if (!strcmp(*p, flag)) return p[1];
    return NULL;
}

static bool any_mentions(char **v, const char *s) {
    for (char **p = v; *p; p++)
        if (strstr(*p, s)) return true;
    return false;
}

static void options__build_one_virtual_arch_for_its_ptx_and_sass__when_sass_arch_is_90(void **state) {
    (void)state;
    ProgramCompileOptions o = {.sass_arch = 90};
    char **v = program_nvcc_options(&o);
    assert_int_equal(count_of(v, "-gencode"), 1);
    assert_string_equal(after(v, "-gencode"), "arch=compute_90,code=[compute_90,sm_90]");
    assert_false(any_mentions(v, "compute_80"));
    program_nvcc_options_free(&v);
    assert_null(v);
}

static void options__embed_compute_80_ptx_only__when_there_is_no_sass_arch(void **state) {
    (void)state;
    ProgramCompileOptions none = {0};
    char **with[] = {program_nvcc_options(&none), program_nvcc_options(NULL)};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(count_of(with[i], "-gencode"), 1);
        assert_string_equal(after(with[i], "-gencode"), "arch=compute_80,code=compute_80");
        assert_false(any_mentions(with[i], "sm_"));
        program_nvcc_options_free(&with[i]);
    }
}

/* The emulator runs PTX up to compute_90: a newer GPU's own PTX would leave
 * grading's emulator check nothing to run. */
static void options__keep_compute_80_ptx_beside_the_sass__when_the_gpu_is_newer_than_sm_90(void **state) {
    (void)state;
    ProgramCompileOptions o = {.sass_arch = 100};
    char **v = program_nvcc_options(&o);
    assert_int_equal(count_of(v, "-gencode"), 2);
    assert_string_equal(after(v, "-gencode"), "arch=compute_80,code=compute_80");
    assert_int_equal(count_of(v, "arch=compute_100,code=sm_100"), 1);
    assert_false(any_mentions(v, "compute_100,code=[") || any_mentions(v, "code=compute_100"));
    program_nvcc_options_free(&v);
}

static void options__keep_device_line_info_and_host_line_tables__and_skip_the_device_link(void **state) {
    (void)state;
    const char *defs[] = {"N=7", "ITERS=3"};
    ProgramCompileOptions o = {.sass_arch = 90, .defines = defs, .n_defines = 2};
    char **v = program_nvcc_options(&o);
    assert_int_equal(count_of(v, "-lineinfo"), 1);     /* sanitizer and emulator findings name lines */
    assert_int_equal(count_of(v, "-G"), 0);            /* device code stays optimised */
    assert_int_equal(count_of(v, "-g"), 0);            /* not every header's types ... */
    assert_string_equal(after(v, "-Xcompiler"), "-g1");  /* ... but line tables and function names */
    assert_int_equal(count_of(v, "-pipe"), 1);
    assert_int_equal(count_of(v, "-nodlink"), 1);
    assert_string_equal(after(v, "-cudart"), "shared");
    int n = 0;
    while (v[n]) n++;
    assert_true(n >= 2);
    assert_string_equal(v[n - 2], "-DN=7");
    assert_string_equal(v[n - 1], "-DITERS=3");
    program_nvcc_options_free(&v);
}

/* ---- what they build ---- */

static const char *SCALE_SRC =
    "#include <cstdio>\n"
    "__global__ void scale(float *x, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] *= 2.0f;\n"
    "}\n"
    "int main() {\n"
    "    const int n = 64;\n"
    "    float h_x[n];\n"
    "    for (int i = 0; i < n; i++) h_x[i] = i;\n"
    "    float *d_x = nullptr;\n"
    "    cudaMalloc(&d_x, n * sizeof(float));\n"
    "    cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);\n"
    "    scale<<<1, n>>>(d_x, n);\n"
    "    cudaMemcpy(h_x, d_x, n * sizeof(float), cudaMemcpyDeviceToHost);\n"
    "    cudaFree(d_x);\n"
    "    printf(\"%g %g\\n\", h_x[1], h_x[63]);\n"
    "    return 0;\n"
    "}\n";

typedef struct Image {
    int n_fatbins;                  /* fat binaries in .nv_fatbin (a device link adds one) */
    int ptx[4], n_ptx;              /* their PTX entries' archs */
    int elf[4], n_elf;              /* their cubins' archs */
} Image;

/* Reads exe's .nv_fatbin section and lists every fat binary in it. */
static void read_image(const char *exe, Image *im) {
    memset(im, 0, sizeof *im);
    char *buf = NULL;
    size_t len = 0;
    Diag *d = fs_read_file_max(exe, 64u << 20, &buf, &len);
    assert_null(d);
    assert_true(len > sizeof(Elf64_Ehdr));
    Elf64_Ehdr eh;
    memcpy(&eh, buf, sizeof eh);
    assert_true(eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) <= len && eh.e_shstrndx < eh.e_shnum);
    Elf64_Shdr strs;
    memcpy(&strs, buf + eh.e_shoff + eh.e_shstrndx * sizeof(Elf64_Shdr), sizeof strs);
    const unsigned char *sec = NULL;
    size_t size = 0;
    for (int i = 0; i < eh.e_shnum && !sec; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, buf + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
        if (strs.sh_offset + sh.sh_name < len && !strcmp(buf + strs.sh_offset + sh.sh_name, ".nv_fatbin")) {
            assert_true(sh.sh_offset + sh.sh_size <= len);
            sec = (const unsigned char *)buf + sh.sh_offset;
            size = sh.sh_size;
        }
    }
    assert_non_null(sec);
    size_t off = 0;
    while (off + 16 <= size) {
        uint32_t magic;
        memcpy(&magic, sec + off, 4);
        if (magic != FATBIN_MAGIC) {    /* padding between fat binaries */
            off += 8;
            continue;
        }
        Fatbin *fb = NULL;
        assert_null(fatbin_parse(sec + off, size - off, &fb));
        im->n_fatbins++;
        for (int i = 0; i < fb->n_entries; i++) {
            const FatbinEntry *e = &fb->entries[i];
            if (e->kind == FATBIN_KIND_PTX && im->n_ptx < 4) im->ptx[im->n_ptx++] = e->arch;
            if (e->kind == FATBIN_KIND_ELF && im->n_elf < 4) im->elf[im->n_elf++] = e->arch;
        }
        off += fb->size;
        fatbin_free(&fb);
    }
    free(buf);
}

/* Builds SCALE_SRC as `display` (a file the runtime can read when absolute). */
static CompiledProgram *build(Fixture *f, const char *display, int sass_arch) {
    f->copts.sass_arch = sass_arch;
    CompiledProgram *p = NULL;
    Diag *d = program_compile(display, SCALE_SRC, &f->copts, &p);
    if (d) {
        char *all = diag_format_all(d, false);
        fprintf(stderr, "%s\n", all);
        free(all);
    }
    assert_null(d);
    return p;
}

/* The old command line (compute_80 PTX, a second -gencode for the SASS)
 * embedded PTX the GPU never ran, and a device-link image with no code. */
static void compile__embeds_only_the_ptx_its_sm_90_sass_came_from__when_sass_arch_is_90(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    CompiledProgram *p = build(f, "ws/scale.cu", 90);
    Image im;
    read_image(p->exe, &im);
    assert_int_equal(im.n_fatbins, 1);
    assert_int_equal(im.n_ptx, 1);
    assert_int_equal(im.ptx[0], 90);
    assert_int_equal(im.n_elf, 1);
    assert_int_equal(im.elf[0], 90);
    compiled_program_free(&p);
}

/* griddepcontrol.wait (sm_90) is an instruction the emulator lacks: only in
 * the compute_90 PTX (the guard), so only a fallback build can run there. */
static const char *SM90_ONLY_SRC =
    "#include <cstdio>\n"
    "__global__ void fill(int *x) {\n"
    "#if __CUDA_ARCH__ >= 900\n"
    "    asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
    "#endif\n"
    "    x[threadIdx.x] = 3 * threadIdx.x;\n"
    "}\n"
    "int main() {\n"
    "    int *d = nullptr, h[32];\n"
    "    cudaMalloc(&d, sizeof h);\n"
    "    fill<<<1, 32>>>(d);\n"
    "    cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
    "    printf(\"%s %d\\n\", cudaGetErrorName(e), h[31]);\n"
    "    return 0;\n"
    "}\n";

static const char *GRIDDEP_PTX =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k()\n{\n\tgriddepcontrol.wait;\n\tret;\n}\n";

/* When the emulator cannot decode the compute_90 PTX, the build is made
 * again the old way: compute_80 PTX (which grading's emulator check runs)
 * beside the same sm_90 SASS. */
static void compile__puts_compute_80_ptx_beside_the_sass__when_the_emulator_cannot_decode_the_compute_90_ptx(
    void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    Diag *premise = emu_parse_check(GRIDDEP_PTX, strlen(GRIDDEP_PTX));
    if (!premise) {
        fprintf(stderr, "the emulator decodes griddepcontrol.wait now: give this test an sm_90 instruction it lacks\n");
        skip();
    }
    diag_free(&premise);
    f->copts.sass_arch = 90;
    CompiledProgram *p = NULL;
    Diag *d = program_compile("ws/sm90.cu", SM90_ONLY_SRC, &f->copts, &p);
    assert_null(d);
    Image im;
    read_image(p->exe, &im);
    assert_int_equal(im.n_ptx, 1);
    assert_int_equal(im.ptx[0], 80);
    assert_int_equal(im.n_elf, 1);
    assert_int_equal(im.elf[0], 90);
    if (program_emurt_dir()) {
        f->ropts.runtime = PROGRAM_RT_EMU;
        assert_null(program_run(p->exe, &f->ropts, &f->res));
        assert_string_equal(f->res.out, "cudaSuccess 93\n");
    }
    compiled_program_free(&p);
}

/* Grading's emulator check runs the GPU run's executable: its compute_90
 * PTX; and the emulator runtime names allocations as the source does from
 * the host line tables (emurt_names.c), which read the source where the
 * DWARF says it is: here an absolute display path, as `cudojo exec` has. */
static void run_emu__runs_the_sm_90_build_and_names_its_allocations__from_line_tables_only(void **state) {
    Fixture *f = *state;
    if (!has_nvcc() || !program_emurt_dir()) skip();
    char *display = path_join(f->dir, "scale.cu");
    assert_null(fs_write_file_atomic(display, SCALE_SRC, strlen(SCALE_SRC)));
    CompiledProgram *p = build(f, display, 90);
    f->ropts.runtime = PROGRAM_RT_EMU;
    f->ropts.display_path = display;
    f->ropts.source = SCALE_SRC;
    assert_null(program_run(p->exe, &f->ropts, &f->res));
    if (f->res.exit_code != 0) fprintf(stderr, "the program's stderr: %s\n", f->res.err);
    assert_int_equal(f->res.exit_code, 0);
    assert_string_equal(f->res.out, "2 126\n");
    assert_null(find_code(f->res.findings, "no-ptx"));
    bool named = false;
    for (size_t i = 0; i < json_array_size(f->res.calls); i++) {
        json_t *c = json_array_get(f->res.calls, i);
        const char *fn = json_string_value(json_object_get(c, "fn"));
        const char *args = json_string_value(json_object_get(c, "args"));
        if (fn && args && !strcmp(fn, "cudaMemcpy") && strstr(args, "d_x+0, h_x, 256")) named = true;
    }
    if (!named) {
        char *calls = json_dumps(f->res.calls, JSON_COMPACT);
        fprintf(stderr, "calls: %s\n", calls);
        free(calls);
    }
    assert_true(named);
    compiled_program_free(&p);
    free(display);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(options__build_one_virtual_arch_for_its_ptx_and_sass__when_sass_arch_is_90),
        cmocka_unit_test(options__embed_compute_80_ptx_only__when_there_is_no_sass_arch),
        cmocka_unit_test(options__keep_compute_80_ptx_beside_the_sass__when_the_gpu_is_newer_than_sm_90),
        cmocka_unit_test(options__keep_device_line_info_and_host_line_tables__and_skip_the_device_link),
        cmocka_unit_test_setup_teardown(compile__embeds_only_the_ptx_its_sm_90_sass_came_from__when_sass_arch_is_90,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(run_emu__runs_the_sm_90_build_and_names_its_allocations__from_line_tables_only,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            compile__puts_compute_80_ptx_beside_the_sass__when_the_emulator_cannot_decode_the_compute_90_ptx, setup,
            teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
