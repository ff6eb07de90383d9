/* tests/app/test_similarity.c: the similarity check of `cudojo grade`: the
 * same kernel with other names, comments, spacing and literal spellings
 * lands in one group; a genuinely different solution does not; what the
 * starter already had is not counted, so a tiny exercise's bare solution
 * never groups; most of a class writing the same code is marked common;
 * the Markdown report escapes names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/similarity.h"
#include "base/fs.h"
#include "base/xalloc.h"

/* A shared-memory block sum: the starter leaves the kernel body to write. */
static const char STARTER[] =
    "// block-sum.cu: sum each block's 256 elements in shared memory.\n"
    "#define BLOCK 256\n"
    "extern \"C\" __global__ void block_sum(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float s[BLOCK];\n"
    "    // TODO: load, then a tree reduction with __syncthreads() between steps.\n"
    "}\n";

static const char ALICE[] =
    "// block-sum.cu: sum each block's 256 elements in shared memory.\n"
    "#define BLOCK 256\n"
    "extern \"C\" __global__ void block_sum(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float s[BLOCK];\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    s[threadIdx.x] = i < n ? in[i] : 0.0f;   // pad the tail with zeros\n"
    "    __syncthreads();\n"
    "    for (int step = blockDim.x / 2; step > 0; step >>= 1) {\n"
    "        if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = s[0];\n"
    "}\n";

/* Alice's kernel renamed, recommented, reformatted, 0.0f spelt 0.f, 2 as 0x2. */
static const char BOB[] =
    "#define BLOCK 256\n"
    "/* my own work!! */\n"
    "extern \"C\" __global__ void block_sum(const float *input, float *result, int count) {\n"
    "  __shared__ float cache[BLOCK];\n"
    "  int gid = blockIdx.x*blockDim.x+threadIdx.x;\n"
    "  cache[threadIdx.x] = gid < count\n"
    "      ? input[gid] : 0.f;\n"
    "  __syncthreads();   // wait for everyone\n"
    "  for (int half = blockDim.x / 0x2; half > 0; half >>= 1) { if (threadIdx.x < half) cache[threadIdx.x] += "
    "cache[threadIdx.x + half]; __syncthreads(); }\n"
    "  if (threadIdx.x == 0)\n"
    "    result[blockIdx.x] = cache[0];\n"
    "}\n";

/* Alice's kernel with an early return added, a loop step spelt otherwise
 * and the final write guarded differently: a near-duplicate. */
static const char DAN[] =
    "#define BLOCK 256\n"
    "extern \"C\" __global__ void block_sum(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float s[BLOCK];\n"
    "    if (n <= 0) return;\n"
    "    int k = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    s[threadIdx.x] = k < n ? in[k] : 0.0f;\n"
    "    __syncthreads();\n"
    "    for (int d = blockDim.x / 2; d > 0; d /= 2) {\n"
    "        if (threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (!threadIdx.x) out[blockIdx.x] = s[0];\n"
    "}\n";

/* A different solution: a warp-shuffle reduction. */
static const char CAROL[] =
    "#define BLOCK 256\n"
    "extern \"C\" __global__ void block_sum(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float s[BLOCK];\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float v = i < n ? in[i] : 0.0f;\n"
    "    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n"
    "    if (threadIdx.x % 32 == 0) s[threadIdx.x / 32] = v;\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) {\n"
    "        float t = 0;\n"
    "        for (int w = 0; w < BLOCK / 32; w++) t += s[w];\n"
    "        out[blockIdx.x] = t;\n"
    "    }\n"
    "}\n";

typedef struct Fixture {
    char dir[64];
} Fixture;

static int setup(void **state) {
    Fixture *f = xcalloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/cudojo-sim-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    *state = f;
    return 0;
}

