/* tests/kernels/test_cubin_info.c: registers, stack frame and static shared
 * memory read from the cubin equal what ptxas -v prints, for every kernel of
 * every lesson solution on the archs learners have; a damaged cubin is an
 * error, never a crash; and the numbers survive an empty ptxas log (what
 * NVRTC gives when the driver's compute cache answered). NVRTC runs without
 * a GPU; CUDA_CACHE_DISABLE keeps a driver, where there is one, from
 * emptying the log these tests compare against. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/compile.h"
#include "kernels/compile_internal.h"
#include "kernels/cubin_info.h"

/* The -D values the lessons' .lua files pass for the macros some solutions
 * need (NCOEF/COEFFS, N, CHUNK, ITEMS, TM/TN, ITERS, ROUNDS, DEGREE, STEPS). */
static const char *const LESSON_DEFINES[] = {
    "-DNCOEF=4", "-DCOEFFS=1.0f,2.0f,3.0f,4.0f", "-DN=4096", "-DCHUNK=4096", "-DITEMS=4",
    "-DTM=4", "-DTN=4", "-DITERS=8", "-DROUNDS=2", "-DDEGREE=8", "-DSTEPS=64",
};
#define N_LESSON_DEFINES ((int)(sizeof LESSON_DEFINES / sizeof LESSON_DEFINES[0]))

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Compiles for sm_`arch` with no cache (NVRTC always runs); *log is ptxas's. */
static Diag *compile_for(const char *path, const char *src, int arch, bool defines,
                         CompiledModule **m, char **log) {
    CompileOptions o = {.cubin_arch = arch, .cache_dir = ""};
    if (defines) {
        o.extra_opts = LESSON_DEFINES;
        o.n_extra_opts = N_LESSON_DEFINES;
    }
    return compile_cuda_logged(path, src, &o, m, log);
}

/* A copy of the module's kernels with every resource unknown again. */
static KernelInfo *kernels_blank(const CompiledModule *m) {
    KernelInfo *k = xcalloc((size_t)m->n_kernels, sizeof *k);
    for (int i = 0; i < m->n_kernels; i++) {
        k[i].name = m->kernels[i].name;
        k[i].lowered = m->kernels[i].lowered;
        k[i].registers = k[i].shared_static = k[i].local_bytes = k[i].spill_bytes = -1;
    }
    return k;
}

/* The newest sm_XX this NVRTC builds for (the first candidate it accepts). */
static int newest_arch(void) {
    static const int candidates[] = {130, 121, 120, 110, 103, 101, 100, 90};
    const char *src = "__global__ void k(float *a) { a[0] = 1.0f; }\n";
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        CompiledModule *m = NULL;
        Diag *d = compile_for("probe.cu", src, candidates[i], false, &m, NULL);
        bool ok = !d && m && m->cubin;
        diag_free(&d);
        compiled_module_free(&m);
        if (ok) return candidates[i];
    }
    return 0;
}

typedef struct Sweep {
    int files, skipped, kernels, compiles, with_shared, with_stack, defined, programs;
} Sweep;

/* Every kernel of `path` on sm_`arch`: the cubin's numbers equal ptxas's log
 * and are what compile_cuda put in the module. Returns false when the file
 * does not compile on its own (it needs -D values its .lua passes). */
