/* app/class_report.c: the class report's statistics, computed from a
 * gradebook (shapes in class_report.h), and the gradebook read from a
 * grading database or a gradebook.json. A gradebook is read as its writer
 * promised, but a field missing or of the wrong type in one student is
 * treated as absent, never as a crash: a merged or hand-edited gradebook
 * still gives a report. */
#include "app/class_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"
#include "progress-db/gradedb.h"

#define CLASS_REPORT_FORMAT_VERSION 1

void class_report_format_duration(char *buf, size_t n, double ms) {
    long s = (long)(ms / 1000 + 0.5);
    if (s < 60) snprintf(buf, n, "%lds", s);
    else if (s < 3600) snprintf(buf, n, "%ldm%02lds", s / 60, s % 60);
    else if (s < 86400) snprintf(buf, n, "%ldh%02ldm", s / 3600, (s / 60) % 60);
    else snprintf(buf, n, "%ldd%02ldh", s / 86400, (s / 3600) % 24);
}

/* The failure kinds grade_failure_kind (app/grade_run.c) writes, the
 * gradebook's own (missing, not-graded) and the verdicts that stand in
 * for a kind, in words. */
static const struct {
    const char *id, *words;
} KIND_WORDS[] = {
    {"compile-error", N_("compile error")},   {"out-of-bounds", N_("out of bounds")},
    {"race", N_("race")},                     {"barrier", N_("barrier misuse")},
    {"uninitialised", N_("uninitialised read")}, {"misaligned", N_("misaligned access")},
    {"wrong-result", N_("wrong result")},
    {"too-slow", N_("too slow")},             {"timeout", N_("timed out")},
    {"crash", N_("crashed")},                 {"runtime-error", N_("runtime error")},
    {"no-launch", N_("no kernel launched")},  {"exercise-error", N_("exercise error")},
    {"other", N_("other failure")},           {"missing", N_("not submitted")},
    {"not-graded", N_("not graded")},         {"fail", N_("failed")},
    {"cancelled", N_("cancelled")},
};