static int teardown(void **state) {
    Fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

/* Writes text to DIR/name; returns the path (caller frees). */
static char *put(const Fixture *f, const char *name, const char *text) {
    char *p = path_join(f->dir, name);
    Diag *d = fs_write_file_atomic(p, text, strlen(text));
    assert_null(d);
    return p;
}

static char *joined(const char *src) {
    char **t = NULL;
    int n = 0;
    similarity_tokenize(src, strlen(src), &t, &n);
    size_t len = 1;
    for (int i = 0; i < n; i++) len += strlen(t[i]) + 1;
    char *s = xcalloc(len, 1);
    for (int i = 0; i < n; i++) {
        if (i) strcat(s, " ");
        strcat(s, t[i]);
    }
    similarity_tokens_free(&t, n);
    return s;
}

static void tokenize__forgets_names_comments_and_spacing__keeps_cuda_builtins(void **state) {
    (void)state;
    char *a = joined("int i = blockIdx.x * blockDim.x + threadIdx.x; // index\n__syncthreads();");
    assert_string_equal(a, "int I = blockIdx . x * blockDim . x + threadIdx . x ; __syncthreads ( ) ;");
    char *b = joined("int   gid=/* global */blockIdx.x*blockDim.x\n+threadIdx.x;__syncthreads ();");
    assert_string_equal(a, b);
    free(a);
    free(b);
    /* A member name after . or -> is kept: threadIdx.x and threadIdx.y differ. */
    a = joined("p->next = threadIdx.y;");
    assert_string_equal(a, "I -> next = threadIdx . y ;");
    free(a);
}

static void tokenize__writes_numbers_by_value__ints_and_floats_apart(void **state) {
    (void)state;
    char *a = joined("1.0f 1.f 1.0 1e0 0x10 16 16u 020 1 'a' \"str\" 1e+3f");
    assert_string_equal(a, "f1 f1 f1 f1 i16 i16 i16 i16 i1 C S f1000");
    free(a);
    /* A kernel launch's chevrons are one token each, not two shifts and a comparison. */
    a = joined("k<<<grid, 256>>>(x);");
    assert_string_equal(a, "I <<< I , i256 >>> ( I ) ;");
    free(a);
}

static void written_part__leaves_out_what_the_starter_has(void **state) {
    (void)state;
    int n = 0;
    char *part = similarity_written_part(STARTER, strlen(STARTER), STARTER, strlen(STARTER), &n);
    assert_int_equal(n, 0);
    free(part);
    part = similarity_written_part(ALICE, strlen(ALICE), STARTER, strlen(STARTER), &n);
    /* The kernel's signature and the shared array are the starter's. */
    assert_null(strstr(part, "block_sum"));
    assert_non_null(strstr(part, "__syncthreads"));
    assert_true(n >= SIMILARITY_MIN_TOKENS);
    int whole = 0;
    char *all = similarity_written_part(ALICE, strlen(ALICE), NULL, 0, &whole);
    assert_true(whole > n + 20);
    free(all);
    free(part);
}

static void groups__renamed_recommented_reformatted_copy__is_one_group(void **state) {
    Fixture *f = *state;
    char *st = put(f, "starter.cu", STARTER), *a = put(f, "alice.cu", ALICE), *b = put(f, "bob.cu", BOB),
         *c = put(f, "carol.cu", CAROL);
    SimilarityItem items[] = {
        {"carol", "block-sum", c, st},
        {"bob", "block-sum", b, st},
        {"alice", "block-sum", a, st},
    };
    json_t *g = similarity_groups(items, 3);
    assert_int_equal(json_array_size(g), 1);
    json_t *g0 = json_array_get(g, 0);
    assert_string_equal(json_string_value(json_object_get(g0, "exercise")), "block-sum");
    json_t *students = json_object_get(g0, "students");
    assert_int_equal(json_array_size(students), 2);   /* carol's shuffle reduction is her own */
    assert_string_equal(json_string_value(json_array_get(students, 0)), "alice");
    assert_string_equal(json_string_value(json_array_get(students, 1)), "bob");
    assert_int_equal(strlen(json_string_value(json_object_get(g0, "fingerprint"))), 64);
    assert_true(json_integer_value(json_object_get(g0, "tokens")) >= SIMILARITY_MIN_TOKENS);
    assert_null(json_object_get(g0, "common"));
    json_decref(g);
    free(st);
    free(a);
    free(b);
    free(c);
}

static void groups__copy_with_lines_added_and_changed__is_a_near_group(void **state) {
    Fixture *f = *state;
    char *st = put(f, "starter.cu", STARTER), *a = put(f, "alice.cu", ALICE), *d = put(f, "dan.cu", DAN),
         *c = put(f, "carol.cu", CAROL);
    SimilarityItem items[] = {
        {"alice", "block-sum", a, st},
        {"dan", "block-sum", d, st},
        {"carol", "block-sum", c, st},
    };
    json_t *g = similarity_groups(items, 3);
    assert_int_equal(json_array_size(g), 1);
    json_t *g0 = json_array_get(g, 0);
    assert_true(json_is_true(json_object_get(g0, "near")));
    assert_null(json_object_get(g0, "fingerprint"));
    json_t *students = json_object_get(g0, "students");
    assert_int_equal(json_array_size(students), 2);
    assert_string_equal(json_string_value(json_array_get(students, 0)), "alice");
    assert_string_equal(json_string_value(json_array_get(students, 1)), "dan");
    double sim = json_real_value(json_object_get(g0, "similarity"));
    assert_true(sim >= SIMILARITY_NEAR && sim < 1);
    char *md = similarity_markdown(g);
    assert_non_null(strstr(md, "**alice**, **dan**"));
    assert_non_null(strstr(md, "near-duplicates"));
    free(md);
    json_decref(g);
    free(st);
    free(a);
    free(d);
    free(c);
}

static void groups__same_code_in_two_exercises__does_not_mix_exercises(void **state) {
    Fixture *f = *state;
    char *a = put(f, "alice.cu", ALICE), *b = put(f, "bob.cu", BOB);
    SimilarityItem items[] = {
        {"alice", "block-sum", a, NULL},
        {"bob", "other-exercise", b, NULL},
    };
    json_t *g = similarity_groups(items, 2);
    assert_int_equal(json_array_size(g), 0);
    json_decref(g);
    free(a);
    free(b);
}

static void groups__tiny_exercise_bare_solution__is_below_the_threshold(void **state) {
    Fixture *f = *state;
    const char *starter = "extern \"C\" __global__ void scale(float *x, int n)\n{\n    // TODO: x[i] *= 2\n}\n";
    const char *solution = "extern \"C\" __global__ void scale(float *x, int n)\n{\n"
                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) x[i] *= 2;\n}\n";
    char *st = put(f, "starter.cu", starter);
    char *paths[6];
    SimilarityItem items[6];
    const char *names[] = {"ann", "ben", "cat", "dan", "eve", "fay"};
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s.cu", names[i]);
        paths[i] = put(f, name, solution);
        items[i] = (SimilarityItem){names[i], "scale", paths[i], st};
    }
    json_t *g = similarity_groups(items, 6);
    assert_int_equal(json_array_size(g), 0);
    json_decref(g);
    for (int i = 0; i < 6; i++) free(paths[i]);
    free(st);
}