static bool check_file(const char *path, const char *src, int arch, Sweep *sw) {
    CompiledModule *m = NULL;
    char *log = NULL;
    Diag *d = compile_for(path, src, arch, false, &m, &log);
    if (d) {
        diag_free(&d);
        d = compile_for(path, src, arch, true, &m, &log);
        sw->defined += !d;
    }
    if (d) {
        diag_free(&d);
        return false;
    }
    sw->compiles++;
    if (!log)
        fail_msg("%s sm_%d: ptxas gave no log (a driver caching despite CUDA_CACHE_DISABLE?)", path, arch);
    assert_non_null(m->cubin);
    KernelInfo *ref = kernels_blank(m);
    compile_ptxas_info(log, ref, m->n_kernels);
    CubinInfo *info = NULL;
    d = cubin_info_parse(m->cubin, m->cubin_size, &info);
    if (d) fail_msg("%s sm_%d: %s", path, arch, d->message);
    assert_int_equal(info->arch, arch);
    assert_int_equal(info->has_reserved_shared, arch >= 90);   /* the rule cubin_info.h states */
    for (int i = 0; i < m->n_kernels; i++) {
        const KernelInfo *k = &m->kernels[i], *r = &ref[i];
        const CubinKernel *ck = cubin_info_find(info, k->lowered);
        if (!ck) fail_msg("%s sm_%d: kernel %s is not in the cubin", path, arch, k->lowered);
        if (r->registers < 0 || r->local_bytes < 0 || r->shared_static < 0)
            fail_msg("%s sm_%d: ptxas's log has no numbers for %s", path, arch, k->lowered);
        if (ck->registers != r->registers || ck->local_bytes != r->local_bytes ||
            ck->shared_static != r->shared_static)
            fail_msg("%s sm_%d %s: cubin says %d registers, %d B stack, %d B shared; ptxas %d, %d, %d",
                     path, arch, k->lowered, ck->registers, ck->local_bytes, ck->shared_static,
                     r->registers, r->local_bytes, r->shared_static);
        assert_int_equal(k->registers, r->registers);
        assert_int_equal(k->local_bytes, r->local_bytes);
        assert_int_equal(k->shared_static, r->shared_static);
        assert_int_equal(k->spill_bytes, r->spill_bytes);
        sw->kernels++;
        sw->with_shared += r->shared_static > 0;
        sw->with_stack += r->local_bytes > 0;
    }
    free(ref);
    cubin_info_free(&info);
    free(log);
    compiled_module_free(&m);
    return true;
}

static void cubin_info__equals_ptxas_log__for_every_lesson_solution_and_arch(void **state) {
    (void)state;
    double t0 = now_ms();
    glob_t g;
    assert_int_equal(glob("lessons/*/solutions/*.cu", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 40);
    int newest = newest_arch();
    assert_true(newest >= 100);
    /* Every file on sm_80 (exact shared sections) and sm_90 (1 KiB reserved
     * prefix); the other archs in turn, one more per file, so each sees about
     * a quarter of the files and the run stays near half a minute.
     * CUDOJO_CUBIN_ALL_ARCHS=1 checks every file on every arch (minutes). */
    const int every_short[] = {80, 90};
    const int every_all[] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
    const int turn[] = {75, 86, 89, newest};
    bool all = getenv("CUDOJO_CUBIN_ALL_ARCHS") != NULL;
    const int *every = all ? every_all : every_short;
    size_t n_every = all ? sizeof every_all / sizeof every_all[0] : 2;
    Sweep sw = {0};
    for (size_t f = 0; f < g.gl_pathc; f++) {
        const char *path = g.gl_pathv[f];
        char *src = NULL;
        size_t len = 0;
        Diag *d = fs_read_file(path, &src, &len);
        if (d) fail_msg("%s", d->message);
        /* Whole programs (chapters 06/07) are built by nvcc, not NVRTC. */
        if (strstr(src, "int main(")) {
            sw.programs++;
            free(src);
            continue;
        }
        bool ok = true;
        for (size_t a = 0; ok && a < n_every; a++) ok = check_file(path, src, every[a], &sw);
        if (ok && !all) ok = check_file(path, src, turn[f % 4], &sw);
        sw.files += ok;
        sw.skipped += !ok;
        if (!ok) print_message("skipped %s: it does not compile on its own\n", path);
        free(src);
    }
    print_message("%d solution files (%d skipped, %d whole programs left to nvcc), %d compiles, %d kernel checks "
                  "(%d with static shared, %d with a stack frame, "
                  "%d compiles needed the lessons' -D values), "
                  "%s, %.1f s\n",
                  sw.files, sw.skipped, sw.programs, sw.compiles, sw.kernels, sw.with_shared, sw.with_stack,
                  sw.defined,
                  all ? "every arch sm_75..sm_121" : "sm_80/90 for all, sm_75/86/89/newest in turn",
                  (now_ms() - t0) / 1e3);
    assert_true(sw.files >= ((int)g.gl_pathc - sw.programs) * 9 / 10);
    assert_true(sw.with_shared > 0);
    globfree(&g);
}

/* Kernels that stress the shared rule: none, several arrays, extern only,
 * extern plus static, 48 KiB; a local array indexed at run time (a stack
 * frame on every arch) and one that spills where the launch bounds hold. */
static const char *RESOURCE_KERNELS =
    "__global__ void none(float *a) { a[threadIdx.x] *= 2.0f; }\n"
    "__global__ void several(const float *a, float *c) {\n"
    "    __shared__ float s[100]; __shared__ double t[33]; __shared__ char u[3];\n"
    "    s[threadIdx.x % 100] = a[threadIdx.x]; t[threadIdx.x % 33] = a[threadIdx.x + 1];\n"
    "    u[threadIdx.x % 3] = 1; __syncthreads();\n"
    "    c[threadIdx.x] = s[99 - threadIdx.x % 100] + t[threadIdx.x % 7] + u[threadIdx.x % 2];\n"
    "}\n"
    "extern __shared__ float dyn[];\n"
    "__global__ void dyn_only(const float *a, float *c) {\n"
    "    dyn[threadIdx.x] = a[threadIdx.x]; __syncthreads(); c[threadIdx.x] = dyn[threadIdx.x ^ 1];\n"
    "}\n"
    "__global__ void dyn_and_static(const float *a, float *c) {\n"
    "    __shared__ int st[5]; st[threadIdx.x % 5] = 1; dyn[threadIdx.x] = a[threadIdx.x];\n"
    "    __syncthreads(); c[threadIdx.x] = dyn[threadIdx.x ^ 1] + st[threadIdx.x % 3];\n"
    "}\n"
    "__global__ void full48(float *a) {\n"
    "    __shared__ float s[12288]; s[threadIdx.x] = a[threadIdx.x]; __syncthreads();\n"
    "    a[threadIdx.x] = s[(threadIdx.x * 7) % 12288];\n"
    "}\n"
    "__global__ void stack_array(const float *a, float *c, int n, int k) {\n"
    "    float loc[64];\n"
    "    for (int i = 0; i < n; i++) loc[i & 63] = a[i];\n"
    "    c[threadIdx.x] = loc[k & 63];\n"
    "}\n"
    "__global__ void __launch_bounds__(1024, 2) spills(const float *a, float *c) {\n"
    "    float v[40];\n"
    "    #pragma unroll\n"
    "    for (int i = 0; i < 40; i++) v[i] = a[i * blockDim.x + threadIdx.x];\n"
    "    float s = 0;\n"
    "    #pragma unroll\n"
    "    for (int j = 0; j < 40; j++) for (int i = 0; i < 40; i++) s += v[i] * v[(i + j) % 40];\n"
    "    c[threadIdx.x] = s;\n"
    "}\n";

static void cubin_info__equals_ptxas_log__for_shared_layouts_on_every_arch(void **state) {
    (void)state;
    const int archs[] = {75, 80, 86, 87, 89, 90, 100, 120};
    Sweep sw = {0};
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++)
        assert_true(check_file("resources.cu", RESOURCE_KERNELS, archs[a], &sw));
    assert_int_equal(sw.kernels, 7 * (int)(sizeof archs / sizeof archs[0]));
    assert_true(sw.with_stack >= 8);    /* stack_array everywhere */
}

