/* bench/bench_program.c: what a program exercise costs — nvcc's cold and
 * cached compile, and save→verdict of a cached run (compile from the saved
 * text, cache hit, run the child, check its output) on cudojo's emulator
 * runtime and, when a GPU works, on NVIDIA's runtime with the CUPTI
 * injection library. Goals (issue 11): ≤ 300 ms cached on the emulator,
 * ≤ 400 ms cached on the H200.
 *
 * Usage: build/bench/bench_program [FILE.cu [REPS]]  (default: a vector add
 * with a CPU check that prints "ok", 10 reps). A FILE passes when it exits
 * with status 0. The runtime libraries are found as cudojo finds them
 * (CUDOJO_EMURT_DIR / CUDOJO_INJECT_DIR, or beside build/cudojo). The
 * worker's own overhead is not included: `bench_verdict EXERCISE` measures a
 * program exercise through the warm worker. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/backend.h"
#include "kernels/program.h"
#include "bench/bench_stats.h"

static const char *VECTOR_ADD =
    "#include <cstdio>\n"
    "#include <cstdlib>\n"
    "#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \\\n"
    "    fprintf(stderr, \"%s:%d: %s\\n\", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)\n"
    "__global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "int main() {\n"
    "    const int n = 1 << 16;\n"
    "    float *a = (float *)malloc(n * 4), *b = (float *)malloc(n * 4), *c = (float *)malloc(n * 4);\n"
    "    for (int i = 0; i < n; i++) { a[i] = i; b[i] = 2 * i; }\n"
    "    float *da, *db, *dc;\n"
    "    CHECK(cudaMalloc(&da, n * 4)); CHECK(cudaMalloc(&db, n * 4)); CHECK(cudaMalloc(&dc, n * 4));\n"
    "    CHECK(cudaMemcpy(da, a, n * 4, cudaMemcpyHostToDevice));\n"
    "    CHECK(cudaMemcpy(db, b, n * 4, cudaMemcpyHostToDevice));\n"
    "    vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);\n"
    "    CHECK(cudaGetLastError());\n"
    "    CHECK(cudaMemcpy(c, dc, n * 4, cudaMemcpyDeviceToHost));\n"
    "    for (int i = 0; i < n; i++)\n"
    "        if (c[i] != 3.0f * i) { printf(\"wrong at %d\\n\", i); return 1; }\n"
    "    CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dc));\n"
    "    printf(\"ok\\n\");\n"
    "    return 0;\n"
    "}\n";

typedef struct Bench {
    const char *display;
    const char *file;               /* the "saved" file */
    const char *text;
    size_t len;
    bool own_check;                 /* the default program: stdout must be "ok" */
    ProgramCompileOptions co;
} Bench;

/* One save→verdict: write the file, compile (cached), run, check. */
static bool save_to_verdict(const Bench *b, ProgramRuntime rt, double *ms, char **why) {
    double t0 = bench_now_ms();
    Diag *d = fs_write_file_atomic(b->file, b->text, b->len);
    char *src = NULL;
    size_t len = 0;
    if (!d) d = fs_read_file(b->file, &src, &len);
    CompiledProgram *cp = NULL;
    if (!d) d = program_compile(b->display, src, &b->co, &cp);
    ProgramResult res;
    memset(&res, 0, sizeof res);
    ProgramRunOptions ro = {.runtime = rt, .timeout_s = 30, .tee_out = -1, .tee_err = -1,
                            .display_path = b->display, .source = src};
    if (!d) d = program_run(cp->exe, &ro, &res);
    bool ok = false;
    if (d) *why = xstrdup(d->message);
    else if (!res.started || res.signaled || res.timed_out || res.exit_code != 0) *why = program_result_ending(&res);
    else if (b->own_check && (!res.out || strcmp(res.out, "ok\n"))) *why = xasprintf("printed: %s", res.out);
    else if (cp && !cp->cache_hit) *why = xstrdup("the compile was not cached");
    else ok = true;
    *ms = bench_now_ms() - t0;
    diag_free(&d);
    program_result_fini(&res);
    compiled_program_free(&cp);
    free(src);
    return ok;
}

