/* tests/emu/test_vector.c: the shared-memory metrics count what ptxas
 * builds. Adjacent scalar ld/st.shared that ptxas merges into one
 * LDS/STS.64 or .128 count as one request at that width (emu_vector.c),
 * so a thread reading 4 adjacent floats has no bank conflict; what ptxas
 * cannot merge (unaligned, split by a barrier, two words apart) counts as
 * written; and for the course's shared-memory kernels the merged accesses
 * the emulator finds are the LDS.64/.128 and STS.64/.128 in cuobjdump's
 * SASS of what ptxas builds for sm_90 from the PTX the emulator runs
 * (NVRTC's; skipped, saying so, when ptxas, cuobjdump or nvdisasm is
 * missing). */
#include "tests/emu/emu_fixture.h"

#include <unistd.h>

#include "base/fs.h"
#include "kernels/emu/emu_internal.h"

/* Runs k(float *o, int x) with one block of `block` threads, o zeroed. */
static DevPtr run_f(EmuFx *f, const char *src, unsigned block, int x) {
    EmuOptions o = fx_opts(true, true);
    fx_load(f, src, &o);
    DevPtr p = fx_array(f, "o", 4, 4096, NULL);
    KernelArg args[] = {kernel_arg_ptr(p), kernel_arg_i32(x)};
    fx_run(f, "k", 1, block, args, 2);
    return p;
}

/* The kernels fill s back to front (s[127 - t]): filled front to back, NVVM
 * would reuse s + 4t for the loads' s + 16t and give the first load another
 * base register, which ptxas then leaves out of the LDS.128 too. */
#define FILL4 "    s[127 - t] = t; s[95 - t] = t; s[63 - t] = t; s[31 - t] = t;\n"

static void vector__counts_four_adjacent_loads_as_one_conflict_free_request(void **state) {
    (void)state;
    EmuFx f;
    run_f(&f,
          "extern \"C\" __global__ void k(float *o, int x) {\n"
          "    __shared__ float s[128];\n"
          "    int t = threadIdx.x;\n"
          FILL4
          "    __syncthreads();\n"
          "    const float *q = s + 4 * t;\n"
          "    o[t] = q[0] + q[1] * q[2] - q[3];\n"
          "}\n", 32, 0);
    /* one LDS.128: 4 phases of 8 lanes x 16 bytes, each conflict-free; as
     * 4 scalar loads 16 bytes apart each would be 4-way conflicted */
    assert_int_equal((int)fx_line(&f, 7, "shared_requests"), 1);
    assert_true(fx_line(&f, 7, "bank_conflict_degree") == 1.0);
    assert_null(fx_finding(&f, "bank-conflict"));
    assert_int_equal((int)fx_total(&f, "shared_requests"), 4 + 1);   /* the 4 stores of line 4 stay 4 */
    fx_free(&f);
}

static void vector__counts_adjacent_pair_as_one_64_bit_request(void **state) {
    (void)state;
    EmuFx f;
    run_f(&f,
          "extern \"C\" __global__ void k(float *o, int x) {\n"
          "    __shared__ float s[64];\n"
          "    int t = threadIdx.x;\n"
          "    s[63 - t] = t; s[31 - t] = t;\n"
          "    __syncthreads();\n"
          "    const float *q = s + 2 * t;\n"
          "    o[t] = q[0] * q[1];\n"
          "}\n", 32, 0);
    /* one LDS.64: 2 phases of 16 lanes x 8 bytes = 128 bytes each; as two
     * scalar loads 8 bytes apart each would be 2-way conflicted */
    assert_int_equal((int)fx_line(&f, 7, "shared_requests"), 1);
    assert_true(fx_line(&f, 7, "bank_conflict_degree") == 1.0);
    fx_free(&f);
}

static void vector__counts_adjacent_stores_as_one_request(void **state) {
    (void)state;
    EmuFx f;
    DevPtr o = run_f(&f,
          "extern \"C\" __global__ void k(float *o, int x) {\n"
          "    __shared__ float s[128];\n"
          "    int t = threadIdx.x;\n"
          "    float *q = s + 4 * t;\n"
          "    q[0] = x; q[1] = x * 2; q[2] = x * 3; q[3] = x * 5;\n"
          "    __syncthreads();\n"
          "    o[t] = s[(t * 7) & 127];\n"
          "}\n", 32, 3);
    /* STS.128 (stores are never widened: three would be STS.64 + STS) */
    assert_int_equal((int)fx_line(&f, 5, "shared_requests"), 1);
    assert_true(fx_line(&f, 5, "bank_conflict_degree") == 1.0);
    float h[32];   /* the values are the scalar stores' (only the counting merges) */
    fx_get(&f, h, o, sizeof h);
    for (int t = 0; t < 32; t++) {
        int w = (t * 7) & 127;
        assert_true(h[t] == 3.0f * (float)(w % 4 == 0 ? 1 : w % 4 == 1 ? 2 : w % 4 == 2 ? 3 : 5));
    }
    fx_free(&f);
}

