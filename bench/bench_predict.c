/* bench/bench_predict.c: the time prediction (kernels/predict.h) against
 * the GPU, for the solution and the starter of every timed exercise.
 *
 * Each exercise (one whose script calls k:time) runs twice per source, at
 * the emulator's sizes: on the emulator, where every launch gets its
 * predicted time on the H200 (metrics.launch_log), and on the GPU along the
 * script's emulator path (ExerciseRunOptions.emulator_path: the same
 * launches, each timed with events, L2 flushed, median of 20). The row is
 * the launch whose counts the exercise's proxies read (t:emu_metrics), else
 * the last one; goal: predicted / measured within 0.77 .. 1.30 for every
 * row. The summary refits the fixed launch cost (the median of measured
 * minus predicted work) for kernels/profiles.c.
 *
 * Every run is a child process (a starter that faults on the GPU loses its
 * context, not the bench's). Without a GPU the measured column is empty
 * and the bench still exits 0 (`make bench` runs every bench).
 *
 * Replay (no GPU, no emulator): --replay FILE re-predicts the rows of a
 * --json FILE with the model as it is now (kernels/predict.c), from each
 * row's counts (predicted.input), against the measured times of that file
 * or of --measured FILE (an earlier GPU run; a row whose kernel ran more
 * than 2% more or fewer instructions there is stale and left out). --fit
 * all|even|odd refits the model's free constants (fixed_us, latency,
 * hit, dep, request and barrier cycles, the L2's rate for scattered
 * sectors, the L1's lines per clock; --free NAME,... fits only those) on
 * all exercises or every other one (both rows of an exercise on one side)
 * and prints the other half as held out. --replay may be given more than
 * once: the rows of every file count (one run's counts from two emulator
 * hosts, whose L1 hits differ). To iterate on the model without a GPU:
 *   build/bench/bench_predict --emu-only --json /tmp/emu.json
 *   build/bench/bench_predict --replay /tmp/emu.json --measured H200-RUN.json [--fit even]
 *
 * Usage: build/bench/bench_predict [--emu-only] [--json FILE] [--course DIR] [EXERCISE...]
 *        build/bench/bench_predict --replay FILE [--replay FILE2...] [--measured FILE] [--fit all|even|odd]
 *                                  [--free NAME,...]
 * On the H200 (under 3 minutes): make bench, or
 *   make build/bench/bench_predict && build/bench/bench_predict --json /tmp/predict.json */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/backend.h"
#include "kernels/predict.h"
#include "lua/exercise.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool text_times(const char *text) { return text && (strstr(text, ":time(") || strstr(text, ":time{")); }

/* Whether the exercise times a kernel: its script, or a module of the
 * chapter's lib/ it requires (chapter 18's matmul_common), calls k:time. */
static bool is_timed(const ChapterMeta *ch, const ExerciseMeta *ex) {
    if (ex->program) return false;
    char *text = NULL;
    Diag *d = fs_read_file(ex->lua_path, &text, NULL);
    diag_free(&d);
    bool timed = text_times(text);
    for (const char *r = text; !timed && r && (r = strstr(r, "require")); ) {
        r += strlen("require");
        while (*r == ' ' || *r == '(') r++;
        if (*r != '"' && *r != '\'') continue;
        const char *name = r + 1, *end = strchr(name, *r);
        if (!end || end - name > 100) continue;
        char *path = xasprintf("%s/lib/%.*s.lua", ch->dir, (int)(end - name), name);
        char *lib = NULL;
        d = fs_read_file(path, &lib, NULL);
        diag_free(&d);
        timed = text_times(lib);
        free(lib);
        free(path);
    }
    free(text);
    return timed;
}

/* Whether a GPU is there, asked in a child so that this process never
 * initialises CUDA. */
