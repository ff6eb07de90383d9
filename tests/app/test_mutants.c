/* tests/app/test_mutants.c: the mutants `cudojo verify --mutants` makes of a
 * solution: each barrier dropped, guards weakened and dropped, loop bounds
 * moved by one, .x/.y swapped (two-dimensional functions only), atomics made plain, a program's host
 * synchronisations dropped; never inside comments, strings or preprocessor
 * lines, never in host code of a kernel's neighbours; line numbers kept;
 * mutants_equivalent entries matched by mutation and line text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/mutants.h"

static const char BLOCK_SUM[] =
    "// block_sum: __syncthreads() in a comment is not a call\n"
    "#define GUARD(i, n) if (i < n)\n"
    "extern \"C\" __global__ void block_sum(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float s[256];\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    s[threadIdx.x] = i < n ? in[i] : 0.0f;\n"
    "    __syncthreads();\n"
    "    for (int step = blockDim.x / 2; step > 0; step >>= 1) {\n"
    "        if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0) atomicAdd(out, s[0]);\n"
    "    const char *msg = \"if (a < b) __syncthreads();\";\n"
    "}\n";

/* How many mutants have this op on this line. */
static int count(const MutantList *l, const char *op, int line) {
    int n = 0;
    for (int i = 0; i < l->n; i++) n += !strcmp(l->v[i].op, op) && (line == 0 || l->v[i].line == line);
    return n;
}

static const Mutant *find(const MutantList *l, const char *op, int line) {
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].op, op) && l->v[i].line == line) return &l->v[i];
    return NULL;
}