static void vector__counts_genuine_two_way_conflict__when_words_are_two_apart(void **state) {
    (void)state;
    EmuFx f;
    run_f(&f,
          "extern \"C\" __global__ void k(float *o, int x) {\n"
          "    __shared__ float s[128];\n"
          "    int t = threadIdx.x;\n"
          FILL4
          "    __syncthreads();\n"
          "    const float *q = s + 2 * t;\n"
          "    o[t] = q[0] + q[2];\n"
          "}\n", 32, 0);
    /* words 0 and 2 make no LDS.64 (ptxas leaves two LDS): lanes 8 bytes
     * apart, two per bank, each load 2-way conflicted */
    assert_int_equal((int)fx_line(&f, 7, "shared_requests"), 2);
    assert_true(fx_line(&f, 7, "bank_conflict_degree") == 2.0);
    assert_non_null(fx_finding(&f, "bank-conflict"));
    fx_free(&f);
}

static void vector__counts_loads_as_written__when_lanes_are_unaligned(void **state) {
    (void)state;
    EmuFx f;
    /* s + 4t + 1: the merged 16 bytes would start mid-chunk (ptxas cannot
     * prove them aligned): 4 scalar loads, each 4-way conflicted */
    run_f(&f,
          "extern \"C\" __global__ void k(float *o, int x) {\n"
          "    __shared__ float s[132];\n"
          "    int t = threadIdx.x;\n"
          FILL4
          "    __syncthreads();\n"
          "    const float *q = s + 4 * t + x;\n"
          "    o[t] = q[0] + q[1] * q[2] - q[3];\n"
          "}\n", 32, 1);
    assert_int_equal((int)fx_line(&f, 7, "shared_requests"), 4);
    assert_true(fx_line(&f, 7, "bank_conflict_degree") == 4.0);
    fx_free(&f);
}

static void vector__keeps_loads_apart__when_barrier_between(void **state) {
    (void)state;
    EmuFx f;
    run_f(&f,
          "extern \"C\" __global__ void k(float *o, int x) {\n"
          "    __shared__ float s[128];\n"
          "    int t = threadIdx.x;\n"
          FILL4
          "    __syncthreads();\n"
          "    const float *q = s + 4 * t;\n"
          "    float a = q[0], b = q[1];\n"
          "    __syncthreads();\n"
          "    float c = q[2], d = q[3];\n"
          "    o[t] = a + b * c - d;\n"
          "}\n", 32, 0);
    /* two LDS.64, each 2 phases of 16 lanes 16 bytes apart: 2-way */
    assert_int_equal((int)fx_line(&f, 7, "shared_requests"), 1);
    assert_int_equal((int)fx_line(&f, 9, "shared_requests"), 1);
    assert_true(fx_line(&f, 7, "bank_conflict_degree") == 2.0);
    fx_free(&f);
}

/* ---- groups open at the same time ------------------------------------- */

/* The first pcs of the merged groups of kernel k in f's PTX, in pc order. */
static int group_firsts(const EmuFx *f, int *first, int max) {
    Program *p = NULL;
    assert_null(emu_program_parse(f->cm->ptx, f->cm->ptx_size, &p));
    Kernel *kn = NULL;
    assert_null(emu_kernel_decode(p, "k", &kn));
    int n = 0;
    for (int pc = 0; pc < kn->n_code && n < max; pc++)
        if (kn->code[pc].target == pc && kn->code[pc].sub2 && kn->code[pc].space == SP_SHARED) first[n++] = pc;
    emu_kernel_free(&kn);
    emu_program_free(&p);
    return n;
}

/* Two LDS.128 groups in one block, B's loads between A's first load and
 * A's others, B's first `gap` instructions after A's first (gap - 1
 * dependent fmas: `pad` of PAD8 and `pad1` single ones); `a_off`/`b_off`
 * is added to lane t's base when t is odd and x = 1 (unaligned: scalar). */
