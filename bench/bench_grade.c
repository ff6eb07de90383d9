/* bench/bench_grade.c: grading throughput, the number an instructor with a
 * class feels: exercise runs per second of `cudojo grade` over the whole
 * course, and the projection for 200 submissions (issue 13's goal: 200
 * submissions x the whole course in under 30 minutes on one 16-core H200
 * node).
 *
 * Makes S workspace folders holding every exercise's solution (a passing
 * run is the usual cost; a failing one stops earlier), each file made
 * distinct by a comment so every run compiles (no cache hits a real class
 * would not get either), grades them with
 * $CUDOJO_BIN (default build/cudojo) with --jobs = the cores, and reads the
 * summary's runs and time. Exercises that need a GPU are left out on the
 * emulator (the projection says so).
 * Then, from the gradebook's per-run "time" (metrics.phases and
 * metrics.gpu_lock), where the time went: the sums of compile, reference,
 * program and whole-run time, of the GPU lock held alone (timed sections),
 * held shared and waited for, the throughput the timed sections alone
 * allow on one GPU, the exercises that held the lock alone longest
 * (else: ran longest) and those that held it shared longest (what timed
 * sections wait for). On a GPU, from the lock's trace (CUDOJO_GPU_LOCK_TRACE:
 * into the folder unless set): how long an exclusive taker waited and held
 * (new shared work waits then), how much of that waiting a profiler caused,
 * whose holds the long waits ended on, and the GPU time spent one thing at
 * a time (timed sections + profiled runs), scaled to 200 submissions: a
 * floor no number of cores lowers, and the time no new GPU work could
 * start; how far each timed kernel's timings spread over the class (all
 * hand in the same kernel: the spread is what grading's load did to the
 * timings, the fairness a change to the lock is judged by). And the
 * steady rate: the runs that ended between the 10th and the 90th
 * percentile of the run ends, over that time (grade.db's
 * graded_unix_ms), without the start (workers loading) and the tail
 * (workers idle while the last long runs finish), which a class of 200
 * hardly sees: its projection beside the whole-run one.
 * Usage: build/bench/bench_grade [STUDENTS] [EXERCISES]   (default 3, the
 * whole course; EXERCISES a comma list of ids as --exercises takes)
 * CUDOJO_BACKEND=emu|cuda picks the backend (default: auto);
 * CUDOJO_GRADE_AHEAD=K the threads compiling programs ahead of the workers
 * (app/grade_ahead.c; 0: off, to compare), whose builds it reports;
 * BENCH_GRADE_JOBS the workers (default: the cores); BENCH_GRADE_KEEP=1
 * keeps the folder (its out/grade.db and out/gradebook.json);
 * BENCH_GRADE_WRONG=K makes one (student, exercise) pair in K, of the
 * exercises that have wrong variants, a wrong variant instead of the
 * solution (taken in turn: races, wrong results, kernels that never end),
 * as a real class hands in: what failing and hanging runs cost the
 * throughput, and whether each of them failed as it must. */
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/grade.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "lua/exercise.h"

/* Every solution handed in: each one that did not pass under grading's
 * load (16 workers, the GPU lock) is a fairness bug, a check that depends
 * on who else runs. Prints how many passed and each failure with its
 * message. `wrong` ("studentNNN/exercise" -> the variant, from
 * BENCH_GRADE_WRONG): those must fail instead; each that passed is
 * printed, and how many failed as they must and how long they took. */
static void print_failed_solutions(const json_t *book, const json_t *wrong) {
    size_t i, total = 0, passed = 0, w_total = 0, w_failed = 0, w_timeouts = 0;
    double w_ms = 0;
    json_t *st;
    json_array_foreach(json_object_get(book, "students"), i, st) {
        const char *ex;
        json_t *r;
        json_object_foreach(json_object_get(st, "exercises"), ex, r) {
            const char *verdict = json_string_value(json_object_get(r, "verdict"));
            if (!verdict || !strcmp(verdict, "missing")) continue;    /* not graded here (needs a GPU, left out) */
            char *key = xasprintf("%s/%s", json_string_value(json_object_get(st, "student")), ex);
            const char *variant = json_string_value(json_object_get(wrong, key));
            free(key);
            if (variant) {
                w_total++;
                w_ms += json_number_value(json_object_get(json_object_get(r, "time"), "total_ms"));
                w_timeouts += !strcmp(verdict, "timeout");
                if (strcmp(verdict, "pass")) w_failed++;
                else printf("  wrong variant passed: %s %s (%s)\n", json_string_value(json_object_get(st, "student")),
                            ex, variant);
                continue;
            }
            total++;
            if (!strcmp(verdict, "pass")) {
                passed++;
                continue;
            }
            const char *kind = json_string_value(json_object_get(r, "failure_kind"));
            const char *msg = json_string_value(json_object_get(r, "message"));
            printf("  solution failed: %s %s (%s): %.200s\n", json_string_value(json_object_get(st, "student")), ex,
                   kind ? kind : verdict, msg ? msg : "");
        }
    }
    printf("solutions passing under grading: %zu of %zu%s\n", passed, total,
           passed == total ? "" : " (each failure above is a check that depends on the load)");
    if (w_total)
        printf("wrong variants failing under grading: %zu of %zu (%zu of them timeouts), %.1f s in their runs\n",
               w_failed, w_total, w_timeouts, w_ms / 1e3);
}