static void groups__most_of_the_class_alike__is_marked_common(void **state) {
    Fixture *f = *state;
    char *st = put(f, "starter.cu", STARTER), *c = put(f, "carol.cu", CAROL);
    SimilarityItem items[7];
    char *paths[6];
    const char *names[] = {"ann", "ben", "cat", "dan", "eve", "fay"};
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s.cu", names[i]);
        paths[i] = put(f, name, i % 2 ? ALICE : BOB);
        items[i] = (SimilarityItem){names[i], "block-sum", paths[i], st};
    }
    items[6] = (SimilarityItem){"carol", "block-sum", c, st};
    json_t *g = similarity_groups(items, 7);
    assert_int_equal(json_array_size(g), 1);
    json_t *g0 = json_array_get(g, 0);
    assert_true(json_is_true(json_object_get(g0, "common")));
    assert_int_equal(json_integer_value(json_object_get(g0, "submissions")), 7);
    assert_int_equal(json_array_size(json_object_get(g0, "students")), 6);
    char *md = similarity_markdown(g);
    assert_non_null(strstr(md, "## Common solutions"));
    assert_non_null(strstr(md, "6 of 7 submissions"));
    assert_null(strstr(md, "**ann**"));   /* a common solution names nobody */
    free(md);
    json_decref(g);
    for (int i = 0; i < 6; i++) free(paths[i]);
    free(st);
    free(c);
}

