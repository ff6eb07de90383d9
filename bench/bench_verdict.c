/* bench/bench_verdict.c: save→verdict latency, the number a learner feels,
 * and where it goes.
 *
 * Writes an exercise's solution as the learner's file, runs it in a warm
 * worker (the same path `cudojo watch` and the TUI take) and times until
 * the verdict is back. Reports the first run (worker start or not, cold
 * compile) and p50/p90 of warm runs whose compile is cached, with the
 * run's own breakdown by phase (metrics.phases: compile or cache hit,
 * input generation, uploads, launches, k:time, CPU references, checks,
 * downloads, t:program, the script's Lua) and what the worker protocol
 * adds around it.
 *
 * The costly CPU references (ref.matmul, ref.window, ref.sort) are cached
 * by their inputs (lua/ref_cache.h): the first run computes and stores
 * them, warm runs read them back. --all names the exercises over the
 * goal, each with its costliest phase, and ends with a table of the
 * exercises that used the cache: the reference's time in the first run
 * (cold) and warm (p50), and the ratio. CUDOJO_REF_CACHE=0 in the
 * environment turns the cache off (the worker inherits it), for a run
 * "before".
 *
 * On a GPU, --all also lists each k:time of the last warm run: its reps
 * (and those asked, when k:time's budget cut them) and the spread of its
 * times, min / median / p90 / max (also in --json as "timing").
 *
 * A run with work after its verdict (t:program{ after = }: a profiler's
 * run, lua/API.md) sends its verdict first: save→verdict is then the time
 * to that partial result (the headline p50, its phases the verdict's) and
 * save→final, to the result with the profile, is the "final" column.
 *
 * Goals (issue 15), p50 warm and cached: on the emulator every exercise
 * ≤ 500 ms, vector-add-sized ones ≤ 100 ms; on a GPU every exercise ≤ 1 s
 * and the small ones ≤ 100 ms.
 *
 * Usage:
 *   build/bench/bench_verdict [EXERCISE [REPS]]        one exercise (default vector-add, 20 reps)
 *   build/bench/bench_verdict --all [--reps N] [--backend emu|cuda] [--json FILE] [EXERCISE...]
 *       every exercise of the course (or the ones named), a table, p50 of N warm runs (default 5)
 * The worker is $CUDOJO_BIN (default build/cudojo). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/runner.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "lua/exercise.h"
#include "bench/bench_stats.h"

/* The columns of the table: metrics.phases keys, then what is not the run. */
static const char *const PHASES[] = {"compile", "generate", "upload", "launch", "timing", "reference",
                                     "check", "download", "program", "script"};
#define N_PHASES ((int)(sizeof PHASES / sizeof PHASES[0]))
static const char *const SHORT[] = {"compile", "gen", "upload", "launch", "k:time", "ref",
                                    "check", "down", "program", "lua"};

typedef struct Sample {
    double wall, run;
    double final;                /* save→final result (= wall when the verdict did not come first) */
    double phase[N_PHASES];
    int ref_hits, ref_misses;    /* metrics.phases.reference_cache_{hits,misses} */
} Sample;

typedef struct ExerciseBench {
    const ExerciseMeta *ex;
    const char *verdict;           /* NULL when every run passed */
    char *summary;
    double first;
    double p50, p90, run_p50;
    double final_p50;              /* save→final result; > p50 when the verdict came first */
    bool early;                    /* the verdict came before the final result */
    double phase_p50[N_PHASES];
    bool cache_hit;
    bool cuda;                     /* it ran on a GPU */
    Sample first_run;              /* the cold run's phases and reference cache counts */
    int ref_hits_min;              /* the fewest references from the cache in a warm run */
    json_t *timing;                /* the last warm run's k:time reports by kernel (a GPU's
                                      metrics.kernels.NAME.timing), NULL when none */
} ExerciseBench;

#define REF_PHASE 5                /* PHASES[REF_PHASE] is "reference" */

static void read_phases(const RunResult *res, Sample *s) {
    json_t *ph = json_object_get(res->metrics, "phases");
    for (int p = 0; p < N_PHASES; p++) {
        char key[32];
        snprintf(key, sizeof key, "%s_ms", PHASES[p]);
        s->phase[p] = json_number_value(json_object_get(ph, key));
    }
    s->ref_hits = (int)json_integer_value(json_object_get(ph, "reference_cache_hits"));
    s->ref_misses = (int)json_integer_value(json_object_get(ph, "reference_cache_misses"));
    s->run = res->duration_ms;
}

