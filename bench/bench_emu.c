/* bench/bench_emu.c: PTX emulator throughput (issue 3, "Speed").
 *
 * For six teaching kernels (taken from tests/conformance/, so they are known
 * to be correct) it measures warp-instructions per second on one host thread
 * and on all cores, with metrics and checks off ("plain") and with both on
 * ("checked"). The instruction count of each launch comes from the
 * emulator's metrics totals ("warp_instructions", from a metrics-on run; the
 * count does not depend on the mode); the time is the host wall time of the
 * launch call, median of REPS runs after one warm-up. It also times the
 * 256-thread tree reduction over 16,384 floats that Numba's CUDA simulator
 * needs 70 s for, and the 256 x 256 x 256 tiled SGEMM, against the goals.
 * Run from the repository root (`make bench`). Never part of the tests.
 *
 * `bench_emu --ab [REPS]` prints only the one-core figures, one line per
 * kernel and mode ("ab<TAB>kernel<TAB>plain|checked<TAB>M warp-inst/s"), for
 * comparing two builds run in turns (bench/emu_ab.sh); the time there is the
 * process's CPU time. An optional third argument runs only the kernels whose
 * label contains it. `bench_emu --one plain|checked KERNEL` launches the
 * first kernel whose label contains KERNEL once, for a profiler
 * (`valgrind --tool=callgrind`: its instruction count is the same on every
 * run, however busy the machine).
 *
 * `bench_emu --launches [N]` measures the fixed cost of a launch: N launches
 * (default 1000) of a tiny tree reduction (64 threads per block) on grids of
 * 1, 2, 4, 16 and 64 blocks, on one host thread and on all cores, plain and
 * checked, and prints the wall time per launch in microseconds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/backend.h"
#include "kernels/compile.h"

#define REPS 3
#define MAX_BUFS 4
#define NUMBA_TREE_SECONDS 70.0

typedef struct Bench {
    const char *label;
    const char *file;
    const char *kernel;
    Dim3 grid, block;
    size_t shared;
    size_t buf_bytes[MAX_BUFS];   /* the kernel's pointer arguments, in order (0 = none) */
    int nbufs;
    int scalars[4];               /* the int arguments after the pointers */
    int nscalars;
} Bench;

#define D1(x) {(x), 1, 1}
#define TREE_BIG (1 << 22)
#define HIST_BYTES (1 << 22)
#define TR_N 1024
#define MM 256

static const Bench BENCHES[] = {
    {"tree reduction (4M floats)", "algos.cu", "tree_reduce", D1(TREE_BIG / 256), D1(256), 256 * 4,
     {TREE_BIG * 4, TREE_BIG / 256 * 4}, 2, {TREE_BIG}, 1},
    {"shuffle reduction (4M floats)", "sync_warp.cu", "shfl_reduce", D1(TREE_BIG / 256), D1(256), 0,
     {TREE_BIG * 4, TREE_BIG / 256 * 4}, 2, {TREE_BIG}, 1},
    {"tiled transpose (1024^2)", "algos.cu", "transpose_tiled", {TR_N / 32, TR_N / 32, 1}, {32, 8, 1}, 0,
     {TR_N * TR_N * 4, TR_N * TR_N * 4}, 2, {TR_N, TR_N}, 2},
    {"tiled SGEMM (256^3)", "algos.cu", "sgemm_tiled", {MM / 16, MM / 16, 1}, {16, 16, 1}, 0,
     {MM * MM * 4, MM * MM * 4, MM * MM * 4}, 3, {MM, MM, MM}, 3},
    {"shared histogram (4 MB)", "algos.cu", "histogram_shared", D1(64), D1(256), 0, {HIST_BYTES, 64 * 4}, 2,
     {HIST_BYTES}, 1},
    {"Monte Carlo (8M points)", "algos.cu", "monte_carlo", D1(256), D1(128), 0, {256 * 4}, 1, {12345, 256}, 2},
};
#define N_BENCHES ((int)(sizeof BENCHES / sizeof BENCHES[0]))

/* The Numba comparison: 16,384 floats, 256 threads per block. */
static const Bench NUMBA_TREE = {"tree reduction (16,384 floats)", "algos.cu", "tree_reduce", D1(64), D1(256),
                                 256 * 4, {16384 * 4, 64 * 4}, 2, {16384}, 1};

typedef enum Config { C1_PLAIN, C1_CHECKED, CN_PLAIN, CN_CHECKED, N_CONFIGS } Config;
static const char *const CONFIG_NAMES[N_CONFIGS] = {"1 core", "1 core+chk", "all cores", "all+chk"};