static void groups__unreadable_source__is_left_out(void **state) {
    Fixture *f = *state;
    char *a = put(f, "alice.cu", ALICE), *missing = path_join(f->dir, "nobody.cu");
    SimilarityItem items[] = {
        {"alice", "block-sum", a, NULL},
        {"bob", "block-sum", missing, NULL},
        {"dir", "block-sum", f->dir, NULL},
    };
    json_t *g = similarity_groups(items, 3);
    assert_int_equal(json_array_size(g), 0);
    json_decref(g);
    free(a);
    free(missing);
}

static void markdown__escapes_names__and_is_written_atomically(void **state) {
    Fixture *f = *state;
    json_t *g = json_loads("[{\"exercise\":\"block-sum\",\"students\":[\"a*b_[x](http://e)\",\"<img src=x>\\u001b[2J\"],"
                           "\"fingerprint\":\"0123456789abcdef0123\",\"tokens\":40,\"submissions\":9}]",
                           0, NULL);
    assert_non_null(g);
    char *md = similarity_markdown(g);
    assert_non_null(strstr(md, "## block-sum"));
    assert_non_null(strstr(md, "**a\\*b\\_\\[x\\](http://e)**"));
    assert_non_null(strstr(md, "\\<img src=x\\>"));   /* a literal '<' in Markdown, not a tag */
    assert_null(strchr(md, '\033'));
    assert_non_null(strstr(md, "`0123456789ab`"));
    char *path = path_join(f->dir, "similarity.md");
    assert_null(similarity_write_markdown(g, path));
    char *back = NULL;
    assert_null(fs_read_file(path, &back, NULL));
    assert_string_equal(back, md);
    free(back);
    free(md);
    free(path);
    json_decref(g);
    json_t *none = json_array();
    md = similarity_markdown(none);
    assert_non_null(strstr(md, "No two submissions"));
    free(md);
    json_decref(none);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tokenize__forgets_names_comments_and_spacing__keeps_cuda_builtins),
        cmocka_unit_test(tokenize__writes_numbers_by_value__ints_and_floats_apart),
        cmocka_unit_test(written_part__leaves_out_what_the_starter_has),
        cmocka_unit_test_setup_teardown(groups__renamed_recommented_reformatted_copy__is_one_group, setup, teardown),
        cmocka_unit_test_setup_teardown(groups__copy_with_lines_added_and_changed__is_a_near_group, setup, teardown),
        cmocka_unit_test_setup_teardown(groups__same_code_in_two_exercises__does_not_mix_exercises, setup, teardown),
        cmocka_unit_test_setup_teardown(groups__tiny_exercise_bare_solution__is_below_the_threshold, setup, teardown),
        cmocka_unit_test_setup_teardown(groups__most_of_the_class_alike__is_marked_common, setup, teardown),
        cmocka_unit_test_setup_teardown(groups__unreadable_source__is_left_out, setup, teardown),
        cmocka_unit_test_setup_teardown(markdown__escapes_names__and_is_written_atomically, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
