/* bench/bench_verdict.c: save→verdict latency, the number a learner feels.
 *
 * Writes the learner's file, runs the exercise in a warm worker (the same
 * path `cudojo watch` and the TUI take) and times until the verdict is back.
 * Reports the first run (worker start + cold compile) and p50/p90 of warm
 * runs whose compile is cached. Goals when cached: p50 ≤ 250 ms for a kernel
 * exercise (issue 2); for a whole program (issue 11) ≤ 300 ms on the emulator
 * runtime, ≤ 400 ms on a GPU (the program's own work included: a program
 * that copies a gigabyte takes what it takes).
 * Usage: build/bench/bench_verdict [EXERCISE] [REPS]   (default vector-add 20)
 * The worker is $CUDOJO_BIN (default build/cudojo). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/runner.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "lua/exercise.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *id = argc > 1 ? argv[1] : "vector-add";
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    if (reps < 3) reps = 3;
    char *root = path_absolute("lessons");
    Course *course = NULL;
    Diag *d = course_load(root, &course);
    const ChapterMeta *ch = NULL;
    const ExerciseMeta *ex = course ? course_find_exercise(course, id, &ch) : NULL;
    if (!ex) {
        fprintf(stderr, "bench_verdict: no exercise %s\n", id);
        return 1;
    }
    diag_free(&d);
    char dir[] = "/tmp/cudojo-bench-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char *cache = path_join(dir, "cache");
    setenv("XDG_CACHE_HOME", cache, 1);
    char *sol = path_join(ch->dir, ex->solution);
    char *file = path_join(dir, path_basename(ex->solution));
    char *text;
    size_t len;
    if ((d = fs_read_file(sol, &text, &len))) {
        fprintf(stderr, "%s\n", d->message);
        return 1;
    }
    const char *bin = getenv("CUDOJO_BIN");
    char *exe = path_absolute(bin && *bin ? bin : "build/cudojo");
    RunnerConfig cfg = {.worker_exe = exe, .backend = BACKEND_AUTO};
    Runner *r = runner_new(&cfg);
    RunRequest req = {.exercise_id = ex->id, .chapter_dir = ch->dir, .cu_path = file, .cu_display = "bench.cu",
                      .timeout_s = 60};
    double *ms = xcalloc((size_t)reps, sizeof *ms);
    double first = 0;
    const char *backend = "?";
    char *backend_copy = NULL;
    for (int i = -1; i < reps; i++) {
        double t0 = now_ms();
        if ((d = fs_write_file_atomic(file, text, len))) return 1;   /* the "save" */
        RunResult *res = runner_run(r, &req, NULL);
        double t = now_ms() - t0;
        if (res->verdict != VERDICT_PASS) {
            fprintf(stderr, "bench_verdict: the solution did not pass: %s\n", res->summary ? res->summary : "");
            return 1;
        }
        if (!backend_copy && res->backend) backend_copy = xstrdup(res->backend);
        run_result_free(&res);
        if (i < 0) first = t;
        else ms[i] = t;
    }
    if (backend_copy) backend = backend_copy;
    qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
    double p50 = ms[reps / 2], p90 = ms[(reps * 9) / 10 < reps ? (reps * 9) / 10 : reps - 1];
    printf("save→verdict latency, %s on %s (%d warm runs)\n", ex->id, backend, reps);
    printf("  %-40s %9.1f ms\n", "first run (worker start, cold compile)", first);
    printf("  %-40s %9.1f ms\n", "warm, compile cached: p50", p50);
    printf("  %-40s %9.1f ms\n", "warm, compile cached: p90", p90);
    double goal = !ex->program ? 250 : !strcmp(backend, "cuda") ? 400 : 300;
    char label[64];
    snprintf(label, sizeof label, "goal: p50 ≤ %.0f ms%s", goal, ex->program ? " (a program)" : "");
    printf("  %-40s %9.1f ms   %s\n", label, p50, p50 <= goal ? "met" : "NOT met");
    runner_free(&r);
    char *cmd = xasprintf("rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    free(cmd);
    free(ms);
    free(exe);
    free(text);
    free(file);
    free(sol);
    free(cache);
    free(root);
    free(backend_copy);
    course_free(&course);
    return 0;
}
