/* app/grade_time.c: where a grading's time went, from a gradebook's
 * per-run "time" (gradebook.json; metrics.phases and metrics.gpu_lock of
 * each run): sums per exercise and for the whole class, and the table that
 * bench_grade and `cudojo grade` print (the exercises that held the GPU
 * alone longest, else those that ran longest), and the emulator check's
 * runs of GPU passes (emu_check_ms); and how far a kernel's timings spread
 * over a class that handed in the same files (grade_time_print_spread). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/class_report.h"
#include "app/grade.h"
#include "base/xalloc.h"

static double sec(const json_t *o, const char *k) { return json_number_value(json_object_get(o, k)) / 1e3; }

static void add(GradeTime *to, const GradeTime *t) {
    to->runs += t->runs;
    to->total_s += t->total_s;
    to->compile_s += t->compile_s;
    to->reference_s += t->reference_s;
    to->program_s += t->program_s;
    to->wait_s += t->wait_s;
    to->alone_s += t->alone_s;
    to->shared_s += t->shared_s;
    to->emu_check_s += t->emu_check_s;
    to->emu_checks += t->emu_checks;
    to->cpu_s += t->cpu_s;
    to->emu_check_cpu_s += t->emu_check_cpu_s;
}

static int by_cpu_then_id(const void *a, const void *b) {
    const GradeTime *x = a, *y = b;
    double cx = x->cpu_s + x->emu_check_cpu_s, cy = y->cpu_s + y->emu_check_cpu_s;
    if (cx != cy) return cx < cy ? 1 : -1;
    return strcmp(x->id, y->id);
}

static int by_shared_then_id(const void *a, const void *b) {
    const GradeTime *x = a, *y = b;
    if (x->shared_s != y->shared_s) return x->shared_s < y->shared_s ? 1 : -1;
    return strcmp(x->id, y->id);
}

static int by_alone_then_total(const void *a, const void *b) {
    const GradeTime *x = a, *y = b;
    if (x->alone_s != y->alone_s) return x->alone_s < y->alone_s ? 1 : -1;
    if (x->total_s != y->total_s) return x->total_s < y->total_s ? 1 : -1;
    return strcmp(x->id, y->id);
}

GradeTime *grade_time_collect(const json_t *book, int *n_out, GradeTime *all) {
    json_t *exs = json_object_get(book, "exercises"), *students = json_object_get(book, "students");
    size_t n = json_array_size(exs);
    GradeTime *t = xcalloc(n + 1, sizeof *t);
    memset(all, 0, sizeof *all);
    all->id = "all";
    for (size_t i = 0; i < n; i++) {
        t[i].id = json_string_value(json_object_get(json_array_get(exs, i), "id"));
        if (!t[i].id) t[i].id = "?";
        t[i].kind = json_string_value(json_object_get(json_array_get(exs, i), "kind"));
        size_t k;
        json_t *s;
        json_array_foreach(students, k, s) {
            json_t *tm = json_object_get(json_object_get(json_object_get(s, "exercises"), t[i].id), "time");
            if (!json_is_object(tm) || !json_object_size(tm)) continue;
            t[i].runs++;
            t[i].total_s += sec(tm, "total_ms");
            t[i].compile_s += sec(tm, "compile_ms");
            t[i].reference_s += sec(tm, "reference_ms");
            t[i].program_s += sec(tm, "program_ms");
            t[i].wait_s += sec(tm, "gpu_wait_ms");
            t[i].alone_s += sec(tm, "gpu_exclusive_ms");
            t[i].shared_s += sec(tm, "gpu_shared_ms");
            t[i].cpu_s += sec(tm, "cpu_ms");
            t[i].emu_check_cpu_s += sec(tm, "emu_check_cpu_ms");
            if (json_is_number(json_object_get(tm, "emu_check_ms"))) {
                t[i].emu_checks++;
                t[i].emu_check_s += sec(tm, "emu_check_ms");
            }
        }
        add(all, &t[i]);
    }
    qsort(t, n, sizeof *t, by_alone_then_total);
    *n_out = (int)n;
    return t;
}

void grade_time_print(FILE *out, const json_t *book, double wall_s, int top) {
    int n = 0;
    GradeTime all;
    GradeTime *t = grade_time_collect(book, &n, &all);
    fprintf(out, "time (summed over %d runs): %.1f s in the runs: compile %.1f s, CPU references %.1f s, whole "
                 "programs %.1f s\n",
            all.runs, all.total_s, all.compile_s, all.reference_s, all.program_s);
    /* NVRTC for kernel exercises, nvcc for programs: which compile to make cheaper. */
    double kc = 0, pc = 0;
    int kr = 0, pr = 0;
    for (int i = 0; i < n; i++) {
        bool prog = t[i].kind && !strcmp(t[i].kind, "program");
        if (!t[i].kind) continue;
        *(prog ? &pc : &kc) += t[i].compile_s;
        *(prog ? &pr : &kr) += t[i].runs;
    }
    if (kr + pr > 0)
        fprintf(out, "compile by kind: kernel exercises (NVRTC) %.1f s over %d runs (%.2f s per run), programs (nvcc) "
                     "%.1f s over %d runs (%.2f s per run)\n",
                kc, kr, kr ? kc / kr : 0.0, pc, pr, pr ? pc / pr : 0.0);
    if (all.emu_checks)
        fprintf(out, "emulator check (summed over %d GPU passes run again on the emulator, beside the GPU work): "
                     "%.1f s more\n",
                all.emu_checks, all.emu_check_s);
    if (all.alone_s + all.shared_s + all.wait_s > 0) {
        fprintf(out, "GPU lock (summed over the runs): held alone (timed) %.1f s, held shared %.1f s, waited %.1f s",
                all.alone_s, all.shared_s, all.wait_s);
        if (wall_s > 0)
            fprintf(out, "; timed work alone on the GPU for %.0f%% of the %.1f s", 100 * all.alone_s / wall_s, wall_s);
        if (all.alone_s > 0)
            fprintf(out, "; the timed sections alone allow at most %.2f runs/s", all.runs / all.alone_s);
        fputc('\n', out);
    } else {
        fprintf(out, "GPU lock: not taken (no GPU, or CUDOJO_GPU_LOCK_DIR unset)\n");
    }
    fprintf(out, "top exercises by %s (seconds summed over the runs):\n",
            all.alone_s > 0 ? "time alone on the GPU" : "run time");
    fprintf(out, "  %-26s %5s %8s %8s %8s %8s %8s %8s\n", "exercise", "runs", "alone", "shared", "waited", "compile",
            "ref", "total");
    for (int i = 0, shown = 0; i < n && shown < top; i++) {
        if (!t[i].runs) continue;
        fprintf(out, "  %-26s %5d %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f\n", t[i].id, t[i].runs, t[i].alone_s,
                t[i].shared_s, t[i].wait_s, t[i].compile_s, t[i].reference_s, t[i].total_s);
        shown++;
    }
    /* A timed section waits until every shared holder is done, and new
       shared takers queue behind it: the long shared holds are what the
       waiting is made of. */
    if (all.shared_s > 0) {
        qsort(t, (size_t)n, sizeof *t, by_shared_then_id);
        fprintf(out, "held shared longest (a timed section waits for these, and work queues behind it):\n");
        for (int i = 0, shown = 0; i < n && shown < top && t[i].shared_s > 0; i++, shown++)
            fprintf(out, "  %-26s %5d %8.2f s shared, %.2f s per run\n", t[i].id, t[i].runs, t[i].shared_s,
                    t[i].shared_s / t[i].runs);
    }
    /* The cores: where a grading that keeps them busy spends them. */
    if (all.cpu_s + all.emu_check_cpu_s > 0) {
        qsort(t, (size_t)n, sizeof *t, by_cpu_then_id);
        fprintf(out, "CPU of the runs: %.1f s, and %.1f s of their emulator checks; the most (run + check, its "
                     "compile inside):\n",
                all.cpu_s, all.emu_check_cpu_s);
        for (int i = 0, shown = 0; i < n && shown < top && t[i].cpu_s + t[i].emu_check_cpu_s > 0; i++, shown++)
            fprintf(out, "  %-26s %5d %8.2f s + %6.2f s, %.2f s per run, compile %.2f s per run\n", t[i].id, t[i].runs,
                    t[i].cpu_s, t[i].emu_check_cpu_s, (t[i].cpu_s + t[i].emu_check_cpu_s) / t[i].runs,
                    t[i].compile_s / t[i].runs);
    }
    free(t);
}