static const char *two_groups_src(char *buf, size_t size, int pad8, int pad1, const char *a_off, const char *b_off) {
    char pads[2048] = "";
    size_t used = 0;
    for (int i = 0; i < pad8; i++) used += (size_t)snprintf(pads + used, sizeof pads - used, "PAD8 ");
    for (int i = 0; i < pad1; i++) used += (size_t)snprintf(pads + used, sizeof pads - used, "PAD1 ");
    snprintf(buf, size,
             "#define PAD1 v = v * v + 1.0f;\n"
             "#define PAD8 PAD1 PAD1 PAD1 PAD1 PAD1 PAD1 PAD1 PAD1\n"
             "extern \"C\" __global__ void k(float *o, int x) {\n"
             "    __shared__ float s[132];\n"
             "    int t = threadIdx.x;\n"
             FILL4
             "    __syncthreads();\n"
             "    const float *p = s + 4 * t%s;\n"
             "    const float *q = s + 4 * t%s;\n"
             "    float v = p[0];\n"                              /* line 10: A's first */
             "    %s\n"                                           /* line 11 */
             "    float b = q[0] + q[1] * q[2] - q[3];\n"         /* line 12: B */
             "    v += p[1] + p[2] * p[3];\n"                     /* line 13: A's others */
             "    o[t] = v + b;\n"
             "}\n", a_off, b_off, pads);
    return buf;
}

static void vector__counts_each_group_by_its_own_alignment__when_groups_64_apart_overlap(void **state) {
    (void)state;
    EmuFx f;
    char src[4096];
    /* A aligned (one LDS.128), B unaligned for odd lanes (4 scalar loads) */
    run_f(&f, two_groups_src(src, sizeof src, 7, 7, "", " + (t & x)"), 32, 1);
    int first[4];
    assert_int_equal(group_firsts(&f, first, 4), 2);
    assert_int_equal(first[1] - first[0], 64);   /* the premise: one bit of a pc-mod-64 mask */
    assert_int_equal((int)fx_line(&f, 10, "shared_requests"), 1);
    assert_int_equal((int)fx_line(&f, 12, "shared_requests"), 4);
    assert_true(fx_line(&f, 13, "shared_requests") <= 0);   /* counted with line 10 */
    assert_int_equal((int)fx_total(&f, "shared_requests"), 4 + 1 + 4);
    fx_free(&f);
}

static void vector__counts_each_group_by_its_own_alignment__when_groups_128_apart_overlap(void **state) {
    (void)state;
    EmuFx f;
    char src[4096];
    /* A unaligned for odd lanes (4 scalar loads), B aligned (one LDS.128) */
    run_f(&f, two_groups_src(src, sizeof src, 15, 7, " + (t & x)", ""), 32, 1);
    int first[4];
    assert_int_equal(group_firsts(&f, first, 4), 2);
    assert_int_equal(first[1] - first[0], 128);
    assert_int_equal((int)fx_line(&f, 10, "shared_requests"), 1);
    assert_int_equal((int)fx_line(&f, 12, "shared_requests"), 1);
    assert_int_equal((int)fx_line(&f, 13, "shared_requests"), 3);
    assert_int_equal((int)fx_total(&f, "shared_requests"), 4 + 4 + 1);
    fx_free(&f);
}

static void vector__counts_a_group_as_written__when_64_groups_are_open_already(void **state) {
    (void)state;
    EmuFx f;
    /* 65 groups open at once (every first load before every other one; the
     * empty asm keeps NVVM from moving them together): 64 slots */
    run_f(&f,
          "extern \"C\" __global__ void k(float *o, int x) {\n"
          "    __shared__ float s[65 * 128];\n"
          "    int t = threadIdx.x;\n"
          "    for (int i = t; i < 65 * 128; i += 32) s[i] = i;\n"
          "    __syncthreads();\n"
          "    const float *p = s + 4 * t;\n"
          "    float v[65], r = x;\n"
          "#pragma unroll\n"
          "    for (int i = 0; i < 65; i++) v[i] = p[128 * i];\n"
          "    asm volatile(\"\" ::: \"memory\");\n"
          "#pragma unroll\n"
          "    for (int i = 0; i < 65; i++) r += v[i] + p[128 * i + 1] * p[128 * i + 2] - p[128 * i + 3];\n"
          "    o[t] = r;\n"
          "}\n", 32, 0);
    int first[80];
    assert_int_equal(group_firsts(&f, first, 80), 64);
    /* 64 LDS.128 and the last group's 4 loads, each 4-way conflicted */
    assert_int_equal((int)fx_line(&f, 9, "shared_requests"), 64 + 1);
    assert_int_equal((int)fx_line(&f, 12, "shared_requests"), 3);
    assert_true(fx_line(&f, 12, "bank_conflict_degree") == 4.0);
    fx_free(&f);
}

/* ---- against ptxas: cuobjdump -sass of the course's kernels ------------- */