/* Where the time went (app/grade_time.c), from OUT/gradebook.json: 0, or 1
 * when it cannot be read. */
static double tv_s(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The steady rate (the file's header) from grade.db's run ends; nothing
 * when there are too few runs to cut a start and a tail from. */
static void print_steady(const char *db_path, size_t exercises) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long *t = NULL;
    size_t n = 0, cap = 0;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT graded_unix_ms FROM run WHERE verdict <> 'missing'", -1, &st, NULL) !=
            SQLITE_OK)
        goto out;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) t = xrealloc(t, (cap = cap ? 2 * cap : 256) * sizeof *t);
        t[n++] = sqlite3_column_int64(st, 0);
    }
    if (n < 50) goto out;
    qsort(t, n, sizeof *t, cmp_ll);
    size_t a = n / 10, b = n * 9 / 10;
    double span = (double)(t[b] - t[a]) / 1e3;
    if (span <= 0) goto out;
    double rate = (double)(b - a) / span;
    printf("steady: %zu runs ended in %.1f s between the 10th and 90th percentile of the run ends: %.2f runs/s, "
           "200 submissions in %.1f min (without the start and the tail a class of 200 hardly sees)\n",
           b - a, span, rate, 200.0 * (double)exercises / rate / 60.0);
out:
    free(t);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* gpu: the timings are a GPU's (on the emulator they are the cost model's:
 * the same every run, nothing to spread). */
static int print_time(const char *book_path, double wall_s, const json_t *wrong, bool gpu) {
    json_error_t err;
    json_t *book = json_load_file(book_path, 0, &err);
    if (!book) {
        fprintf(stderr, "bench_grade: cannot read %s: %s\n", book_path, err.text);
        return 1;
    }
    grade_time_print(stdout, book, wall_s, 12);
    print_failed_solutions(book, wrong);
    if (gpu) grade_time_print_spread(stdout, book, wrong, 5);
    json_decref(book);
    return 0;
}