/* ---- the spread of timings ---- */

typedef struct Spread {
    const char *id;
    int runs;
    double median, min, max, spread;
} Spread;

static int by_spread_then_id(const void *a, const void *b) {
    const Spread *x = a, *y = b;
    if (x->spread != y->spread) return x->spread < y->spread ? 1 : -1;
    return strcmp(x->id, y->id);
}

int grade_time_print_spread(FILE *out, const json_t *book, const json_t *skip, int top) {
    json_t *exs = json_object_get(book, "exercises"), *students = json_object_get(book, "students");
    size_t n_ex = json_array_size(exs), n_st = json_array_size(students);
    Spread *sp = xcalloc(n_ex + 1, sizeof *sp);
    double *ms = xcalloc(n_st + 1, sizeof *ms);
    int n = 0;
    for (size_t i = 0; i < n_ex; i++) {
        json_t *ex = json_array_get(exs, i);
        const char *id = json_string_value(json_object_get(ex, "id"));
        const char *kind = json_string_value(json_object_get(ex, "kind"));
        if (!id || (kind && strcmp(kind, "kernel"))) continue;
        int k = 0;
        size_t j;
        json_t *st;
        json_array_foreach(students, j, st) {
            json_t *r = json_object_get(json_object_get(st, "exercises"), id);
            double t = json_number_value(json_object_get(r, "kernel_ms"));
            const char *verdict = json_string_value(json_object_get(r, "verdict"));
            if (!(t > 0) || !verdict || strcmp(verdict, "pass")) continue;
            if (skip) {
                char *key = xasprintf("%s/%s", json_string_value(json_object_get(st, "student")), id);
                bool skipped = json_object_get(skip, key) != NULL;
                free(key);
                if (skipped) continue;
            }
            ms[k++] = t;
        }
        if (k < GRADE_SPREAD_MIN_RUNS) continue;
        double med = class_median(ms, k);      /* sorts ms: its ends are the min and max */
        sp[n++] = (Spread){.id = id, .runs = k, .median = med, .min = ms[0], .max = ms[k - 1],
                           .spread = (ms[k - 1] - ms[0]) / med};
    }
    if (n > 0) {
        double *all = xcalloc((size_t)n, sizeof *all);
        for (int i = 0; i < n; i++) all[i] = sp[i].spread;
        double med = class_median(all, n);
        free(all);
        qsort(sp, (size_t)n, sizeof *sp, by_spread_then_id);
        fprintf(out, "timings under load: %d timed kernel exercises, each file the same for every student: the spread "
                     "(max - min) / median of kernel_ms is %.1f%% at the median; the widest:\n",
                n, 100 * med);
        for (int i = 0; i < n && i < top; i++)
            fprintf(out, "  %-26s %5d runs %9.4f ms median, %.4f .. %.4f ms: %.1f%%\n", sp[i].id, sp[i].runs,
                    sp[i].median, sp[i].min, sp[i].max, 100 * sp[i].spread);
    }
    free(ms);
    free(sp);
    return n;
}