/* The verdict when it comes before the final result: when, and its phases. */
typedef struct EarlyVerdict {
    double t0;                   /* the save */
    bool seen;
    Sample s;
} EarlyVerdict;

static void on_verdict(void *ud, const RunResult *v) {
    EarlyVerdict *e = ud;
    e->seen = true;
    read_phases(v, &e->s);
    e->s.wall = bench_now_ms() - e->t0;
}

/* Runs ex's solution 1 + reps times; fills b. */
static void bench_one(Runner *r, const ChapterMeta *ch, const ExerciseMeta *ex, const char *dir, int reps,
                      ExerciseBench *b) {
    memset(b, 0, sizeof *b);
    b->ex = ex;
    char *sol = path_join(ch->dir, ex->solution);
    char *file = path_join(dir, path_basename(ex->solution));
    char *text = NULL;
    size_t len = 0;
    Diag *d = fs_read_file(sol, &text, &len);
    if (d) {
        b->verdict = "no-solution";
        b->summary = xstrdup(d->message);
        diag_free(&d);
        free(sol);
        free(file);
        return;
    }
    RunRequest req = {.exercise_id = ex->id, .chapter_dir = ch->dir, .cu_path = file, .cu_display = "bench.cu",
                      .timeout_s = ex->timeout_s};
    Sample *s = xcalloc((size_t)reps, sizeof *s);
    int got = 0;
    for (int i = -1; i < reps; i++) {
        double t0 = bench_now_ms();
        if ((d = fs_write_file_atomic(file, text, len))) {   /* the "save" */
            b->verdict = "io";
            b->summary = xstrdup(d->message);
            diag_free(&d);
            break;
        }
        EarlyVerdict early = {.t0 = t0};
        RunResult *res = NULL;
        if ((d = runner_start(r, &req))) {
            res = run_result_new(VERDICT_CRASH);
            res->summary = xstrdup(d->message);
            diag_free(&d);
        } else {
            res = runner_wait_verdict(r, NULL, on_verdict, &early);
        }
        double final = bench_now_ms() - t0, t = early.seen ? early.s.wall : final;
        if (res->verdict != VERDICT_PASS) {
            b->verdict = verdict_name(res->verdict);
            b->summary = xstrdup(res->summary ? res->summary : "");
            run_result_free(&res);
            break;
        }
        b->cuda = res->backend && !strcmp(res->backend, "cuda");
        b->early = b->early || early.seen;
        if (i < 0) {
            b->first = t;
            if (early.seen) b->first_run = early.s;
            else read_phases(res, &b->first_run);
        } else {
            if (early.seen) s[got] = early.s;
            else read_phases(res, &s[got]);
            s[got].wall = t;
            s[got].final = final;
            json_t *c = json_object_get(res->metrics, "compile");
            b->cache_hit = c ? json_is_true(json_object_get(c, "cache_hit")) : true;
            const char *kname;
            json_t *k;
            json_object_foreach(json_object_get(res->metrics, "kernels"), kname, k) {
                json_t *tm = json_object_get(k, "timing");
                if (!tm) continue;
                if (!b->timing) b->timing = json_object();
                json_object_set(b->timing, kname, tm);
            }
            got++;
        }
        run_result_free(&res);
    }
    if (got > 0) {
        double *v = xcalloc((size_t)got, sizeof *v);
        for (int i = 0; i < got; i++) v[i] = s[i].wall;
        b->p50 = bench_median(v, got);
        b->p90 = v[(got * 9) / 10 < got ? (got * 9) / 10 : got - 1];
        for (int i = 0; i < got; i++) v[i] = s[i].run;
        b->run_p50 = bench_median(v, got);
        for (int i = 0; i < got; i++) v[i] = s[i].final;
        b->final_p50 = bench_median(v, got);
        b->ref_hits_min = s[0].ref_hits;
        for (int i = 1; i < got; i++)
            if (s[i].ref_hits < b->ref_hits_min) b->ref_hits_min = s[i].ref_hits;
        for (int p = 0; p < N_PHASES; p++) {
            for (int i = 0; i < got; i++) v[i] = s[i].phase[p];
            b->phase_p50[p] = bench_median(v, got);
        }
        free(v);
    }
    free(s);
    free(text);
    free(sol);
    free(file);
}