/* ---- damaged cubins ---- */

typedef struct Blob {
    unsigned char *data;
    size_t size;
} Blob;

/* A small sm_90 cubin: one kernel with 512 B of shared, one without. */
static Blob blob_compile(void) {
    const char *src = "__global__ void tile(const float *a, float *c) {\n"
                      "    __shared__ float s[128];\n"
                      "    s[threadIdx.x] = a[threadIdx.x]; __syncthreads();\n"
                      "    c[threadIdx.x] = s[127 - threadIdx.x];\n"
                      "}\n"
                      "__global__ void plain(float *a) { a[threadIdx.x] += 1.0f; }\n";
    CompiledModule *m = NULL;
    Diag *d = compile_for("tile.cu", src, 90, false, &m, NULL);
    if (d) fail_msg("%s", d->message);
    Blob b = {xmalloc(m->cubin_size), m->cubin_size};
    memcpy(b.data, m->cubin, b.size);
    compiled_module_free(&m);
    return b;
}

static bool parses(const void *data, size_t size) {
    CubinInfo *info = NULL;
    Diag *d = cubin_info_parse(data, size, &info);
    bool ok = d == NULL;
    if (ok) assert_non_null(info);
    else assert_null(info);
    if (d) assert_string_equal(d->code, "cubin");
    diag_free(&d);
    cubin_info_free(&info);
    return ok;
}

/* The test's own reading of the (intact) ELF: offset of section `name`'s header and data. */
static bool blob_section(const Blob *b, const char *name, size_t *hdr_off, Elf64_Shdr *out) {
    Elf64_Ehdr e;
    memcpy(&e, b->data, sizeof e);
    Elf64_Shdr strs;
    memcpy(&strs, b->data + e.e_shoff + (size_t)e.e_shstrndx * e.e_shentsize, sizeof strs);
    for (int i = 0; i < e.e_shnum; i++) {
        size_t off = e.e_shoff + (size_t)i * e.e_shentsize;
        memcpy(out, b->data + off, sizeof *out);
        if (!strcmp((const char *)b->data + strs.sh_offset + out->sh_name, name)) {
            *hdr_off = off;
            return true;
        }
    }
    return false;
}