/* Merged/vector shared accesses of one kernel: loads and stores, 8 and 16 bytes. */
typedef struct VecCount { char name[96]; int ld64, ld128, st64, st128; } VecCount;

static void count_add(VecCount *c, bool store, int bytes) {
    if (bytes == 8) (*(store ? &c->st64 : &c->ld64))++;
    else if (bytes == 16) (*(store ? &c->st128 : &c->ld128))++;
}

/* What the emulator runs as 64/128-bit shared accesses in each kernel of
 * the PTX: the groups emu_vector.c marks plus the PTX's own vector accesses. */
static int emu_counts(const char *path, const char *ptx, size_t ptx_size, VecCount *out, int max) {
    Program *p = NULL;
    Diag *d = emu_program_parse(ptx, ptx_size, &p);
    if (d) fail_msg("%s: %s", path, diag_format_all(d, false));
    const char *names[64];
    int n = emu_program_entries(p, names, 64), k = 0;
    for (int i = 0; i < n && k < max; i++) {
        Kernel *kn = NULL;
        assert_null(emu_kernel_decode(p, names[i], &kn));
        VecCount *c = &out[k++];
        memset(c, 0, sizeof *c);
        snprintf(c->name, sizeof c->name, "%s", names[i]);
        for (int pc = 0; pc < kn->n_code; pc++) {
            const Instr *in = &kn->code[pc];
            if ((in->op != OP_LD && in->op != OP_ST) || in->space != SP_SHARED) continue;
            if (in->target == pc && in->sub2) count_add(c, in->op == OP_ST, in->sub2);
            else if (in->target < 0) count_add(c, in->op == OP_ST, in->size * in->vec);
        }
        emu_kernel_free(&kn);
    }
    emu_program_free(&p);
    return k;
}

/* The same from cuobjdump -sass of what ptxas builds from that PTX for sm_90. */
static int sass_counts(const char *ptxas, const char *path, const char *ptx, VecCount *out, int max) {
    char dir[] = "/tmp/cudojo-vec-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char ptx_file[64], cubin[64], cmd[1024];
    snprintf(ptx_file, sizeof ptx_file, "%s/k.ptx", dir);
    snprintf(cubin, sizeof cubin, "%s/k.cubin", dir);
    FILE *pf = fopen(ptx_file, "w");
    assert_non_null(pf);
    fputs(ptx, pf);
    fclose(pf);
    snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 -o '%s' '%s' 2>&1 && cuobjdump -sass '%s'", ptxas, cubin, ptx_file, cubin);
    pf = popen(cmd, "r");
    assert_non_null(pf);
    char line[1024];
    int k = 0;
    VecCount *c = NULL;
    while (fgets(line, sizeof line, pf)) {
        const char *fn = strstr(line, "Function : ");
        if (fn && k < max) {
            c = &out[k++];
            memset(c, 0, sizeof *c);
            snprintf(c->name, sizeof c->name, "%s", fn + 11);
            c->name[strcspn(c->name, " \r\n")] = 0;
            continue;
        }
        if (!c) continue;
        if (strstr(line, "LDS.64") || strstr(line, "LDS.U.64")) c->ld64++;
        else if (strstr(line, "LDS.128") || strstr(line, "LDS.U.128")) c->ld128++;
        else if (strstr(line, "STS.64")) c->st64++;
        else if (strstr(line, "STS.128")) c->st128++;
    }
    int rc = pclose(pf);
    unlink(cubin);
    unlink(ptx_file);
    rmdir(dir);
    if (rc != 0) fail_msg("%s: ptxas or cuobjdump failed (%s)", path, cmd);
    return k;
}

/* Both counts for the kernels of the CUDA file `path`, compiled as the
 * emulator compiles it (NVRTC, compute_80). */
static void file_counts(const char *ptxas, const char *path, VecCount *e, int *ne, VecCount *s, int *ns, int max) {
    char *src = NULL;
    size_t len = 0;
    Diag *d = fs_read_file(path, &src, &len);
    if (d) fail_msg("%s: %s", path, diag_format_all(d, false));
    CompileOptions co;
    memset(&co, 0, sizeof co);
    co.cache_dir = "";
    CompiledModule *cm = NULL;
    d = compile_cuda(path, src, &co, &cm);
    if (d) fail_msg("compile %s: %s", path, diag_format_all(d, false));
    *ne = emu_counts(path, cm->ptx, cm->ptx_size, e, max);
    *ns = sass_counts(ptxas, path, cm->ptx, s, max);
    compiled_module_free(&cm);
    free(src);
}