static double goal_ms(bool cuda) { return cuda ? 1000 : 500; }

static void print_header(void) {
    printf("%-24s %8s %8s %8s %8s %7s", "exercise", "p50", "p90", "final", "first", "worker");
    for (int p = 0; p < N_PHASES; p++) printf(" %7s", SHORT[p]);
    printf("  goal\n");
}

static void print_row(const ExerciseBench *b, bool cuda) {
    if (b->verdict) {
        printf("%-24s %s: %.100s\n", b->ex->id, b->verdict, b->summary ? b->summary : "");
        return;
    }
    char final[16] = "-";     /* save→final, when the verdict came before it */
    if (b->early) snprintf(final, sizeof final, "%.1f", b->final_p50);
    printf("%-24s %8.1f %8.1f %8s %8.0f %7.1f", b->ex->id, b->p50, b->p90, final, b->first, b->p50 - b->run_p50);
    for (int p = 0; p < N_PHASES; p++) {
        if (b->phase_p50[p] >= 0.05) printf(" %7.1f", b->phase_p50[p]);
        else printf(" %7s", "-");
    }
    printf("  %s\n", b->p50 <= goal_ms(cuda) ? "met" : "NOT met");
}

static json_t *row_json(const ExerciseBench *b) {
    json_t *j = json_pack("{s:s}", "exercise", b->ex->id);
    if (b->verdict) {
        json_object_set_new(j, "verdict", json_string(b->verdict));
        json_object_set_new(j, "summary", json_string(b->summary ? b->summary : ""));
        return j;
    }
    json_object_set_new(j, "p50_ms", json_real(b->p50));
    json_object_set_new(j, "p90_ms", json_real(b->p90));
    json_object_set_new(j, "first_ms", json_real(b->first));
    json_object_set_new(j, "run_p50_ms", json_real(b->run_p50));
    json_object_set_new(j, "final_p50_ms", json_real(b->final_p50));     /* save→final: = p50_ms when not early */
    json_object_set_new(j, "verdict_first", json_boolean(b->early));
    json_t *ph = json_object();
    for (int p = 0; p < N_PHASES; p++) json_object_set_new(ph, PHASES[p], json_real(b->phase_p50[p]));
    json_object_set_new(j, "phases_p50_ms", ph);
    json_object_set_new(j, "reference_first_ms", json_real(b->first_run.phase[REF_PHASE]));
    json_object_set_new(j, "reference_cache_misses_first", json_integer(b->first_run.ref_misses));
    json_object_set_new(j, "reference_cache_hits_warm", json_integer(b->ref_hits_min));
    if (b->timing) json_object_set(j, "timing", b->timing);
    return j;
}

/* The exercises over the goal, each with the phase where most of its time went. */
static void print_not_met(const ExerciseBench *rows, int n, bool cuda) {
    bool any = false;
    for (int i = 0; i < n; i++) {
        const ExerciseBench *b = &rows[i];
        if (b->verdict || b->p50 <= goal_ms(cuda)) continue;
        int top = 0;
        for (int p = 1; p < N_PHASES; p++)
            if (b->phase_p50[p] > b->phase_p50[top]) top = p;
        printf("%s %s %.0f ms (most in %s: %.0f ms)", any ? "," : "over the goal:", b->ex->id, b->p50, SHORT[top],
               b->phase_p50[top]);
        any = true;
    }
    if (any) printf("\n");
}