static int lines_of(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static void generate__drops_each_syncthreads__not_in_comments_or_strings(void **state) {
    (void)state;
    MutantList l;
    mutants_generate(BLOCK_SUM, false, &l);
    assert_int_equal(count(&l, "drop __syncthreads()", 0), 2);
    const Mutant *m = find(&l, "drop __syncthreads()", 8);
    assert_non_null(m);
    assert_string_equal(m->before, "__syncthreads();");
    assert_string_equal(m->after, "((void)0);");
    assert_non_null(find(&l, "drop __syncthreads()", 11));
    mutants_free(&l);
}

static void generate__weakens_and_drops_guards__in_ifs_and_ternaries(void **state) {
    (void)state;
    MutantList l;
    mutants_generate(BLOCK_SUM, false, &l);
    const Mutant *m = find(&l, "weaken guard < to <=", 7);
    assert_non_null(m);
    assert_string_equal(m->after, "s[threadIdx.x] = i <= n ? in[i] : 0.0f;");
    assert_non_null(find(&l, "weaken guard < to <=", 10));
    m = find(&l, "drop guard", 10);
    assert_non_null(m);
    assert_string_equal(m->after, "if (true) s[threadIdx.x] += s[threadIdx.x + step];");
    /* == is no bound: no guard mutation at line 13, and the macro's if is a preprocessor line */
    assert_int_equal(count(&l, "drop guard", 13), 0);
    assert_int_equal(count(&l, "weaken guard < to <=", 2), 0);
    assert_int_equal(count(&l, "weaken guard < to <=", 14), 0);
    mutants_free(&l);
}

static void generate__moves_loop_bounds__and_keeps_line_numbers(void **state) {
    (void)state;
    MutantList l;
    mutants_generate(BLOCK_SUM, false, &l);
    const Mutant *m = find(&l, "loop bound > to >=", 9);
    assert_non_null(m);
    assert_string_equal(m->after, "for (int step = blockDim.x / 2; step >= 0; step >>= 1) {");
    for (int i = 0; i < l.n; i++) assert_int_equal(lines_of(l.v[i].source), lines_of(BLOCK_SUM));
    mutants_free(&l);
}

static void generate__swaps_x_and_y__one_at_a_time__in_two_dimensional_functions(void **state) {
    (void)state;
    MutantList l;
    mutants_generate("__global__ void t2(float *o, const float *in, int w) {\n"
                     "    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;\n"
                     "    o[x * w + y] = in[y * w + x];\n"
                     "}\n",
                     false, &l);
    const Mutant *m = find(&l, "swap blockIdx.x to blockIdx.y", 2);
    assert_non_null(m);
    assert_string_equal(m->after, "int x = blockIdx.y * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;");
    assert_int_equal(count(&l, "swap threadIdx.x to threadIdx.y", 2), 1);
    assert_int_equal(count(&l, "swap threadIdx.y to threadIdx.x", 2), 1);
    assert_int_equal(count(&l, "swap blockIdx.y to blockIdx.x", 2), 1);
    mutants_free(&l);
    /* one dimension: .y is always 0, so no swap is made */
    mutants_generate(BLOCK_SUM, false, &l);
    assert_int_equal(count(&l, "swap threadIdx.x to threadIdx.y", 0), 0);
    assert_int_equal(count(&l, "swap blockIdx.x to blockIdx.y", 0), 0);
    mutants_free(&l);
}

static void generate__makes_atomics_plain__keeping_the_old_value_where_used(void **state) {
    (void)state;
    MutantList l;
    mutants_generate(BLOCK_SUM, false, &l);
    const Mutant *m = find(&l, "atomicAdd to a plain read-modify-write", 13);
    assert_non_null(m);
    assert_string_equal(m->after, "if (threadIdx.x == 0) (*(out) += (s[0]));");
    mutants_free(&l);
    mutants_generate("__global__ void k(int *c, int *o) { int at = atomicAdd(c, 1); o[at] = 1; }\n", false, &l);
    m = find(&l, "atomicAdd to a plain read-modify-write", 1);
    assert_non_null(m);
    assert_non_null(strstr(m->after, "int at = ((*(c) += (1)) - (1));"));
    mutants_free(&l);
}

static const char PROGRAM[] =
    "#include <cstdio>\n"
    "__device__ int scale = 2;\n"
    "__global__ void twice(int *x, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    x[i] *= scale;\n"
    "}\n"
    "int main() {\n"
    "    for (int i = 0; i < 4; i++) printf(\"%d\", i);\n"
    "    twice<<<1, 32>>>(nullptr, 0);\n"
    "    CHECK(cudaDeviceSynchronize());\n"
    "    cudaStreamSynchronize(0);\n"
    "    return 0;\n"
    "}\n";

static void generate__drops_host_syncs_of_programs__and_leaves_host_loops_alone(void **state) {
    (void)state;
    MutantList l;
    mutants_generate(PROGRAM, true, &l);
    const Mutant *m = find(&l, "drop cudaDeviceSynchronize()", 11);
    assert_non_null(m);
    assert_string_equal(m->after, "CHECK(cudaSuccess);");
    assert_non_null(find(&l, "drop cudaStreamSynchronize()", 12));
    assert_int_equal(count(&l, "loop bound < to <=", 9), 0);    /* host code */
    m = find(&l, "drop early-exit guard", 5);
    assert_non_null(m);
    assert_string_equal(m->after, "if (false) return;");
    assert_non_null(find(&l, "weaken guard >= to >", 5));
    mutants_free(&l);
    mutants_generate(PROGRAM, false, &l);    /* a kernel exercise: no host mutations */
    assert_int_equal(count(&l, "drop cudaDeviceSynchronize()", 0), 0);
    mutants_free(&l);
}

static void generate__drops_cooperative_groups_sync_and_syncwarp(void **state) {
    (void)state;
    MutantList l;
    mutants_generate("__global__ void k(int *x) {\n"
                     "    cg::thread_block block = cg::this_thread_block();\n"
                     "    auto tile = cg::tiled_partition<32>(block);\n"
                     "    block.sync();\n"
                     "    __syncwarp(0xffffffff);\n"
                     "    if (tile.thread_rank() < static_cast<unsigned>(x[0])) x[1] = 1;\n"
                     "}\n",
                     false, &l);
    assert_non_null(find(&l, "drop block.sync()", 4));
    assert_non_null(find(&l, "drop __syncwarp()", 5));
    /* the template brackets are not comparisons: only the one < is weakened */
    assert_int_equal(count(&l, "weaken guard < to <=", 6), 1);
    assert_int_equal(count(&l, "weaken guard < to <=", 3), 0);
    mutants_free(&l);
}

static void entry_matches__by_mutation_and_line_text__whitespace_insensitive(void **state) {
    (void)state;
    MutantList l;
    mutants_generate(BLOCK_SUM, false, &l);
    const Mutant *m = find(&l, "drop __syncthreads()", 11);
    MutantEquivalent yes = {"drop __syncthreads()", "__syncthreads();", "why", false};
    MutantEquivalent spaced = {"drop __syncthreads()", "  __syncthreads( );  ", "why", false};
    MutantEquivalent other_op = {"drop __syncwarp()", "__syncthreads();", "why", false};
    MutantEquivalent other_line = {"drop __syncthreads()", "s[0]", "why", false};
    assert_true(mutants_entry_matches(&yes, m));
    assert_false(mutants_entry_matches(&spaced, m));
    assert_false(mutants_entry_matches(&other_op, m));
    assert_false(mutants_entry_matches(&other_line, m));
    MutantEquivalent runs = {"weaken guard < to <=", "s[threadIdx.x]   =  i < n", "why", false};
    assert_true(mutants_entry_matches(&runs, find(&l, "weaken guard < to <=", 7)));
    mutants_free(&l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generate__drops_each_syncthreads__not_in_comments_or_strings),
        cmocka_unit_test(generate__weakens_and_drops_guards__in_ifs_and_ternaries),
        cmocka_unit_test(generate__moves_loop_bounds__and_keeps_line_numbers),
        cmocka_unit_test(generate__swaps_x_and_y__one_at_a_time__in_two_dimensional_functions),
        cmocka_unit_test(generate__makes_atomics_plain__keeping_the_old_value_where_used),
        cmocka_unit_test(generate__drops_host_syncs_of_programs__and_leaves_host_loops_alone),
        cmocka_unit_test(generate__drops_cooperative_groups_sync_and_syncwarp),
        cmocka_unit_test(entry_matches__by_mutation_and_line_text__whitespace_insensitive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