static bool gpu_present(void) {
    pid_t pid = fork();
    if (pid == 0) _exit(backend_gpu_count() > 0 ? 0 : 1);
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Runs ex on `cu` in a child on the emulator (gpu false) or the GPU along
 * the emulator's path; returns {verdict, launch_log} or NULL. */
static json_t *run_child(const ExerciseMeta *ex, const char *cu, bool gpu) {
    int fd[2];
    if (pipe(fd) != 0) return NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return NULL;
    if (pid == 0) {
        close(fd[0]);
        EmuOptions eo = {.adversarial = true, .metrics = true, .checks = true};
        Diag *why = NULL;
        Backend *b = backend_open(gpu ? BACKEND_CUDA : BACKEND_EMU, &eo, &why, NULL);
        json_t *o = json_object();
        if (!b || (gpu && strcmp(b->ops->name, "cuda"))) {
            json_object_set_new(o, "error", json_string(why ? why->message : "no backend"));
        } else {
            ExerciseRunOptions ro = {.cu_path = cu, .timeout_s = 120, .launch_log = true, .emulator_path = gpu};
            RunResult *r = exercise_run(ex, b, &ro);
            json_object_set_new(o, "verdict", json_string(verdict_name(r->verdict)));
            if (r->summary) json_object_set_new(o, "summary", json_string(r->summary));
            json_t *log = r->metrics ? json_object_get(r->metrics, "launch_log") : NULL;
            if (log) json_object_set(o, "launch_log", log);
            run_result_free(&r);
        }
        char *s = json_dumps(o, JSON_COMPACT);
        FILE *f = fdopen(fd[1], "w");
        if (f && s) {
            fputs(s, f);
            fclose(f);
        }
        _exit(0);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    json_error_t err;
    json_t *o = f ? json_loadf(f, JSON_DISABLE_EOF_CHECK, &err) : NULL;
    if (f) fclose(f);
    int st = 0;
    waitpid(pid, &st, 0);
    return o;
}

/* The launch the proxies read, else the last; -1 none. */
static int pick_launch(const json_t *log) {
    int n = (int)json_array_size(log);
    for (int i = 0; i < n; i++)
        if (json_is_true(json_object_get(json_array_get(log, (size_t)i), "proxied"))) return i;
    return n - 1;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- replay: the model on recorded counts (no GPU, no emulator) ---- */

typedef struct ReplayRow {
    const char *exercise, *source, *kernel;
    int ex_index;                   /* the exercise's order in the file: the halves of --fit */
    PredictInput in;
    double measured_us;
} ReplayRow;

static const json_t *find_row(const json_t *rows, const char *exercise, const char *source) {
    size_t i;
    const json_t *r;
    json_array_foreach(rows, i, r) {
        if (!strcmp(json_string_value(json_object_get(r, "exercise")) ?: "", exercise) &&
            !strcmp(json_string_value(json_object_get(r, "source")) ?: "", source))
            return r;
    }
    return NULL;
}

/* The rows of `file` with counts and a measured time (from `measured` when
 * given); prints the ones left out. Returns the count; *out is the caller's
 * to free. */
static int replay_load(const json_t *file, const json_t *measured, ReplayRow **out) {
    const json_t *rows = json_object_get(file, "rows"), *mrows = measured ? json_object_get(measured, "rows") : NULL;
    ReplayRow *rr = xcalloc(json_array_size(rows) + 1, sizeof *rr);
    int n = 0, n_ex = 0, old_counts = 0;
    const char *last_ex = "";
    size_t i;
    const json_t *r;
    json_array_foreach(rows, i, r) {
        const char *ex = json_string_value(json_object_get(r, "exercise")), *src = json_string_value(json_object_get(r, "source"));
        const json_t *emu = json_object_get(r, "emu");
        if (!ex || !src || !emu) continue;
        if (strcmp(ex, last_ex)) n_ex++;
        last_ex = ex;
        ReplayRow *row = &rr[n];
        const json_t *input = json_object_get(json_object_get(emu, "predicted"), "input");
        if (!predict_input_from_metrics(input ? input : json_object_get(emu, "emu"), &row->in)) continue;
        if (!input) { /* a file from before predicted.input: the block from the launch, no footprint */
            const json_t *b = json_object_get(emu, "block");
            row->in.threads_per_block = (int)(json_integer_value(json_array_get(b, 0)) * json_integer_value(json_array_get(b, 1)) *
                                              json_integer_value(json_array_get(b, 2)));
        }
        row->exercise = ex;
        row->source = src;
        row->kernel = json_string_value(json_object_get(emu, "kernel")) ?: "-";
        row->ex_index = n_ex - 1;
        const json_t *m = mrows ? find_row(mrows, ex, src) : r;
        row->measured_us = m ? json_number_value(json_object_get(m, "measured_us")) : -1;
        const json_t *mt = m ? json_object_get(json_object_get(m, "emu"), "emu") : NULL;
        if (!mt) mt = m ? json_object_get(json_object_get(json_object_get(m, "emu"), "predicted"), "input") : NULL;
        /* the same kernel within 2%: a look-back that spins on other blocks' flags runs a few more instructions
         * when the emulator's host threads run those blocks at the same time */
        double then = mt ? (double)json_integer_value(json_object_get(mt, "warp_instructions")) : 0;
        if (m && m != r && mt && fabs(then - (double)row->in.warp_instructions) > 0.02 * then) {
            printf("  left out: %s %s (stale: it ran %lld warp instructions when measured, %llu now)\n", ex, src,
                   (long long)json_integer_value(json_object_get(mt, "warp_instructions")),
                   (unsigned long long)row->in.warp_instructions);
            continue;
        }
        if (row->measured_us <= 0) {
            printf("  left out: %s %s (not measured)\n", ex, src);
            continue;
        }
        old_counts += !row->in.critical_instructions && row->in.warp_instructions;
        n++;
    }
    if (old_counts)
        printf("  note: %d rows were counted before the emulator counted the critical path and L1 hits (session 8): "
               "the model falls back to the average warp, which the constants were not fitted for; replay today's "
               "counts instead (--emu-only --json NEW, then --replay NEW --measured THIS-FILE)\n", old_counts);
    *out = rr;
    return n;
}

static bool in_half(const ReplayRow *r, int half) { return half < 0 || r->ex_index % 2 == half; }

static bool within(double ratio) { return ratio >= 0.77 && ratio <= 1.30; }

/* Sum of squared log ratios over the rows of `half` (-1 all). */
static double replay_error(const PerfCalib *c, const ReplayRow *rows, int n, int half) {
    double e = 0;
    for (int i = 0; i < n; i++) {
        if (!in_half(&rows[i], half)) continue;
        Prediction p;
        predict_kernel(c, NULL, &rows[i].in, &p);
        double l = log(p.us / rows[i].measured_us);
        e += l * l;
    }
    return e;
}

/* The model's free constants, by name (--free picks some; all by default). */
static const struct { const char *name; size_t offset; } FREE_CONSTANTS[] = {
    {"fixed_us", offsetof(PerfCalib, fixed_us)},
    {"latency_cycles", offsetof(PerfCalib, latency_cycles)},
    {"dep_cycles", offsetof(PerfCalib, dep_cycles)},
    {"request_cycles", offsetof(PerfCalib, request_cycles)},
    {"barrier_cycles", offsetof(PerfCalib, barrier_cycles)},
    {"hit_cycles", offsetof(PerfCalib, hit_cycles)},
    {"l2_sector_gbs", offsetof(PerfCalib, l2_sector_gbs)},
    {"l1_lines_per_clk", offsetof(PerfCalib, l1_lines_per_clk)},
};
enum { N_FREE = sizeof FREE_CONSTANTS / sizeof FREE_CONSTANTS[0] };

/* Which constants `list` (comma-separated names, NULL: all) frees; false on a name that is none. */
static bool free_constants(const char *list, bool freed[N_FREE]) {
    for (int k = 0; k < N_FREE; k++) freed[k] = !list;
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        int k = 0;
        while (k < N_FREE && (strlen(FREE_CONSTANTS[k].name) != n || strncmp(FREE_CONSTANTS[k].name, p, n))) k++;
        if (k == N_FREE) {
            fprintf(stderr, "bench_predict: --free: no constant '%.*s'\n", (int)n, p);
            return false;
        }
        freed[k] = true;
        p += n + (p[n] == ',');
    }
    return true;
}

/* Coordinate descent in log space over the freed constants. */
static void replay_fit(PerfCalib *c, const ReplayRow *rows, int n, int half, const bool freed[N_FREE]) {
    double *params[N_FREE];
    double step[N_FREE];
    for (int k = 0; k < N_FREE; k++) {
        params[k] = (double *)((char *)c + FREE_CONSTANTS[k].offset);
        step[k] = 0.5;
        if (freed[k] && *params[k] <= 0) *params[k] = 1;
    }
    double best = replay_error(c, rows, n, half);
    for (int it = 0; it < 200; it++) {
        for (int k = 0; k < N_FREE; k++) {
            if (!freed[k]) continue;
            double was = *params[k];
            bool better = false;
            for (int dir = 1; dir >= -1 && !better; dir -= 2) {
                *params[k] = was * exp(dir * step[k]);
                double e = replay_error(c, rows, n, half);
                if (e < best) { best = e; better = true; }
                else *params[k] = was;
            }
            if (!better) step[k] *= 0.7;
        }
    }
}

/* Prints the rows of `half` (-1 all) with c. */
static void replay_table(const PerfCalib *c, const ReplayRow *rows, int n, int half) {
    for (int i = 0; i < n; i++) {
        if (!in_half(&rows[i], half)) continue;
        Prediction p;
        predict_kernel(c, NULL, &rows[i].in, &p);
        double ratio = p.us / rows[i].measured_us;
        printf("%-22.22s %-8s %-14.14s %10.2f %-18.18s %10.2f %5.2f%s  chain %.2f issue %.2f pipe %.2f dram %.2f l2 %.2f "
               "l1 %.2f shared %.2f\n",
               rows[i].exercise, rows[i].source, rows[i].kernel, p.us, p.bound, rows[i].measured_us, ratio,
               within(ratio) ? "  " : " !", p.chain_us, p.issue_us, p.pipe_us, p.dram_us, p.l2_us, p.l1_us, p.shared_us);
    }
}

static void print_calib(const char *what, const PerfCalib *c) {
    printf("%s: fixed_us %.2f, latency_cycles %.0f, hit_cycles %.0f, dep_cycles %.2f, request_cycles %.1f, "
           "barrier_cycles %.0f, l2_sector_gbs %.0f, l1_lines_per_clk %.2f\n", what, c->fixed_us, c->latency_cycles,
           c->hit_cycles, c->dep_cycles, c->request_cycles, c->barrier_cycles, c->l2_sector_gbs, c->l1_lines_per_clk);
}

/* How many rows of `half` are within +-30% with c, and their lowest and highest ratio. */
static int replay_range(const PerfCalib *c, const ReplayRow *rows, int n, int half, int *n_rows, double *lo, double *hi) {
    int ok = 0;
    *n_rows = 0;
    *lo = 1e300;
    *hi = 0;
    for (int i = 0; i < n; i++) {
        if (!in_half(&rows[i], half)) continue;
        Prediction p;
        predict_kernel(c, NULL, &rows[i].in, &p);
        double ratio = p.us / rows[i].measured_us;
        ok += within(ratio);
        (*n_rows)++;
        if (ratio < *lo) *lo = ratio;
        if (ratio > *hi) *hi = ratio;
    }
    return ok;
}

/* Replays the rows of every file of `paths` (the same run counted by
 * emulators on two hosts weighs both counts of what a host can change: the
 * L1 hits) against their measured times or those of `measured_path`. */
static int replay_main(const char *const *paths, int n_paths, const char *measured_path, const char *fit,
                       const bool freed[N_FREE]) {
    json_error_t err;
    json_t *measured = NULL, **files = xcalloc((size_t)n_paths, sizeof *files);
    int rc = 0;
    for (int f = 0; f < n_paths && !rc; f++)
        if (!(files[f] = json_load_file(paths[f], 0, &err))) {
            fprintf(stderr, "bench_predict: %s:%d: %s\n", paths[f], err.line, err.text);
            rc = 1;
        }
    if (!rc && measured_path && !(measured = json_load_file(measured_path, 0, &err))) {
        fprintf(stderr, "bench_predict: %s:%d: %s\n", measured_path, err.line, err.text);
        rc = 1;
    }
    PerfCalib c = *perf_calib_default();
    ReplayRow *rows = NULL;
    int n = 0, n_rows = 0;
    for (int f = 0; f < n_paths && !rc; f++) {
        printf("replay of %s: the model of kernels/predict.c (%s calibration) vs measured (%s)\n", paths[f], c.device,
               measured_path ? measured_path : paths[f]);
        ReplayRow *more = NULL;
        int m = replay_load(files[f], measured, &more);
        rows = xrealloc(rows, (size_t)(n + m + 1) * sizeof *rows);
        memcpy(rows + n, more, (size_t)m * sizeof *rows);
        n += m;
        free(more);
    }
    int half = !fit || !strcmp(fit, "all") ? -1 : !strcmp(fit, "even") ? 0 : 1;
    if (!rc && fit) {
        print_calib("kernels/profiles.c", &c);
        replay_fit(&c, rows, n, half, freed);
        print_calib(half < 0 ? "fitted on all exercises" : half == 0 ? "fitted on the even exercises" : "fitted on the odd exercises", &c);
    }
    double lo, hi;
    if (!rc) {
        printf("%-22s %-8s %-14s %10s %-18s %10s %5s\n", "exercise", "source", "kernel", "pred us", "bound", "meas us", "ratio");
        replay_table(&c, rows, n, -1);
        int ok = replay_range(&c, rows, n, -1, &n_rows, &lo, &hi);
        printf("%d rows, %d within +-30%% (ratios %.2f-%.2f; goal: all)\n", n_rows, ok, lo, hi);
    }
    if (!rc && half >= 0) {
        int n_held = 0, ok_held = replay_range(&c, rows, n, 1 - half, &n_held, &lo, &hi);
        printf("held out (the %s exercises, not fitted): %d of %d within +-30%% (ratios %.2f-%.2f)\n",
               half == 1 ? "even" : "odd", ok_held, n_held, lo, hi);
    }
    free(rows);
    for (int f = 0; f < n_paths; f++) json_decref(files[f]);
    free(files);
    json_decref(measured);
    return rc;
}

int main(int argc, char **argv) {
    const char *course_dir = "lessons", *json_path = NULL, *measured = NULL, *fit = NULL, *free_list = NULL;
    bool emu_only = false;
    const char **only = xcalloc((size_t)argc, sizeof *only), **replay = xcalloc((size_t)argc, sizeof *replay);
    int n_only = 0, n_replay = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--emu-only")) emu_only = true;
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
        else if (!strcmp(argv[i], "--course") && i + 1 < argc) course_dir = argv[++i];
        else if (!strcmp(argv[i], "--replay") && i + 1 < argc) replay[n_replay++] = argv[++i];
        else if (!strcmp(argv[i], "--measured") && i + 1 < argc) measured = argv[++i];
        else if (!strcmp(argv[i], "--fit") && i + 1 < argc && (!strcmp(argv[i + 1], "all") || !strcmp(argv[i + 1], "even") ||
                                                               !strcmp(argv[i + 1], "odd")))
            fit = argv[++i];
        else if (!strcmp(argv[i], "--free") && i + 1 < argc) free_list = argv[++i];
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: bench_predict [--emu-only] [--json FILE] [--course DIR] [EXERCISE...]\n"
                            "       bench_predict --replay FILE... [--measured FILE] [--fit all|even|odd] [--free NAME,...]\n");
            free(only);
            free(replay);
            return 2;
        } else only[n_only++] = argv[i];
    }
    if (n_replay) {
        free(only);
        bool freed[N_FREE];
        int rc = free_constants(free_list, freed) ? replay_main(replay, n_replay, measured, fit, freed) : 2;
        free(replay);
        return rc;
    }
    free(replay);
    Course *course = NULL;
    Diag *d = course_load(course_dir, &course);
    if (d) {
        fprintf(stderr, "bench_predict: %s\n", d->message);
        return 1;
    }
    /* asked in a child: CUDA initialised here would not survive the fork of
     * every run's child ("initialization error") */
    bool gpu = !emu_only && gpu_present();
    const PerfCalib *c = perf_calib_default();
    printf("predicted (emulator counts -> %s model, kernels/profiles.c) vs measured (%s), at the emulator's sizes\n",
           c->device, gpu ? "this GPU: events, L2 flushed, median of 20" : "no GPU: not measured");
    printf("%-22s %-8s %-14s %-12s %10s %-18s %10s %7s\n", "exercise", "source", "kernel", "grid", "pred us", "bound",
           "meas us", "ratio");
    json_t *rows = json_array();
    double t0 = now_s();
    int n_rows = 0, n_ok = 0, n_meas = 0;
    double *resid = xcalloc(512, sizeof *resid);
    int n_resid = 0;
    for (int ci = 0; ci < course->n_chapters; ci++) {
        const ChapterMeta *ch = &course->chapters[ci];
        for (int ei = 0; ei < ch->n_exercises; ei++) {
            const ExerciseMeta *ex = &ch->exercises[ei];
            bool want = n_only == 0;
            for (int k = 0; k < n_only; k++) want |= !strcmp(only[k], ex->id);
            if (!want || !is_timed(ch, ex)) continue;
            const char *srcs[2] = {ex->solution, ex->source};
            const char *names[2] = {"solution", "starter"};
            for (int s = 0; s < 2; s++) {
                if (!srcs[s]) continue;
                char *cu = xasprintf("%s/%s", ch->dir, srcs[s]);
                json_t *e = run_child(ex, cu, false);
                json_t *g = gpu ? run_child(ex, cu, true) : NULL;
                json_t *elog = json_object_get(e, "launch_log"), *glog = json_object_get(g, "launch_log");
                int li = pick_launch(elog);
                json_t *el = li >= 0 ? json_array_get(elog, (size_t)li) : NULL;
                json_t *gl = li >= 0 ? json_array_get(glog, (size_t)li) : NULL;
                json_t *pred = json_object_get(el, "predicted");
                double pus = pred ? 1e3 * json_number_value(json_object_get(pred, "ms")) : -1;
                double fixed = pred ? json_number_value(json_object_get(json_object_get(pred, "terms_us"), "fixed")) : 0;
                double mus = gl && json_object_get(gl, "ms") ? 1e3 * json_number_value(json_object_get(gl, "ms")) : -1;
                const char *kname = el ? json_string_value(json_object_get(el, "kernel")) : "-";
                if (gl && el && strcmp(kname, json_string_value(json_object_get(gl, "kernel")))) mus = -1;
                json_t *grid = json_object_get(el, "grid");
                char gs[32] = "-";
                if (grid)
                    snprintf(gs, sizeof gs, "%lldx%lldx%lld", (long long)json_integer_value(json_array_get(grid, 0)),
                             (long long)json_integer_value(json_array_get(grid, 1)),
                             (long long)json_integer_value(json_array_get(grid, 2)));
                double ratio = pus > 0 && mus > 0 ? pus / mus : -1;
                char ps[16] = "-", ms[16] = "-", rs[16] = "-";
                if (pus > 0) snprintf(ps, sizeof ps, "%.2f", pus);
                if (mus > 0) snprintf(ms, sizeof ms, "%.2f", mus);
                if (ratio > 0) snprintf(rs, sizeof rs, "%.2f%s", ratio, ratio >= 0.77 && ratio <= 1.30 ? "" : " !");
                const char *bound = pred ? json_string_value(json_object_get(pred, "bound")) : "-";
                printf("%-22.22s %-8s %-14.14s %-12s %10s %-18.18s %10s %7s", ex->id, names[s], kname ? kname : "-", gs,
                       ps, bound ? bound : "-", ms, rs);
                if (!el) printf("  (no launch: %s)", json_string_value(json_object_get(e, "summary")) ?: "?");
                else if (gpu && mus < 0)
                    printf("  (GPU: %s)", json_string_value(json_object_get(g, "summary"))
                                              ?: json_string_value(json_object_get(g, "error")) ?: "no timing");
                printf("\n");
                fflush(stdout);
                n_rows++;
                if (ratio > 0) {
                    n_meas++;
                    n_ok += ratio >= 0.77 && ratio <= 1.30;
                    if (n_resid < 512) resid[n_resid++] = mus - (pus - fixed);
                }
                json_array_append_new(rows, json_pack("{s:s, s:s, s:s?, s:f, s:f, s:O?, s:O?}", "exercise", ex->id,
                                                      "source", names[s], "kernel", kname, "predicted_us", pus,
                                                      "measured_us", mus, "emu", el, "gpu", gl));
                json_decref(e);
                json_decref(g);
                free(cu);
            }
        }
    }
    printf("%d rows", n_rows);
    if (n_meas) printf(", %d measured, %d within +-30%% (goal: all)", n_meas, n_ok);
    printf(", %.1f s\n", now_s() - t0);
    if (n_resid) {
        qsort(resid, (size_t)n_resid, sizeof *resid, cmp_double);
        printf("refit: fixed_us = %.2f (median of measured - predicted work; kernels/profiles.c has %.2f)\n",
               resid[n_resid / 2], c->fixed_us);
    }
    if (json_path) {
        json_t *o = json_pack("{s:s, s:O}", "device", c->device, "rows", rows);
        if (json_dump_file(o, json_path, JSON_INDENT(1)) != 0) fprintf(stderr, "bench_predict: cannot write %s\n", json_path);
        json_decref(o);
    }
    json_decref(rows);
    free(resid);
    free(only);
    course_free(&course);
    return 0;
}