/* The exercises whose references came from the cache: cold against warm. */
static void print_ref_cache(const ExerciseBench *rows, int n) {
    bool any = false;
    for (int i = 0; i < n; i++) {
        const ExerciseBench *b = &rows[i];
        if (b->verdict || (b->first_run.ref_misses == 0 && b->ref_hits_min == 0)) continue;
        if (!any) {
            printf("CPU references cached by their inputs (ref.matmul, window, sort): the first run computes "
                   "and stores them, warm runs read them back\n");
            printf("  %-24s %10s %10s %8s %12s %12s\n", "exercise", "cold ms", "warm ms", "ratio", "stored (1st)",
                   "hits (warm)");
            any = true;
        }
        double cold = b->first_run.phase[REF_PHASE], warm = b->phase_p50[REF_PHASE];
        printf("  %-24s %10.1f %10.1f %7.1fx %12d %12d\n", b->ex->id, cold, warm, warm > 0 ? cold / warm : 0,
               b->first_run.ref_misses, b->ref_hits_min);
    }
    if (!any) printf("no exercise's references came from the cache%s\n",
                     getenv("CUDOJO_REF_CACHE") ? " (CUDOJO_REF_CACHE is set)" : "");
}

/* Each k:time of a GPU run: how many reps (and how many were asked, when
 * the time budget cut them) and their spread. */
static void print_timing(const ExerciseBench *rows, int n) {
    bool any = false;
    for (int i = 0; i < n; i++) {
        const char *kname;
        json_t *tm;
        json_object_foreach(rows[i].timing, kname, tm) {
            if (!any) {
                printf("k:time on the GPU, last warm run: reps (asked) and ms min / median / p90 / max\n");
                any = true;
            }
            json_t *asked = json_object_get(tm, "reps_asked");
            char reps[32];
            long long got = (long long)json_integer_value(json_object_get(tm, "reps"));
            snprintf(reps, sizeof reps, asked ? "%lld (%lld)" : "%lld", got, (long long)json_integer_value(asked));
            printf("  %-20s %-22s %-9s %9.3f %9.3f %9.3f %9.3f\n", rows[i].ex->id, kname, reps,
                   json_number_value(json_object_get(tm, "ms_min")),
                   json_number_value(json_object_get(tm, "ms_median")),
                   json_number_value(json_object_get(tm, "ms_p90")), json_number_value(json_object_get(tm, "ms_max")));
        }
    }
}

static int usage(void) {
    fprintf(stderr, "usage: bench_verdict [EXERCISE [REPS]]\n"
                    "       bench_verdict --all [--reps N] [--backend emu|cuda] [--json FILE] [EXERCISE...]\n");
    return 2;
}