static Backend *g_be[N_CONFIGS];
static Backend *g_count_be;   /* metrics on: counts instructions */

/* --ab times the process's CPU time, not the wall clock: on a shared, busy
 * machine the wall time of a one-core run counts the time others ran. */
static bool g_cpu_time;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(g_cpu_time ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static Backend *open_emu(int threads, bool checked) {
    EmuOptions o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    o.metrics = checked;
    o.checks = checked;
    Diag *why = NULL;
    Backend *b = emu_backend_new(&o, &why);
    if (!b) {
        fprintf(stderr, "bench_emu: emu_backend_new: %s\n", why ? why->message : "?");
        diag_free(&why);
    }
    return b;
}

static CompiledModule *compile_file(const char *file) {
    char *path = xasprintf("tests/conformance/%s", file), *src = NULL;
    CompiledModule *m = NULL;
    Diag *d = fs_read_file(path, &src, NULL);
    if (!d) {
        CompileOptions o;
        memset(&o, 0, sizeof o);
        o.virtual_arch = 80;
        o.opt_level = -1;
        d = compile_cuda(path, src, &o, &m);
    }
    if (d) {
        char *msg = diag_format_all(d, false);
        fprintf(stderr, "bench_emu: %s: %s\n", path, msg);
        free(msg);
        diag_free(&d);
    }
    free(src);
    free(path);
    return m;
}

/* Runs one benchmark on one backend `reps` times (plus a warm-up); returns the
 * median wall time in seconds, or -1. *warp_inst gets the metrics count when
 * the backend collects metrics. */
static double run_bench(Backend *be, const CompiledModule *mod, const Bench *bn, int reps, uint64_t *warp_inst) {
    const BackendOps *ops = be->ops;
    DevPtr bufs[MAX_BUFS] = {0};
    KernelArg args[MAX_BUFS + 4];
    int nargs = 0;
    double times[16];
    int ntimes = 0;
    BackendModule *bm = NULL;
    Diag *d = NULL;
    for (int i = 0; i < bn->nbufs && !d; i++) {
        d = ops->mem_alloc(be, bn->buf_bytes[i], "buf", 4, &bufs[i]);
        if (!d) {
            /* Floats in [0, 1) (no denormals to slow the host down); bytes for the histogram. */
            unsigned char *h = xmalloc(bn->buf_bytes[i]);
            if (!strcmp(bn->kernel, "histogram_shared") && i == 0)
                for (size_t k = 0; k < bn->buf_bytes[i]; k++) h[k] = (unsigned char)((k * 37) >> 2);
            else
                for (size_t k = 0; k < bn->buf_bytes[i] / 4; k++) ((float *)h)[k] = (float)(k % 1000) * 0.001f;
            d = ops->copy_to_device(be, bufs[i], h, bn->buf_bytes[i]);
            free(h);
        }
        args[nargs++] = kernel_arg_ptr(bufs[i]);
    }
    for (int i = 0; i < bn->nscalars; i++) args[nargs++] = kernel_arg_i32(bn->scalars[i]);
    if (!d) d = ops->module_load(be, mod, &bm);
    LaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.grid = bn->grid;
    cfg.block = bn->block;
    cfg.shared_bytes = bn->shared;
    for (int r = 0; r <= reps && !d; r++) {
        LaunchReport rep;
        launch_report_init(&rep);
        double t0 = now_s();
        d = ops->launch(be, bm, bn->kernel, &cfg, args, nargs, &rep);
        double t = now_s() - t0;
        if (!d && (r > 0 || reps == 0) && ntimes < 16) times[ntimes++] = t;   /* reps 0: the one run */
        if (!d && warp_inst && rep.metrics) {
            json_t *wi = json_object_get(json_object_get(rep.metrics, "totals"), "warp_instructions");
            if (wi) *warp_inst = (uint64_t)json_integer_value(wi);
        }
        if (diag_count_errors(rep.findings)) {
            char *msg = diag_format_all(rep.findings, false);
            fprintf(stderr, "bench_emu: %s: unexpected findings:\n%s", bn->label, msg);
            free(msg);
        }
        launch_report_fini(&rep);
    }
    if (bm) ops->module_unload(be, &bm);
    for (int i = 0; i < bn->nbufs; i++)
        if (bufs[i]) {
            Diag *f = ops->mem_free(be, bufs[i]);
            diag_free(&f);
        }
    if (d) {
        char *msg = diag_format_all(d, false);
        fprintf(stderr, "bench_emu: %s: %s\n", bn->label, msg);
        free(msg);
        diag_free(&d);
        return -1;
    }
    for (int i = 1; i < ntimes; i++)
        for (int j = i; j > 0 && times[j] < times[j - 1]; j--) {
            double t = times[j]; times[j] = times[j - 1]; times[j - 1] = t;
        }
    return ntimes ? times[ntimes / 2] : -1;
}

static CompiledModule *module_cached(const char *file) {
    static CompiledModule *mods[8];
    static const char *files[8];
    static int n;
    for (int i = 0; i < n; i++)
        if (!strcmp(files[i], file)) return mods[i];
    if (n == 8) return NULL;
    files[n] = file;
    mods[n] = compile_file(file);
    return mods[n++];
}

/* --launches: microseconds per launch of a tiny kernel, by grid size. */
static int run_launches(int n) {
    static const unsigned GRIDS[] = {1, 2, 4, 16, 64};
    const CompiledModule *mod = module_cached("algos.cu");
    if (!mod) return 1;
    printf("fixed cost of a launch: %d launches of tree_reduce, 64 threads per block, us per launch (median of 3)\n",
           n);
    printf("%-8s", "blocks");
    for (int c = 0; c < N_CONFIGS; c++) printf(" %11s", CONFIG_NAMES[c]);
    printf("\n");
    for (size_t g = 0; g < sizeof GRIDS / sizeof GRIDS[0]; g++) {
        Bench bn = {"tiny", "algos.cu", "tree_reduce", D1(GRIDS[g]), D1(64), 64 * 4,
                    {GRIDS[g] * 64 * 4, GRIDS[g] * 4}, 2, {(int)GRIDS[g] * 64}, 1};
        printf("%-8u", GRIDS[g]);
        for (int c = 0; c < N_CONFIGS; c++) {
            double best[3];
            for (int r = 0; r < 3; r++) {
                double t0 = now_s();
                /* run_bench launches reps + 1 times (one warm-up) */
                if (run_bench(g_be[c], mod, &bn, n - 1, NULL) < 0) return 1;
                best[r] = (now_s() - t0) / n;
            }
            for (int i = 1; i < 3; i++)
                for (int j = i; j > 0 && best[j] < best[j - 1]; j--) {
                    double t = best[j]; best[j] = best[j - 1]; best[j - 1] = t;
                }
            printf(" %11.1f", best[1] * 1e6);
            fflush(stdout);
        }
        printf("\n");
    }
    return 0;
}

/* --ab: one-core plain and checked rates of each kernel, tab-separated. */
static int run_ab(int reps, const char *only) {
    for (int b = 0; b < N_BENCHES; b++) {
        const Bench *bn = &BENCHES[b];
        if (only && !strstr(bn->label, only)) continue;
        const CompiledModule *mod = module_cached(bn->file);
        if (!mod) return 1;
        uint64_t wi = 0;
        run_bench(g_count_be, mod, bn, 0, &wi);
        for (int c = C1_PLAIN; c <= C1_CHECKED; c++) {
            double t = run_bench(g_be[c], mod, bn, reps, NULL);
            if (t <= 0 || !wi) return 1;
            printf("ab\t%s\t%s\t%.3f\n", bn->label, c == C1_PLAIN ? "plain" : "checked", (double)wi / t / 1e6);
            fflush(stdout);
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (argc == 4 && !strcmp(argv[1], "--one")) {
        bool checked = !strcmp(argv[2], "checked");
        Backend *be = open_emu(1, checked);
        int rc = 1;
        for (int b = 0; b < N_BENCHES && be && rc; b++) {
            if (!strstr(BENCHES[b].label, argv[3])) continue;
            const CompiledModule *mod = module_cached(BENCHES[b].file);
            double t = mod ? run_bench(be, mod, &BENCHES[b], 0, NULL) : -1;
            printf("%s, %s: %.3f s\n", BENCHES[b].label, checked ? "checked" : "plain", t);
            rc = 0;
        }
        backend_close(&be);
        return rc;
    }
    if (argc >= 2 && !strcmp(argv[1], "--launches")) {
        int n = argc >= 3 ? atoi(argv[2]) : 1000;
        if (n < 2) n = 1000;
        g_be[C1_PLAIN] = open_emu(1, false);
        g_be[C1_CHECKED] = open_emu(1, true);
        g_be[CN_PLAIN] = open_emu(0, false);
        g_be[CN_CHECKED] = open_emu(0, true);
        int rc = 1;
        if (g_be[C1_PLAIN] && g_be[C1_CHECKED] && g_be[CN_PLAIN] && g_be[CN_CHECKED]) rc = run_launches(n);
        for (int c = 0; c < N_CONFIGS; c++) backend_close(&g_be[c]);
        return rc;
    }
    if (argc >= 2 && !strcmp(argv[1], "--ab")) {
        int reps = argc >= 3 ? atoi(argv[2]) : REPS;
        if (reps < 1 || reps > 15) reps = REPS;
        g_cpu_time = true;
        g_be[C1_PLAIN] = open_emu(1, false);
        g_be[C1_CHECKED] = open_emu(1, true);
        g_count_be = g_be[C1_CHECKED];
        if (!g_be[C1_PLAIN] || !g_count_be) return 1;
        int rc = run_ab(reps, argc >= 4 ? argv[3] : NULL);
        backend_close(&g_be[C1_PLAIN]);
        backend_close(&g_be[C1_CHECKED]);
        return rc;
    }
    g_be[C1_PLAIN] = open_emu(1, false);
    g_be[C1_CHECKED] = open_emu(1, true);
    g_be[CN_PLAIN] = open_emu(0, false);
    g_be[CN_CHECKED] = open_emu(0, true);
    g_count_be = g_be[C1_CHECKED];
    if (!g_be[C1_PLAIN] || !g_count_be) return 1;

    printf("PTX emulator throughput, M warp-instructions/s (median of %d, %ld cores here)\n\n", REPS, cores);
    printf("%-32s %12s", "kernel", "warp-inst");
    for (int c = 0; c < N_CONFIGS; c++) printf(" %11s", CONFIG_NAMES[c]);
    printf("\n");
    double tree_rate[N_CONFIGS] = {0}, sgemm_time[N_CONFIGS] = {0};
    for (int b = 0; b < N_BENCHES; b++) {
        const Bench *bn = &BENCHES[b];
        const CompiledModule *mod = module_cached(bn->file);
        if (!mod) continue;
        uint64_t wi = 0;
        run_bench(g_count_be, mod, bn, 0, &wi);
        printf("%-32s %12llu", bn->label, (unsigned long long)wi);
        fflush(stdout);
        for (int c = 0; c < N_CONFIGS; c++) {
            double t = g_be[c] ? run_bench(g_be[c], mod, bn, REPS, NULL) : -1;
            double rate = (t > 0 && wi) ? (double)wi / t / 1e6 : 0;
            if (t > 0) printf(" %11.1f", rate);
            else printf(" %11s", "-");
            fflush(stdout);
            if (b == 0) tree_rate[c] = rate;
            if (!strcmp(bn->kernel, "sgemm_tiled")) sgemm_time[c] = t;
        }
        printf("\n");
    }

    printf("\nGoals (issue 3):\n");
    printf("  tree reduction, 1 core, metrics off:     %6.1f M/s   goal >= 50    %s\n", tree_rate[C1_PLAIN],
           tree_rate[C1_PLAIN] >= 50 ? "met" : "NOT MET");
    printf("  tree reduction, 1 core, checks+metrics:  %6.1f M/s   goal >= 25    %s\n", tree_rate[C1_CHECKED],
           tree_rate[C1_CHECKED] >= 25 ? "met" : "NOT MET");
    printf("  SGEMM 256^3, 1 core, checks+metrics:     %6.3f s     goal <= 0.3 s %s\n", sgemm_time[C1_CHECKED],
           sgemm_time[C1_CHECKED] > 0 && sgemm_time[C1_CHECKED] <= 0.3 ? "met" : "NOT MET");
    printf("  SGEMM 256^3, 1 core, metrics off:        %6.3f s\n", sgemm_time[C1_PLAIN]);

    const CompiledModule *mod = module_cached(NUMBA_TREE.file);
    if (mod) {
        printf("\n%s, 256 threads per block (Numba's simulator: %.0f s):\n", NUMBA_TREE.label, NUMBA_TREE_SECONDS);
        for (int c = 0; c < N_CONFIGS; c++) {
            if (!g_be[c]) continue;
            double t = run_bench(g_be[c], mod, &NUMBA_TREE, 5, NULL);
            if (t <= 0) continue;
            printf("  %-11s %8.3f ms   %9.0fx faster   goal >= 50,000x %s\n", CONFIG_NAMES[c], t * 1e3,
                   NUMBA_TREE_SECONDS / t, NUMBA_TREE_SECONDS / t >= 50000 ? "met" : "NOT MET");
        }
    }
    for (int c = 0; c < N_CONFIGS; c++) backend_close(&g_be[c]);
    return 0;
}
