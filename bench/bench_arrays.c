/* bench/bench_arrays.c: the host side of a GPU-sized exercise, without its
 * kernels: making, filling, copying and freeing gpu.array buffers of
 * gigabytes, run after run on one backend, as a warm worker does.
 *
 * Each rep is a fresh sandbox (a run) on the same backend; the script's
 * phases come from the run's ApiCtx (generate, reference, upload, download,
 * check, script) and "free" is the sandbox's teardown (every array's __gc).
 * The first rep is cold (the host buffer pool empty); the p50 is of the
 * others. Scripts: the .lua files in bench/arrays/ (GPU-sized shapes of latency-hiding,
 * scan-array and reduce-peak's host work; `n` is a local the bench sets:
 * --n, else 0 for the script's own GPU size).
 *
 * Usage:
 *   build/bench/bench_arrays                         a small default (2^22 elements, 4 reps, emu)
 *   build/bench/bench_arrays [--backend emu|cuda|none] [--reps N] [--n N] [--host-only] SCRIPT.lua...
 * --backend none runs host-only arrays (no backend: no pool, no device);
 * --host-only keeps the backend (its pool) but skips the scripts' copies
 * (the emulator's device memory at GPU sizes is not what a GPU costs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/diag.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/backend.h"
#include "lua/api.h"
#include "lua/sandbox.h"
#include "bench/bench_stats.h"

#define MAX_REPS 64

static const ApiPhase SHOWN[] = {PHASE_GENERATE, PHASE_REFERENCE, PHASE_UPLOAD, PHASE_DOWNLOAD, PHASE_CHECK,
                                 PHASE_SCRIPT};
#define N_SHOWN ((int)(sizeof SHOWN / sizeof SHOWN[0]))

/* One run of the script: its phases and the teardown; false when it failed. */
static bool run_once(Backend *b, const char *text, const char *path, long long n, bool device, double *phase,
                     double *free_ms, double *total) {
    ApiCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.backend = b;
    ctx.array_cap = (size_t)16 << 30;
    double t0 = bench_now_ms();
    Sandbox *sb = sandbox_new(NULL);
    sandbox_set_user(sb, &ctx);
    api_install(sb);
    /* the script's `n` (0: its own default) and `device` (whether to copy), on its first line */
    char *code = xasprintf("local n, device = %lld, %s; %s", n, device ? "true" : "false", text);
    Diag *d = sandbox_load_string(sb, code, strlen(code), path);
    free(code);
    ctx.phase = PHASE_SCRIPT;
    ctx.phase_t0 = api_now_ms();
    if (!d) d = sandbox_call(sb, 0, 0);
    api_phase(&ctx, PHASE_SCRIPT);
    double t1 = bench_now_ms();
    sandbox_free(&sb);
    double t2 = bench_now_ms();
    diag_free(&ctx.abort_diags);
    if (d) {
        char *s = diag_format_all(d, false);
        fprintf(stderr, "%s: %s\n", path, s);
        free(s);
        diag_free(&d);
        return false;
    }
    for (int i = 0; i < N_SHOWN; i++) phase[i] = ctx.phase_ms[SHOWN[i]];
    *free_ms = t2 - t1;
    *total = t2 - t0;
    return true;
}

static int bench_script(Backend *b, const char *path, int reps, long long n, bool device) {
    char *text = NULL;
    size_t len = 0;
    Diag *d = fs_read_file(path, &text, &len);
    if (d) {
        char *s = diag_format_all(d, false);
        fprintf(stderr, "%s\n", s);
        free(s);
        diag_free(&d);
        return 1;
    }
    double ph[MAX_REPS][N_SHOWN], fr[MAX_REPS], tot[MAX_REPS];
    for (int r = 0; r < reps; r++)
        if (!run_once(b, text, path, n, device, ph[r], &fr[r], &tot[r])) {
            free(text);
            return 1;
        }
    free(text);
    double col[MAX_REPS];
    printf("%-34s %8.1f", path, tot[0]);
    int w = reps - 1 > 0 ? reps - 1 : 1;
    int from = reps > 1 ? 1 : 0;
    for (int r = from; r < reps; r++) col[r - from] = tot[r];
    printf(" %8.1f", bench_median(col, w));
    for (int i = 0; i < N_SHOWN; i++) {
        for (int r = from; r < reps; r++) col[r - from] = ph[r][i];
        printf(" %8.1f", bench_median(col, w));
    }
    for (int r = from; r < reps; r++) col[r - from] = fr[r];
    printf(" %8.1f\n", bench_median(col, w));
    return 0;
}

int main(int argc, char **argv) {
    BackendChoice choice = BACKEND_EMU;
    bool none = false, device = true;
    int reps = 4;
    long long n = 0;
    int first_script = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--host-only")) device = false;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            const char *s = argv[++i];
            if (!strcmp(s, "none")) none = true;
            else if (!strcmp(s, "cuda")) choice = BACKEND_CUDA;
            else if (!strcmp(s, "emu")) choice = BACKEND_EMU;
            else goto usage;
        } else if (argv[i][0] == '-') {
            goto usage;
        } else {
            first_script = i;
            break;
        }
    }
    if (reps < 1 || reps > MAX_REPS) goto usage;
    static char *defaults[] = {"bench/arrays/scan-array.lua", "bench/arrays/reduce-peak.lua",
                               "bench/arrays/latency-hiding.lua"};
    char **scripts = argv + first_script;
    int n_scripts = argc - first_script;
    if (!n_scripts) {
        scripts = defaults;
        n_scripts = 3;
        if (!n) n = 1 << 22;
    }
    Backend *b = NULL;
    if (!none) {
        Diag *why = NULL;
        EmuOptions emu = {0};
        b = backend_open(choice, &emu, &why, NULL);
        if (!b) {
            char *s = why ? diag_format_all(why, false) : xstrdup("no backend");
            fprintf(stderr, "bench_arrays: %s\n", s);
            free(s);
            diag_free(&why);
            return 1;
        }
    }
    printf("host side of GPU-sized runs on %s, ms; first = the cold run, the rest are p50s of %d warm runs\n",
           b ? b->ops->name : "no backend", reps > 1 ? reps - 1 : 1);
    printf("%-34s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "script", "first", "p50", "gen", "ref", "upload",
           "down", "check", "lua", "free");
    int rc = 0;
    for (int i = 0; i < n_scripts && !rc; i++) rc = bench_script(b, scripts[i], reps, n, device && b);
    double t0 = bench_now_ms();
    backend_close(&b);
    printf("backend close: %.1f ms\n", bench_now_ms() - t0);
    return rc;
usage:
    fprintf(stderr, "usage: bench_arrays [--backend emu|cuda|none] [--reps N] [--n N] [--host-only] [SCRIPT.lua...]\n");
    return 2;
}