const char *class_report_kind_words(const char *kind) {
    for (size_t i = 0; kind && i < sizeof KIND_WORDS / sizeof KIND_WORDS[0]; i++)
        if (!strcmp(KIND_WORDS[i].id, kind)) return KIND_WORDS[i].words;
    return kind;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double class_median(double *v, int n) {
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A number field (integer or real), or `dflt` when absent or not a number. */
static double num_field(const json_t *o, const char *key, double dflt) {
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

static const char *str_field(const json_t *o, const char *key) {
    return json_string_value(json_object_get(o, key));
}

/* {"median": x or null, "n": n}; sorts v. */
static json_t *median_json(double *v, int n) {
    json_t *o = json_object();
    json_object_set_new(o, "median", n > 0 ? json_real(class_median(v, n)) : json_null());
    json_object_set_new(o, "n", json_integer(n));
    return o;
}

/* A growable list of (kind, count), kept by first appearance; sorted at the end. */
typedef struct KindCount {
    const char *kind;   /* borrowed from the gradebook */
    int count;
} KindCount;

static void kind_add(KindCount **list, int *n, const char *kind) {
    for (int i = 0; i < *n; i++)
        if (!strcmp((*list)[i].kind, kind)) {
            (*list)[i].count++;
            return;
        }
    *list = xrealloc(*list, (size_t)(*n + 1) * sizeof **list);
    (*list)[(*n)++] = (KindCount){kind, 1};
}

static int cmp_kind(const void *a, const void *b) {
    const KindCount *x = a, *y = b;
    if (x->count != y->count) return y->count - x->count;
    return strcmp(x->kind, y->kind);
}

/* The progress export's entry for one exercise, NULL when none. */
static const json_t *progress_exercise(const json_t *progress, const char *id) {
    const json_t *list = json_object_get(progress, "exercises");
    size_t i;
    const json_t *e;
    json_array_foreach(list, i, e) {
        const char *eid = str_field(e, "id");
        if (eid && !strcmp(eid, id)) return e;
    }
    return NULL;
}

/* Attempts up to and including the first pass: every attempt recorded no
 * later than first_pass_unix_ms. -1 when the export cannot say (never
 * passed, no attempt list). */
static int attempts_to_pass(const json_t *pe) {
    if (!json_is_true(json_object_get(pe, "passed"))) return -1;
    const json_t *fp = json_object_get(pe, "first_pass_unix_ms");
    const json_t *list = json_object_get(pe, "attempts");
    if (!json_is_number(fp) || !json_is_array(list)) return -1;
    double first_pass = json_number_value(fp);
    int n = 0;
    size_t i;
    const json_t *a;
    json_array_foreach(list, i, a) {
        const json_t *when = json_object_get(a, "when_unix_ms");
        if (json_is_number(when) && json_number_value(when) <= first_pass) n++;
    }
    return n > 0 ? n : -1;
}

/* first_seen -> first_pass in ms, -1 when unknown. */
static double time_to_pass_ms(const json_t *pe) {
    if (!json_is_true(json_object_get(pe, "passed"))) return -1;
    double seen = num_field(pe, "first_seen_unix_ms", -1), pass = num_field(pe, "first_pass_unix_ms", -1);
    if (seen < 0 || pass < seen) return -1;
    return pass - seen;
}

static bool has_progress(const json_t *student) {
    const json_t *p = json_object_get(student, "progress");
    return json_is_object(p) && json_is_array(json_object_get(p, "exercises"));
}

/* The statistics of exercise `ex` over every student. */
static json_t *exercise_report(const json_t *ex, const json_t *students, const json_t *similarity) {
    const char *id = str_field(ex, "id");
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(id));
    const char *keys[] = {"chapter", "title", "points", "kind"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        json_t *v = json_object_get(ex, keys[k]);
        json_object_set(o, keys[k], v ? v : json_null());
    }
    size_t n_students = json_array_size(students);
    int passed = 0, fast = 0, with_progress = 0, n_att = 0, n_time = 0, n_kinds = 0, lucky = 0;
    double *att = xcalloc(n_students + 1, sizeof *att), *ttp = xcalloc(n_students + 1, sizeof *ttp);
    KindCount *kinds = NULL;
    size_t i;
    const json_t *st;
    json_array_foreach(students, i, st) {
        const json_t *run = json_object_get(json_object_get(st, "exercises"), id);
        const char *verdict = str_field(run, "verdict");
        if (verdict && !strcmp(verdict, "pass")) {
            passed++;
            fast += json_is_true(json_object_get(run, "fast"));
        } else {
            /* No verdict: grading stopped before this run (or the exercise is newer than the gradebook). */
            const char *kind = str_field(run, "failure_kind");
            kind_add(&kinds, &n_kinds, kind ? kind : verdict ? verdict : "not-graded");
            /* a GPU pass the emulator found a bug in (cudojo grade --emu-check) */
            lucky += json_is_true(json_object_get(json_object_get(run, "emulator_check"), "overturned"));
        }
        if (!has_progress(st)) continue;
        const json_t *pe = progress_exercise(json_object_get(st, "progress"), id);
        if (!pe) continue;
        with_progress++;
        int a = attempts_to_pass(pe);
        if (a > 0) att[n_att++] = a;
        double t = time_to_pass_ms(pe);
        if (t >= 0) ttp[n_time++] = t;
    }
    json_object_set_new(o, "students", json_integer((json_int_t)n_students));
    json_object_set_new(o, "passed", json_integer(passed));
    json_object_set_new(o, "pass_rate", json_real(n_students ? (double)passed / (double)n_students : 0));
    json_object_set_new(o, "passed_fast", json_integer(fast));
    json_object_set_new(o, "fast_rate", json_real(n_students ? (double)fast / (double)n_students : 0));
    json_object_set_new(o, "progress_students", json_integer(with_progress));
    json_object_set_new(o, "attempts_to_pass", median_json(att, n_att));
    json_object_set_new(o, "time_to_pass_ms", median_json(ttp, n_time));
    if (n_kinds) qsort(kinds, (size_t)n_kinds, sizeof *kinds, cmp_kind);
    json_t *fl = json_array();
    for (int k = 0; k < n_kinds; k++) {
        json_t *f = json_object();
        json_object_set_new(f, "kind", json_string(kinds[k].kind));
        json_object_set_new(f, "count", json_integer(kinds[k].count));
        json_array_append_new(fl, f);
    }
    json_object_set_new(o, "failures", fl);
    json_object_set_new(o, "passed_on_gpu_by_luck", json_integer(lucky));
    int groups = 0;
    const json_t *g;
    json_array_foreach(similarity, i, g) {
        const char *gex = str_field(g, "exercise");
        groups += gex && !strcmp(gex, id) && !json_is_true(json_object_get(g, "common"));
    }
    json_object_set_new(o, "similar_groups", json_integer(groups));
    free(kinds);
    free(att);
    free(ttp);
    return o;
}

/* The course's total: the sum of the exercises' points. */
static double course_max_total(const json_t *exercises) {
    double sum = 0;
    size_t i;
    const json_t *ex;
    json_array_foreach(exercises, i, ex) sum += num_field(ex, "points", 1);
    return sum;
}

/* Score summary, histogram and problems of the class, set on `report`. */
static void class_scores(json_t *report, const json_t *students, const json_t *exercises) {
    size_t n = json_array_size(students);
    double course_max = course_max_total(exercises);
    double *totals = xcalloc(n + 1, sizeof *totals);
    int bins[CLASS_REPORT_BINS] = {0};
    double sum = 0, lo = 0, hi = 0;
    int with_progress = 0, with_problems = 0;
    json_t *problems = json_array();
    size_t i;
    const json_t *st;
    json_array_foreach(students, i, st) {
        double total = num_field(st, "total", 0);
        double max_total = num_field(st, "max_total", course_max);
        if (!(max_total > 0)) max_total = course_max;
        double frac = max_total > 0 ? total / max_total : 0;
        if (!(frac >= 0)) frac = 0;   /* NaN too */
        if (frac > 1) frac = 1;
        int b = (int)floor(frac * CLASS_REPORT_BINS);
        bins[b >= CLASS_REPORT_BINS ? CLASS_REPORT_BINS - 1 : b]++;
        totals[i] = total;
        sum += total;
        if (i == 0 || total < lo) lo = total;
        if (i == 0 || total > hi) hi = total;
        with_progress += has_progress(st);
        const json_t *pl = json_object_get(st, "problems");
        with_problems += json_array_size(pl) > 0;
        size_t k;
        const json_t *p;
        json_array_foreach(pl, k, p) {
            if (!json_is_string(p)) continue;
            json_t *o = json_object();
            json_t *name = json_object_get(st, "student");
            json_object_set(o, "student", json_is_string(name) ? name : json_null());
            json_object_set(o, "problem", (json_t *)p);
            json_array_append_new(problems, o);
        }
    }
    json_object_set_new(report, "students", json_integer((json_int_t)n));
    json_object_set_new(report, "students_with_progress", json_integer(with_progress));
    json_object_set_new(report, "students_with_problems", json_integer(with_problems));
    if (n) {
        json_t *score = json_object();
        json_object_set_new(score, "max_total", json_real(course_max));
        json_object_set_new(score, "mean", json_real(sum / (double)n));
        json_object_set_new(score, "median", json_real(class_median(totals, (int)n)));
        json_object_set_new(score, "min", json_real(lo));
        json_object_set_new(score, "max", json_real(hi));
        json_object_set_new(report, "score", score);
    } else {
        json_object_set_new(report, "score", json_null());
    }
    json_t *hist = json_array();
    for (int b = 0; b < CLASS_REPORT_BINS; b++) {
        json_t *o = json_object();
        json_object_set_new(o, "from", json_real((double)b / CLASS_REPORT_BINS));
        json_object_set_new(o, "to", json_real((double)(b + 1) / CLASS_REPORT_BINS));
        json_object_set_new(o, "count", json_integer(bins[b]));
        json_array_append_new(hist, o);
    }
    json_object_set_new(report, "histogram", hist);
    json_object_set_new(report, "problems", problems);
    free(totals);
}

/* NULL when g is a gradebook this build reads, else why not. */
static Diag *check_gradebook(const json_t *g, const char *source) {
    const char *src = source ? source : N_("the gradebook");
    const char *format = str_field(g, "format");
    if (!json_is_object(g) || !format || strcmp(format, "cudojo-gradebook"))
        return diag_new(DIAG_ERROR, "gradebook", source, 0, 0,
                        N_("%s is not a cudojo gradebook (no \"format\": \"cudojo-gradebook\")"), src);
    double v = num_field(g, "format_version", -1);
    if (v < 1)
        return diag_new(DIAG_ERROR, "gradebook", source, 0, 0, N_("%s has no valid \"format_version\""), src);
    if (v > CLASS_REPORT_FORMAT_VERSION)
        return diag_new(DIAG_ERROR, "gradebook", source, 0, 0,
                        N_("%s is format version %.0f, written by a newer cudojo (this one reads version %d)"), src, v,
                        CLASS_REPORT_FORMAT_VERSION);
    const json_t *ex = json_object_get(g, "exercises"), *st = json_object_get(g, "students");
    if (!json_is_array(ex) || !json_is_array(st))
        return diag_new(DIAG_ERROR, "gradebook", source, 0, 0,
                        N_("%s has no \"exercises\" or \"students\" list"), src);
    size_t i;
    const json_t *e;
    json_array_foreach(ex, i, e) {
        if (!str_field(e, "id"))
            return diag_new(DIAG_ERROR, "gradebook", source, 0, 0, N_("%s: exercise %zu has no \"id\""), src, i + 1);
    }
    json_array_foreach(st, i, e) {
        if (!json_is_object(e))
            return diag_new(DIAG_ERROR, "gradebook", source, 0, 0, N_("%s: student %zu is not an object"), src, i + 1);
    }
    return NULL;
}

Diag *class_report_compute(const json_t *gradebook, const char *source, json_t **out) {
    *out = NULL;
    Diag *d = check_gradebook(gradebook, source);
    if (d) return d;
    const json_t *exercises = json_object_get(gradebook, "exercises");
    const json_t *students = json_object_get(gradebook, "students");
    json_t *similarity = json_object_get(gradebook, "similarity");
    json_t *r = json_object();
    json_object_set_new(r, "format", json_string("cudojo-class-report"));
    json_object_set_new(r, "format_version", json_integer(CLASS_REPORT_FORMAT_VERSION));
    const char *keys[] = {"course_version", "backend", "generated_unix_ms"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        json_t *v = json_object_get(gradebook, keys[k]);
        json_object_set(r, keys[k], v ? v : json_null());
    }
    class_scores(r, students, exercises);
    json_t *list = json_array();
    size_t i;
    const json_t *ex;
    json_array_foreach(exercises, i, ex) json_array_append_new(list, exercise_report(ex, students, similarity));
    json_object_set_new(r, "exercises", list);
    json_object_set_new(r, "similarity", json_is_array(similarity) ? json_deep_copy(similarity) : json_array());
    *out = r;
    return NULL;
}

/* The largest gradebook.json read (a class of thousands is a few MB). */
#define CLASS_GRADEBOOK_MAX ((size_t)512 << 20)

static Diag *load_gradedb(const char *path, json_t **out) {
    GradeDb *db = NULL;
    Diag *d = gradedb_open_readonly(path, &db);
    if (d) return d;
    d = gradedb_export_json(db, out);
    gradedb_close(&db);
    return d;
}

static Diag *load_json(const char *path, json_t **out) {
    char *text = NULL;
    size_t len = 0;
    Diag *d = fs_read_file_max(path, CLASS_GRADEBOOK_MAX, &text, &len);
    if (d) return d;
    json_error_t err;
    *out = json_loadb(text, len, 0, &err);
    free(text);
    if (!*out)
        return diag_new(DIAG_ERROR, "gradebook", path, err.line, err.column,
                        N_("not a grading database, and not valid JSON: %s"), err.text);
    return NULL;
}

Diag *class_report_load(const char *arg, json_t **out, char **source) {
    *out = NULL;
    *source = NULL;
    if (fs_is_dir(arg)) {
        char *db = path_join(arg, "grade.db"), *js = path_join(arg, "gradebook.json");
        if (fs_exists(db)) {
            *source = db;
            free(js);
        } else if (fs_exists(js)) {
            *source = js;
            free(db);
        } else {
            free(db);
            free(js);
            return diag_new(DIAG_ERROR, "gradebook", arg, 0, 0,
                            N_("%s holds neither grade.db nor gradebook.json (the output of `cudojo grade --out DIR`)"),
                            arg);
        }
    } else {
        *source = xstrdup(arg);
    }
    FILE *f = fopen(*source, "rb");
    if (!f) return diag_new(DIAG_ERROR, "io", *source, 0, 0, N_("cannot open %s: %s"), *source, strerror(errno));
    char head[16] = {0};
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    if (got == sizeof head && !memcmp(head, "SQLite format 3", 16)) return load_gradedb(*source, out);
    return load_json(*source, out);
}
