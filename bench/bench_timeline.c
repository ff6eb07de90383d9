/* bench/bench_timeline.c: what collecting the GPU's timeline costs a run.
 *
 * The streams exercises are whole programs: their timeline comes from the
 * CUPTI injection library (kernels/cuda/inject.c), which CUDOJO_TIMELINE=off
 * leaves out of the program. Two warm workers, one per setting (off, cupti),
 * run the solutions of the streams exercises in turn, interleaved so
 * that the machine's drift hits all three alike; each run's own duration
 * (the worker's figure: the exercise, not the process start) is kept, and the
 * report gives each source's median per exercise and its ratio to "off".
 * Goal (issue 5): CUPTI costs < 5% on the streams exercises.
 * Needs a GPU. Usage: build/bench/bench_timeline [REPS]   (default 9)
 * The worker is $CUDOJO_BIN (default build/cudojo). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/runner.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "lua/exercise.h"
#include "bench/bench_stats.h"

static const char *const EXERCISES[] = {"async-overlap", "stream-events", "pinned-memory",
                                        "chunked-overlap", "default-stream", "nonblocking-streams"};
#define N_EX (sizeof EXERCISES / sizeof EXERCISES[0])
static const char *const MODES[] = {"off", "cupti"};
#define N_MODES 2

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 9;
    if (reps < 3) reps = 3;
    char *root = path_absolute("lessons");
    Course *course = NULL;
    Diag *d = course_load(root, &course);
    diag_free(&d);
    if (!course) {
        fprintf(stderr, "bench_timeline: cannot load lessons/\n");
        return 1;
    }
    char dir[] = "/tmp/cudojo-bench-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char *cache = path_join(dir, "cache");
    setenv("XDG_CACHE_HOME", cache, 1);
    const char *bin = getenv("CUDOJO_BIN");
    char *exe = path_absolute(bin && *bin ? bin : "build/cudojo");
    RunnerConfig cfg = {.worker_exe = exe, .backend = BACKEND_CUDA};
    Runner *run[N_MODES];
    RunRequest req[N_EX];
    for (size_t e = 0; e < N_EX; e++) {
        const ChapterMeta *ch = NULL;
        const ExerciseMeta *ex = course_find_exercise(course, EXERCISES[e], &ch);
        if (!ex) {
            fprintf(stderr, "bench_timeline: no exercise %s\n", EXERCISES[e]);
            return 1;
        }
        req[e] = (RunRequest){.exercise_id = ex->id, .chapter_dir = ch->dir,
                              .cu_path = path_join(ch->dir, ex->solution), .cu_display = ex->solution,
                              .timeout_s = 60};
    }
    double *ms = xcalloc((size_t)N_MODES * N_EX * (size_t)reps, sizeof *ms);
#define MS(m, e, i) ms[((size_t)(m) * N_EX + (e)) * (size_t)reps + (size_t)(i)]
    char source[N_MODES][16] = {{0}};
    for (int m = 0; m < N_MODES; m++) {     /* each worker starts with its source and warms up */
        setenv("CUDOJO_TIMELINE", MODES[m], 1);
        run[m] = runner_new(&cfg);
        for (size_t e = 0; e < N_EX; e++) {
            RunResult *res = runner_run(run[m], &req[e], NULL);
            if (!res->backend || strcmp(res->backend, "cuda")) {
                printf("timeline overhead: skipped, it needs a GPU (the run used %s: %s)\n",
                       res->backend ? res->backend : "?", res->summary ? res->summary : "");
                return 0;       /* `make bench` goes on with the others */
            }
            json_t *tl = json_object_get(res->metrics, "timeline");
            const char *src = json_string_value(json_object_get(tl, "source"));
            if (src) snprintf(source[m], sizeof source[m], "%s", src);
            if (m == 1 && res->verdict != VERDICT_PASS)
                fprintf(stderr, "note: %s did not pass with CUPTI: %s\n", EXERCISES[e], res->summary);
            run_result_free(&res);
        }
    }
    unsetenv("CUDOJO_TIMELINE");
    for (int i = 0; i < reps; i++) {
        fprintf(stderr, "\rbench_timeline: round %d of %d", i + 1, reps);
        for (size_t e = 0; e < N_EX; e++)
            for (int k = 0; k < N_MODES; k++) {
                int m = (k + i) % N_MODES;  /* rotate who goes first */
                RunResult *res = runner_run(run[m], &req[e], NULL);
                MS(m, e, i) = res->duration_ms;
                run_result_free(&res);
            }
    }
    fprintf(stderr, "\n");
    printf("timeline overhead: median run time of each streams solution (%d runs each, interleaved)\n", reps);
    printf("  %-22s %10s %10s %9s\n", "exercise", "off ms", "cupti ms", "cupti");
    double tot[N_MODES] = {0};
    for (size_t e = 0; e < N_EX; e++) {
        double med[N_MODES];
        for (int m = 0; m < N_MODES; m++) {
            med[m] = bench_median(&MS(m, e, 0), reps);
            tot[m] += med[m];
        }
        printf("  %-22s %10.2f %10.2f %+8.1f%%\n", EXERCISES[e], med[0], med[1], 100 * (med[1] / med[0] - 1));
    }
    double over = tot[1] / tot[0] - 1;
    printf("  %-22s %10.2f %10.2f %+8.1f%%\n", "all", tot[0], tot[1], 100 * over);
    printf("  sources reported: %s / %s\n", source[0][0] ? source[0] : "none", source[1]);
    printf("  goal: CUPTI < 5%% over no timeline: %+.1f%%  %s\n", 100 * over, over < 0.05 ? "met" : "NOT met");
    for (int m = 0; m < N_MODES; m++) runner_free(&run[m]);
    char *cmd = xasprintf("rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    free(cmd);
    for (size_t e = 0; e < N_EX; e++) free((char *)req[e].cu_path);
    free(ms);
    free(exe);
    free(cache);
    free(root);
    course_free(&course);
    return 0;
}