/* p50/p90 of `reps` save→verdict runs after one warm-up; false if one failed. */
static bool measure(const Bench *b, ProgramRuntime rt, int reps, const char *label, double goal) {
    double *ms = xcalloc((size_t)reps, sizeof *ms), first = 0;
    char *why = NULL;
    bool ok = true;
    for (int i = -1; i < reps && ok; i++) ok = save_to_verdict(b, rt, i < 0 ? &first : &ms[i], &why);
    if (!ok) {
        printf("  %-44s failed: %s\n", label, why ? why : "?");
        free(why);
        free(ms);
        return false;
    }
    qsort(ms, (size_t)reps, sizeof *ms, bench_cmp_double);
    double p50 = ms[reps / 2], p90 = ms[(reps * 9) / 10 < reps ? (reps * 9) / 10 : reps - 1];
    char l50[96], l90[96], lgoal[96];
    snprintf(l50, sizeof l50, "%s: p50", label);
    snprintf(l90, sizeof l90, "%s: p90", label);
    snprintf(lgoal, sizeof lgoal, "goal: p50 ≤ %.0f ms", goal);
    printf("  %-44s %9.1f ms\n", l50, p50);
    printf("  %-44s %9.1f ms\n", l90, p90);
    printf("  %-44s %9.1f ms   %s\n", lgoal, p50, p50 <= goal ? "met" : "NOT met");
    free(ms);
    return true;
}

/* The compute capability of a working GPU (90 on an H200), 0 without one. */
static int gpu_arch(char *name, size_t len) {
    Diag *why = NULL;
    Backend *g = backend_open(BACKEND_CUDA, NULL, &why, NULL);
    diag_free(&why);
    if (!g) return 0;
    DeviceInfo info;
    int arch = 0;
    Diag *d = g->ops->device_info(g, &info);
    if (!d) {
        arch = info.cc_major * 10 + info.cc_minor;
        snprintf(name, len, "%s", info.name);
    }
    diag_free(&d);
    backend_close(&g);
    return arch;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : NULL;
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    if (reps < 3) reps = 3;
    if (!program_nvcc_path()) {
        printf("program exercise: skipped (no nvcc: install the CUDA toolkit or set CUDA_HOME)\n");
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    if (path) {
        Diag *d = fs_read_file(path, &text, &len);
        if (d) {
            fprintf(stderr, "bench_program: %s\n", d->message);
            return 1;
        }
    } else {
        text = xstrdup(VECTOR_ADD);
        len = strlen(text);
    }
    char dir[] = "/tmp/cudojo-bench-program-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char *cache = xasprintf("%s/cache", dir), *file = xasprintf("%s/vector-add.cu", dir);
    char gpu_name[256] = "";
    int arch = gpu_arch(gpu_name, sizeof gpu_name);
    Bench b = {.display = path ? path : "vector-add.cu", .file = file, .text = text, .len = len,
               .own_check = !path, .co = {.sass_arch = arch, .cache_dir = cache}};
    printf("program exercise: %s, nvcc %s, %s (%d runs each)\n", b.display,
           program_nvcc_version() ? program_nvcc_version() : "?", arch ? gpu_name : "no GPU", reps);

    /* nvcc, cold (an empty cache) and cached */
    CompiledProgram *cp = NULL;
    double t0 = bench_now_ms();
    Diag *d = program_compile(b.display, text, &b.co, &cp);
    double cold = bench_now_ms() - t0;
    if (d) {
        fprintf(stderr, "bench_program: the program does not compile: %s\n", d->message);
        return 1;
    }
    compiled_program_free(&cp);
    t0 = bench_now_ms();
    d = program_compile(b.display, text, &b.co, &cp);
    double cached = bench_now_ms() - t0;
    bool hit = !d && cp->cache_hit;
    diag_free(&d);
    compiled_program_free(&cp);
    char label[64];
    snprintf(label, sizeof label, "nvcc cold compile (%s)", arch ? "PTX + SASS" : "PTX");
    printf("  %-44s %9.1f ms\n", label, cold);
    printf("  %-44s %9.1f ms%s\n", "cached compile", cached, hit ? "" : "   (NOT a cache hit)");

    /* save→verdict, compile cached */
    bool ok = true;
    if (!program_emurt_dir()) {
        printf("  %-44s skipped (no emulator runtime: make emurt)\n", "emulator runtime");
    } else {
        ok &= measure(&b, PROGRAM_RT_EMU, reps, "save→verdict, emulator runtime", 300);
    }
    if (!arch) {
        printf("  %-44s skipped (no GPU)\n", "save→verdict, GPU");
    } else {
        if (!program_inject_path()) printf("  (no CUPTI injection library: the GPU runs are untraced)\n");
        snprintf(label, sizeof label, "save→verdict, %s", gpu_name);
        ok &= measure(&b, PROGRAM_RT_CUDA, reps, label, 400);
    }
    char *cmd = xasprintf("rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    free(cmd);
    free(cache);
    free(file);
    free(text);
    return ok ? 0 : 1;
}
