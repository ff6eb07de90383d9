/* bench/bench_compile.c: NVRTC compile latency, cold and cached.
 *
 * Cold: a unique source each repetition (a comment with a counter) and the
 * cache off, so every rep pays NVRTC (and ptxas for the cubin row). Cached:
 * the same source with a cache directory, after one fill, so every rep is a
 * hit. Median and min of REPS runs each, printed as a table with the ratio.
 * Build and run: make bench (or make build/bench/bench_compile). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "kernels/compile.h"

#define REPS 10

static const char *KERNEL =
    "__global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct Row {
    const char *name;
    double median, min;
} Row;

/* Compiles REPS times; unique = a fresh source each time. Returns false on a compile error. */
static bool measure(Row *row, const char *name, const CompileOptions *o, bool unique, bool want_hit) {
    double ms[REPS];
    static int serial;
    for (int r = 0; r < REPS; r++) {
        char *src = unique ? xasprintf("// bench %d-%d\n%s", (int)getpid(), serial++, KERNEL) : xstrdup(KERNEL);
        CompiledModule *m = NULL;
        Diag *d = compile_cuda("bench.cu", src, o, &m);
        free(src);
        if (d) {
            char *t = diag_format_all(d, false);
            fprintf(stderr, "bench_compile: %s\n", t);
            free(t);
            diag_free(&d);
            return false;
        }
        if (m->cache_hit != want_hit) {
            fprintf(stderr, "bench_compile: %s: expected cache_hit=%d\n", name, want_hit);
            compiled_module_free(&m);
            return false;
        }
        ms[r] = m->compile_ms;
        compiled_module_free(&m);
    }
    qsort(ms, REPS, sizeof ms[0], cmp);
    row->name = name;
    row->median = (ms[REPS / 2 - 1] + ms[REPS / 2]) / 2;
    row->min = ms[0];
    return true;
}

int main(void) {
    char dir[] = "/tmp/cudojo-bench-compile-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    Row rows[4];
    int n = 0;
    CompileOptions cold = {0};
    cold.cache_dir = "";
    CompileOptions cold_cubin = cold;
    cold_cubin.cubin_arch = 90;
    CompileOptions cached = {0};
    cached.cache_dir = dir;
    cached.cubin_arch = 90;
    CompiledModule *fill = NULL;
    Diag *d = compile_cuda("bench.cu", KERNEL, &cached, &fill);
    compiled_module_free(&fill);
    bool ok = !d && measure(&rows[n++], "cold: PTX (compute_80)", &cold, true, false) &&
              measure(&rows[n++], "cold: PTX + cubin (sm_90)", &cold_cubin, true, false) &&
              measure(&rows[n++], "cached: PTX + cubin (sm_90)", &cached, false, true);
    diag_free(&d);
    char *rm = xasprintf("rm -rf '%s'", dir);
    if (system(rm) != 0) fprintf(stderr, "bench_compile: could not remove %s\n", dir);
    free(rm);
    if (!ok) return 1;
    printf("compile latency, NVRTC %s, vector_add, median of %d\n", compile_nvrtc_version(), REPS);
    printf("%-30s %10s %10s\n", "case", "median ms", "min ms");
    for (int i = 0; i < n; i++) printf("%-30s %10.2f %10.2f\n", rows[i].name, rows[i].median, rows[i].min);
    printf("cold (PTX + cubin) / cached: %.0fx\n", rows[1].median / (rows[2].median > 0 ? rows[2].median : 1e-9));
    return 0;
}