static const VecCount *find_count(const VecCount *v, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i].name, name)) return &v[i];
    return NULL;
}

static bool tool_found(const char *name) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

/* Course files whose kernels use shared memory, from the repository root. */
static const char *const COURSE[] = {
    "lessons/11-roofline/solutions/sgemm-tiled.cu",
    "lessons/11-roofline/solutions/wrong/sgemm-tiled-swapped-rows.cu",
    "lessons/18-matmul/solutions/wrong/matmul-regs-2d-adjacent-outputs.cu",
    "lessons/11-roofline/solutions/reduce-steps.cu",
    "lessons/11-roofline/solutions/reduce-peak.cu",
    "lessons/04-shared-memory/solutions/transpose-tiled.cu",
    "lessons/04-shared-memory/solutions/matmul-tiled.cu",
    "lessons/18-matmul/solutions/matmul-smem.cu",
    "lessons/18-matmul/solutions/matmul-regs-1d.cu",
    "lessons/18-matmul/solutions/matmul-regs-2d.cu",
    "lessons/18-matmul/solutions/matmul-float4.cu",
    "lessons/18-matmul/solutions/matmul-double-buffer.cu",
    "lessons/18-matmul/solutions/matmul-warptile.cu",
};

static void vector__finds_the_merged_accesses_ptxas_makes__in_course_kernels(void **state) {
    (void)state;
    const char *home = getenv("CUDA_HOME");
    char ptxas[512];
    snprintf(ptxas, sizeof ptxas, "%s/bin/ptxas", home && *home ? home : "/usr/local/cuda");
    if (access(ptxas, X_OK) != 0 || !tool_found("cuobjdump") || !tool_found("nvdisasm")) {
        print_message("skip - merged shared accesses against SASS: needs %s, and cuobjdump and nvdisasm on PATH "
                      "(CUDA toolkit; or pip's nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm)\n", ptxas);
        skip();
    }
    /* CUDOJO_VECTOR_FILES="a.cu b.cu": compare these instead (authors: a new kernel) */
    const char *list[256];
    int n_list = 0;
    char *own = getenv("CUDOJO_VECTOR_FILES") ? strdup(getenv("CUDOJO_VECTOR_FILES")) : NULL;
    for (char *tok = own ? strtok(own, " \n") : NULL; tok && n_list < 256; tok = strtok(NULL, " \n")) list[n_list++] = tok;
    for (size_t i = 0; !own && i < sizeof COURSE / sizeof COURSE[0]; i++) list[n_list++] = COURSE[i];
    int mismatches = 0;
    for (int i = 0; i < n_list; i++) {
        if (access(list[i], R_OK) != 0) fail_msg("%s: missing (run from the repository root)", list[i]);
        VecCount e[32], s[32];
        int ne = 0, ns = 0;
        file_counts(ptxas, list[i], e, &ne, s, &ns, 32);
        for (int j = 0; j < ne; j++) {
            const VecCount *g = find_count(s, ns, e[j].name);
            if (!g) fail_msg("%s: no SASS for kernel %s", list[i], e[j].name);
            bool same = g->ld64 == e[j].ld64 && g->ld128 == e[j].ld128 && g->st64 == e[j].st64 && g->st128 == e[j].st128;
            print_message("%s %s %s: emulator LDS.64 %d LDS.128 %d STS.64 %d STS.128 %d; SASS %d %d %d %d\n",
                          same ? "ok  " : "DIFF", list[i], e[j].name, e[j].ld64, e[j].ld128, e[j].st64, e[j].st128,
                          g->ld64, g->ld128, g->st64, g->st128);
            mismatches += !same;
        }
    }
    free(own);
    assert_int_equal(mismatches, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vector__counts_four_adjacent_loads_as_one_conflict_free_request),
        cmocka_unit_test(vector__counts_adjacent_pair_as_one_64_bit_request),
        cmocka_unit_test(vector__counts_adjacent_stores_as_one_request),
        cmocka_unit_test(vector__counts_genuine_two_way_conflict__when_words_are_two_apart),
        cmocka_unit_test(vector__counts_loads_as_written__when_lanes_are_unaligned),
        cmocka_unit_test(vector__keeps_loads_apart__when_barrier_between),
        cmocka_unit_test(vector__counts_each_group_by_its_own_alignment__when_groups_64_apart_overlap),
        cmocka_unit_test(vector__counts_each_group_by_its_own_alignment__when_groups_128_apart_overlap),
        cmocka_unit_test(vector__counts_a_group_as_written__when_64_groups_are_open_already),
        cmocka_unit_test(vector__finds_the_merged_accesses_ptxas_makes__in_course_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