static void cubin_info__reads_the_intact_cubin__as_a_baseline(void **state) {
    (void)state;
    Blob b = blob_compile();
    CubinInfo *info = NULL;
    assert_null(cubin_info_parse(b.data, b.size, &info));
    assert_int_equal(info->n_kernels, 2);
    const CubinKernel *k = cubin_info_find(info, "_Z4tilePKfPf");
    assert_non_null(k);
    assert_true(k->registers > 0);
    assert_int_equal(k->shared_static, 512);
    assert_int_equal(k->local_bytes, 0);
    assert_int_equal(cubin_info_find(info, "_Z5plainPf")->shared_static, 0);
    assert_null(cubin_info_find(info, "missing"));
    cubin_info_free(&info);
    assert_null(info);
    free(b.data);
}

static void cubin_info__fails_cleanly__when_truncated_anywhere(void **state) {
    (void)state;
    Blob b = blob_compile();
    assert_false(parses(b.data, 0));
    assert_false(parses(NULL, 100));
    assert_false(parses(b.data, sizeof(Elf64_Ehdr) - 1));
    assert_false(parses(b.data, sizeof(Elf64_Ehdr)));
    assert_false(parses(b.data, b.size / 2));
    Elf64_Ehdr e;
    memcpy(&e, b.data, sizeof e);
    assert_false(parses(b.data, e.e_shoff + (size_t)e.e_shnum * e.e_shentsize - 1));
    /* Every length, each copy exactly that long so ASan sees a read past it. */
    for (size_t n = 0; n < b.size; n++) {
        unsigned char *cut = xmalloc(n ? n : 1);
        memcpy(cut, b.data, n);
        (void)parses(cut, n);
        free(cut);
    }
    free(b.data);
}

static void put_u64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof v); }
static void put_u32(unsigned char *p, uint32_t v) { memcpy(p, &v, sizeof v); }
static void put_u16(unsigned char *p, uint16_t v) { memcpy(p, &v, sizeof v); }

static void cubin_info__fails_cleanly__when_headers_or_records_are_scribbled(void **state) {
    (void)state;
    Blob b = blob_compile();
    unsigned char *w = xmalloc(b.size);
#define RESET() memcpy(w, b.data, b.size)
    RESET(); w[0] = 'X';
    assert_false(parses(w, b.size));                                    /* magic */
    RESET(); w[EI_CLASS] = ELFCLASS32;
    assert_false(parses(w, b.size));
    RESET(); put_u16(w + offsetof(Elf64_Ehdr, e_machine), EM_X86_64);
    assert_false(parses(w, b.size));
    RESET(); put_u64(w + offsetof(Elf64_Ehdr, e_shoff), UINT64_MAX - 8);
    assert_false(parses(w, b.size));
    RESET(); put_u16(w + offsetof(Elf64_Ehdr, e_shnum), 0xffff);
    assert_false(parses(w, b.size));
    RESET(); put_u16(w + offsetof(Elf64_Ehdr, e_shstrndx), 0xfff0);
    assert_false(parses(w, b.size));
    RESET(); put_u16(w + offsetof(Elf64_Ehdr, e_shentsize), 8);
    assert_false(parses(w, b.size));

    size_t hdr;
    Elf64_Shdr sh;
    assert_true(blob_section(&b, ".symtab", &hdr, &sh));
    RESET(); put_u64(w + hdr + offsetof(Elf64_Shdr, sh_size), UINT64_MAX / 2);
    assert_false(parses(w, b.size));
    RESET(); put_u64(w + hdr + offsetof(Elf64_Shdr, sh_offset), b.size - 8);
    assert_false(parses(w, b.size));
    RESET(); put_u64(w + hdr + offsetof(Elf64_Shdr, sh_entsize), 7);
    assert_false(parses(w, b.size));
    RESET(); put_u32(w + hdr + offsetof(Elf64_Shdr, sh_link), 0xfffff);
    assert_false(parses(w, b.size));
    RESET(); put_u32(w + hdr + offsetof(Elf64_Shdr, sh_name), 0x7fffffff);
    assert_false(parses(w, b.size));

    assert_true(blob_section(&b, ".nv.info", &hdr, &sh));
    assert_true(sh.sh_size >= 12);
    RESET(); put_u64(w + hdr + offsetof(Elf64_Shdr, sh_size), b.size);
    assert_false(parses(w, b.size));
    RESET(); put_u64(w + hdr + offsetof(Elf64_Shdr, sh_size), sh.sh_size - 2);
    assert_false(parses(w, b.size));                                    /* ends inside a record */
    RESET(); w[sh.sh_offset] = 0x09;
    assert_false(parses(w, b.size));                                    /* unknown format */
    RESET(); put_u16(w + sh.sh_offset + 2, 0xfff0);
    assert_false(parses(w, b.size));                                    /* size past the section */
    /* The first record is a register count or a frame size: point it past .symtab. */
    assert_true(w[sh.sh_offset + 1] == 0x2f || w[sh.sh_offset + 1] == 0x11);
    RESET(); put_u32(w + sh.sh_offset + 4, 0xfffffff0u);
    assert_false(parses(w, b.size));

    /* Random scribbles: any outcome but a crash or a sanitizer report. */
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int errors = 0;
    for (int round = 0; round < 3000; round++) {
        RESET();
        for (int k = 0; k < 1 + round % 8; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(seed >> 33) % b.size;
            w[at] = (unsigned char)(seed >> 13);
        }
        errors += !parses(w, b.size);
    }
    assert_true(errors > 0);
#undef RESET
    free(w);
    free(b.data);
}