int main(int argc, char **argv) {
    bool all = false;
    int reps = -1;
    const char *json_path = NULL;
    BackendChoice backend = BACKEND_AUTO;
    const char **ids = xcalloc((size_t)argc + 1, sizeof *ids);
    int n_ids = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--all")) all = true;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "emu")) backend = BACKEND_EMU;
            else if (!strcmp(argv[i], "cuda")) backend = BACKEND_CUDA;
            else return usage();
        } else if (argv[i][0] == '-') return usage();
        else if (!all && n_ids == 1 && atoi(argv[i]) > 0) reps = atoi(argv[i]);   /* the old form: EXERCISE REPS */
        else ids[n_ids++] = argv[i];
    }
    if (reps < 0) reps = all ? 5 : 20;
    if (reps < 1) reps = 1;
    if (!all && n_ids == 0) ids[n_ids++] = "vector-add";

    char *root = path_absolute("lessons");
    Course *course = NULL;
    Diag *d = course_load(root, &course);
    diag_free(&d);
    if (!course) {
        fprintf(stderr, "bench_verdict: no course in %s\n", root);
        return 1;
    }
    char dir[] = "/tmp/cudojo-bench-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char *cache = path_join(dir, "cache");
    setenv("XDG_CACHE_HOME", cache, 1);
    const char *bin = getenv("CUDOJO_BIN");
    char *exe = path_absolute(bin && *bin ? bin : "build/cudojo");
    RunnerConfig cfg = {.worker_exe = exe, .backend = backend};
    Runner *r = runner_new(&cfg);

    /* Which exercises, in course order. */
    int cap = 0;
    for (int c = 0; c < course->n_chapters; c++) cap += course->chapters[c].n_exercises;
    ExerciseBench *rows = xcalloc((size_t)cap + 1, sizeof *rows);
    int n_rows = 0, status = 0;
    for (int i = 0; i < n_ids; i++) {
        const ChapterMeta *ch = NULL;
        if (!course_find_exercise(course, ids[i], &ch)) {
            fprintf(stderr, "bench_verdict: no exercise %s\n", ids[i]);
            return 1;
        }
    }
    /* Which backend the worker has: from the runs' results. */
    bool cuda = false, header = false;
    for (int c = 0; c < course->n_chapters; c++) {
        const ChapterMeta *ch = &course->chapters[c];
        for (int e = 0; e < ch->n_exercises; e++) {
            const ExerciseMeta *ex = &ch->exercises[e];
            bool wanted = n_ids == 0;
            for (int i = 0; i < n_ids && !wanted; i++) {
                const ChapterMeta *fc = NULL;
                wanted = course_find_exercise(course, ids[i], &fc) == ex;
            }
            if (!wanted) continue;
            ExerciseBench *b = &rows[n_rows++];
            bench_one(r, ch, ex, dir, reps, b);
            if (!all) continue;
            cuda = cuda || b->cuda;
            if (!header) {
                printf("save→verdict per exercise, p50/p90 of %d warm runs (compile cached), ms; final = p50 "
                       "save→final result where the verdict came first (a profile after it); phases are p50s of the "
                       "verdict's metrics.phases; worker = protocol + process, outside the run\n",
                       reps);
                print_header();
                header = true;
            }
            print_row(b, cuda);
            fflush(stdout);
        }
    }
    if (!all) {
        ExerciseBench *b = &rows[0];
        if (b->verdict) {
            fprintf(stderr, "bench_verdict: the solution did not pass: %s: %s\n", b->verdict, b->summary);
            return 1;
        }
        printf("save→verdict latency, %s (%d warm runs)\n", b->ex->id, reps);
        printf("  %-40s %9.1f ms\n", "first run (worker start, cold compile)", b->first);
        printf("  %-40s %9.1f ms\n", "warm, compile cached: p50", b->p50);
        printf("  %-40s %9.1f ms\n", "warm, compile cached: p90", b->p90);
        if (b->early) printf("  %-40s %9.1f ms\n", "save→final (the profile after the verdict)", b->final_p50);
        for (int p = 0; p < N_PHASES; p++)
            if (b->phase_p50[p] >= 0.05) printf("    %-38s %9.1f ms\n", PHASES[p], b->phase_p50[p]);
        if (b->first_run.ref_misses + b->ref_hits_min > 0)
            printf("    %-38s %9.1f ms   (first run: %.1f ms, %d computed and cached)\n", "reference from the cache",
                   b->phase_p50[REF_PHASE], b->first_run.phase[REF_PHASE], b->first_run.ref_misses);
        printf("    %-38s %9.1f ms\n", "worker (outside the run)", b->p50 - b->run_p50);
        double goal = !b->ex->program ? 250 : b->cuda ? 400 : 300;
        char label[64];
        snprintf(label, sizeof label, "goal: p50 ≤ %.0f ms%s", goal, b->ex->program ? " (a program)" : "");
        printf("  %-40s %9.1f ms   %s\n", label, b->p50, b->p50 <= goal ? "met" : "NOT met");
    } else {
        int met = 0, ran = 0;
        for (int i = 0; i < n_rows; i++) {
            if (rows[i].verdict) {
                status = 1;
                continue;
            }
            ran++;
            met += rows[i].p50 <= goal_ms(cuda);
        }
        printf("%d exercises ran on %s, %d met the goal (p50 ≤ %.0f ms), %d did not pass\n", ran,
               cuda ? "a GPU" : "the emulator", met, goal_ms(cuda), n_rows - ran);
        print_not_met(rows, n_rows, cuda);
        print_ref_cache(rows, n_rows);
        print_timing(rows, n_rows);
    }
    if (json_path) {
        json_t *arr = json_array();
        for (int i = 0; i < n_rows; i++) json_array_append_new(arr, row_json(&rows[i]));
        if (json_dump_file(arr, json_path, JSON_INDENT(1)) != 0) fprintf(stderr, "could not write %s\n", json_path);
        json_decref(arr);
    }
    runner_free(&r);
    char *cmd = xasprintf("rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    free(cmd);
    for (int i = 0; i < n_rows; i++) {
        free(rows[i].summary);
        if (rows[i].timing) json_decref(rows[i].timing);
    }
    free(rows);
    free(ids);
    free(exe);
    free(cache);
    free(root);
    course_free(&course);
    return status;
}
