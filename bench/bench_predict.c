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
 * Usage: build/bench/bench_predict [--emu-only] [--json FILE] [--course DIR] [EXERCISE...]
 * On the H200 (under 3 minutes): make bench, or
 *   make build/bench/bench_predict && build/bench/bench_predict --json /tmp/predict.json */
#include <jansson.h>
#include <math.h>
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

/* Whether the exercise times a kernel (its script calls k:time). */
static bool is_timed(const ExerciseMeta *ex) {
    if (ex->program) return false;
    char *text = NULL;
    Diag *d = fs_read_file(ex->lua_path, &text, NULL);
    diag_free(&d);
    bool timed = text && (strstr(text, ":time(") || strstr(text, ":time{"));
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

int main(int argc, char **argv) {
    const char *course_dir = "lessons", *json_path = NULL;
    bool emu_only = false;
    const char **only = xcalloc((size_t)argc, sizeof *only);
    int n_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--emu-only")) emu_only = true;
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
        else if (!strcmp(argv[i], "--course") && i + 1 < argc) course_dir = argv[++i];
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: bench_predict [--emu-only] [--json FILE] [--course DIR] [EXERCISE...]\n");
            return 2;
        } else only[n_only++] = argv[i];
    }
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
            if (!want || !is_timed(ex)) continue;
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