/* ---- the defect: an empty ptxas log ---- */

static void compile__reads_registers_from_cubin__when_ptxas_log_is_empty(void **state) {
    (void)state;
    CompiledModule *m = NULL;
    char *log = NULL;
    Diag *d = compile_for("resources.cu", RESOURCE_KERNELS, 90, false, &m, &log);
    if (d) fail_msg("%s", d->message);
    assert_non_null(log);
    KernelInfo *from_log = kernels_blank(m), *no_log = kernels_blank(m);
    compile_ptxas_info(log, from_log, m->n_kernels);
    /* What NVRTC gives when the driver's compute cache served ptxas: a cubin, no log. */
    assert_null(compile_kernel_resources(m->cubin, m->cubin_size, NULL, no_log, m->n_kernels));
    for (int i = 0; i < m->n_kernels; i++) {
        assert_true(from_log[i].registers > 0);
        assert_int_equal(no_log[i].registers, from_log[i].registers);
        assert_int_equal(no_log[i].shared_static, from_log[i].shared_static);
        assert_int_equal(no_log[i].local_bytes, from_log[i].local_bytes);
        assert_int_equal(no_log[i].spill_bytes, -1);     /* only the log knows spills */
    }
    const KernelInfo *sp = compiled_module_find(m, "spills");
    assert_non_null(sp);
    assert_true(sp->spill_bytes > 0 && sp->local_bytes >= sp->spill_bytes);
    free(from_log);
    free(no_log);
    free(log);
    compiled_module_free(&m);
}

static void compile__keeps_the_logs_numbers__when_cubin_is_unreadable(void **state) {
    (void)state;
    CompiledModule *m = NULL;
    char *log = NULL;
    Diag *d = compile_for("resources.cu", RESOURCE_KERNELS, 80, false, &m, &log);
    if (d) fail_msg("%s", d->message);
    KernelInfo *k = kernels_blank(m);
    unsigned char junk[64] = {0};
    d = compile_kernel_resources(junk, sizeof junk, log, k, m->n_kernels);
    assert_non_null(d);
    assert_string_equal(d->code, "cubin");
    diag_free(&d);
    for (int i = 0; i < m->n_kernels; i++) {
        assert_int_equal(k[i].registers, m->kernels[i].registers);
        assert_int_equal(k[i].shared_static, m->kernels[i].shared_static);
        assert_int_equal(k[i].spill_bytes, m->kernels[i].spill_bytes);
    }
    free(k);
    free(log);
    compiled_module_free(&m);
}

int main(void) {
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cubin_info__reads_the_intact_cubin__as_a_baseline),
        cmocka_unit_test(cubin_info__fails_cleanly__when_truncated_anywhere),
        cmocka_unit_test(cubin_info__fails_cleanly__when_headers_or_records_are_scribbled),
        cmocka_unit_test(compile__reads_registers_from_cubin__when_ptxas_log_is_empty),
        cmocka_unit_test(compile__keeps_the_logs_numbers__when_cubin_is_unreadable),
        cmocka_unit_test(cubin_info__equals_ptxas_log__for_shared_layouts_on_every_arch),
        cmocka_unit_test(cubin_info__equals_ptxas_log__for_every_lesson_solution_and_arch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