int main(int argc, char **argv) {
    int students = argc > 1 ? atoi(argv[1]) : 3;
    const char *only = argc > 2 ? argv[2] : NULL;
    if (students < 1) students = 1;
    const char *bin = getenv("CUDOJO_BIN") ? getenv("CUDOJO_BIN") : "build/cudojo";
    const char *backend = getenv("CUDOJO_BACKEND") ? getenv("CUDOJO_BACKEND") : "auto";
    char *root = path_absolute("lessons");
    Course *course = NULL;
    Diag *d = course_load(root, &course);
    if (!course || diag_count_errors(d)) {
        char *s = diag_format_all(d, false);
        fprintf(stderr, "bench_grade: the course at %s does not load:\n%s", root, s ? s : "");
        free(s);
        return 1;
    }
    diag_free(&d);
    char tmpl[] = "/tmp/cudojo-bench-grade-XXXXXX";
    if (!mkdtemp(tmpl)) return 1;
    int n_ex = 0;
    const char *wrong_env = getenv("BENCH_GRADE_WRONG");
    long every = wrong_env && *wrong_env ? atol(wrong_env) : 0;
    json_t *wrong = json_object();      /* "studentNNN/exercise" -> the wrong variant handed in */
    long pair = 0;
    for (int s = 0; s < students; s++) {
        for (int c = 0; c < course->n_chapters; c++) {
            const ChapterMeta *ch = &course->chapters[c];
            char *dir = xasprintf("%s/subs/student%03d/%s", tmpl, s, ch->id);
            d = fs_mkdir_p(dir);
            for (int e = 0; !d && e < ch->n_exercises; e++) {
                const ExerciseMeta *ex = &ch->exercises[e];
                const char *take = ex->solution;
                if (every > 0 && ex->n_wrong > 0 && pair++ % every == 0) {
                    take = ex->wrong[(pair / every) % ex->n_wrong];
                    char *key = xasprintf("student%03d/%s", s, ex->id);
                    json_object_set_new(wrong, key, json_string(path_basename(take)));
                    free(key);
                }
                char *src = path_join(ch->dir, take);
                char *dst = path_join(dir, path_basename(ch->exercises[e].source));
                /* Each student's file differs (a comment), so every run compiles as in a real class. */
                char *text = NULL;
                size_t len = 0;
                d = fs_read_file(src, &text, &len);
                if (!d) {
                    char *mine = xasprintf("%s\n// student %d\n", text, s);
                    d = fs_write_file_atomic(dst, mine, strlen(mine));
                    free(mine);
                }
                free(text);
                if (s == 0) n_ex++;
                free(src);
                free(dst);
            }
            free(dir);
            if (d) {
                fprintf(stderr, "bench_grade: %s\n", d->message);
                return 1;
            }
        }
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (getenv("BENCH_GRADE_JOBS") && atol(getenv("BENCH_GRADE_JOBS")) > 0) cores = atol(getenv("BENCH_GRADE_JOBS"));
    /* The GPU lock's trace (kernels/gpu_lock.h), for the summary of who
       waited for whom: into the folder unless the caller names a file. */
    const char *given_trace = getenv("CUDOJO_GPU_LOCK_TRACE");
    char *trace = given_trace && *given_trace ? xstrdup(given_trace) : xasprintf("%s/lock-trace.txt", tmpl);
    /* A fresh compile cache: what a first grading of a class costs. */
    char *cmd = xasprintf("XDG_CACHE_HOME=%s/cache CUDOJO_GPU_LOCK_TRACE='%s' '%s' --backend=%s grade %s/subs/* --course '%s' "
                          "--out %s/out --jobs %ld --json%s%s 2>%s/grade.err",
                          tmpl, trace, bin, backend, tmpl, root, tmpl, cores, only ? " --exercises " : "", only ? only : "",
                          tmpl);
    fprintf(stderr, "bench_grade: %d students x %d exercises, %ld workers: %s\n", students, n_ex, cores, cmd);
    struct rusage cpu0, cpu1;
    getrusage(RUSAGE_CHILDREN, &cpu0);
    FILE *p = popen(cmd, "r");
    json_error_t err;
    json_t *sum = p ? json_loadf(p, 0, &err) : NULL;
    int rc = p ? pclose(p) : -1;
    getrusage(RUSAGE_CHILDREN, &cpu1);     /* every descendant that was waited for: workers, nvcc, programs */
    if (!json_is_object(sum)) {
        fprintf(stderr, "bench_grade: grade failed (status %d); see %s/grade.err\n", rc, tmpl);
        return 1;
    }
    double runs = (double)json_integer_value(json_object_get(sum, "runs_executed"));
    double secs = json_real_value(json_object_get(sum, "elapsed_s"));
    size_t graded = json_integer_value(json_object_get(sum, "exercises"));
    size_t skipped = json_array_size(json_object_get(sum, "skipped_needs_gpu"));
    double rate = secs > 0 ? runs / secs : 0;
    double proj_min = rate > 0 ? 200.0 * (double)graded / rate / 60.0 : 0;
    printf("grading: %.0f exercise runs in %.1f s with %ld workers on %s: %.2f runs/s\n", runs, secs, cores,
           backend, rate);
    printf("projection: 200 submissions x %zu exercises = %zu runs in %.1f min (goal: under 30 min on one "
           "16-core H200 node)%s\n",
           graded, 200 * graded, proj_min, skipped ? "; exercises needing a GPU not included" : "");
    double user = tv_s(cpu1.ru_utime) - tv_s(cpu0.ru_utime), sys = tv_s(cpu1.ru_stime) - tv_s(cpu0.ru_stime);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    printf("CPU: %.1f s user + %.1f s system = %.1f core-seconds, %.0f%% of the %ld cores over the %.1f s "
           "(the CPU allows at most %.2f runs/s)\n",
           user, sys, user + sys, secs > 0 ? 100.0 * (user + sys) / (secs * (double)ncpu) : 0, ncpu, secs,
           user + sys > 0 ? runs * (double)ncpu / (user + sys) : 0);
    grade_ahead_print(stdout, json_object_get(sum, "compile_ahead"));
    json_decref(sum);
    char *gdb = xasprintf("%s/out/grade.db", tmpl);
    print_steady(gdb, graded);
    free(gdb);
    char *book = xasprintf("%s/out/gradebook.json", tmpl);
    if (json_object_size(wrong))
        printf("handed in: a wrong variant in %zu of the %d x %d pairs (BENCH_GRADE_WRONG=%ld: one in %ld of the "
               "exercises that have wrong variants)\n",
               json_object_size(wrong), students, n_ex, every, every);
    int status = print_time(book, secs, wrong, fs_exists(trace));     /* a trace: the GPU lock was taken */
    free(book);
    LockTraceSummary lt;
    if (grade_lock_trace_read(trace, &lt)) {   /* none: no GPU lock taken */
        grade_lock_trace_print(stdout, &lt, 8);
        grade_lock_trace_print_floor(stdout, &lt, students, 200);
    }
    free(trace);
    const char *keep = getenv("BENCH_GRADE_KEEP");
    if (keep && *keep && strcmp(keep, "0")) {
        printf("kept: %s (out/grade.db, out/gradebook.json)\n", tmpl);
    } else {
        char *rm = xasprintf("rm -rf '%s'", tmpl);
        if (system(rm) != 0) fprintf(stderr, "bench_grade: could not remove %s\n", tmpl);
        free(rm);
    }
    free(cmd);
    free(root);
    json_decref(wrong);
    course_free(&course);
    return status;
}
