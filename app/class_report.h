/* app/class_report.h: where a class struggles, computed from a gradebook
 * (the cudojo-gradebook JSON of grade-design.md, as gradedb_export_json
 * returns it or `cudojo grade` writes it to gradebook.json).
 *
 * Per exercise: pass rate, passed-fast rate, median attempts and median
 * time to pass (from each student's progress export: the attempts up to and
 * including the first pass, and first_seen -> first_pass), the failure
 * kinds with counts; for the class: count, mean and median score and a
 * 10-bin histogram of total/max_total. The functions are pure over json_t;
 * app/cmd_class.c and the workbench screen (app/tui/tui_class.c) show the
 * result. The report is JSON too (`cudojo class report --json`):
 *
 * {"format": "cudojo-class-report", "format_version": 1,
 *  "course_version", "backend", "generated_unix_ms"   (the gradebook's),
 *  "students": N, "students_with_progress": N, "students_with_problems": N,
 *  "score": {"max_total", "mean", "median", "min", "max"}      (null when no students),
 *  "histogram": [{"from": 0.0, "to": 0.1, "count": N} x 10]   (fractions of max_total; the last bin holds 1.0),
 *  "exercises": [{"id", "chapter", "title", "points", "kind", "students",
 *                 "passed", "pass_rate", "passed_fast", "fast_rate",
 *                 "progress_students"  (students whose progress export has the exercise),
 *                 "attempts_to_pass": {"median" (null when n = 0), "n"},
 *                 "time_to_pass_ms": {"median", "n"},
 *                 "failures": [{"kind", "count"}]   (most common first; the run's
 *                              failure_kind, else its verdict, else "not-graded"),
 *                 "passed_on_gpu_by_luck": N  (of those failures: GPU passes the emulator
 *                              found a bug in, `cudojo grade --emu-check`),
 *                 "similar_groups": N  (groups not marked "common")}],
 *  "problems": [{"student", "problem"}],
 *  "similarity": the gradebook's "similarity" array}
 * Student names and every other string come from submissions: hostile
 * input, escaped by whoever shows them. */
#ifndef CUDOJO_APP_CLASS_REPORT_H
#define CUDOJO_APP_CLASS_REPORT_H

#include <jansson.h>

#include "base/diag.h"

#define CLASS_REPORT_BINS 10

/* The gradebook behind `arg`: a grading database (told by its SQLite
 * header, not its name; opened read only and exported with
 * gradedb_export_json), a gradebook.json, or a `cudojo grade --out` folder
 * holding grade.db or gradebook.json. *out a new reference, *source the
 * path read (caller frees; set when known, also on failure). */
Diag *class_report_load(const char *arg, json_t **out, char **source);

/* Computes the report of `gradebook`. `source` names where it came from
 * (a path) for the Diag when it is not a gradebook this cudojo reads. On
 * success *out is a new reference; on failure NULL. */
Diag *class_report_compute(const json_t *gradebook, const char *source, json_t **out);

/* The median of v[0..n) (v is sorted in place); the mean of the middle two
 * when n is even; 0 when n is 0. */
double class_median(double *v, int n);

/* "45s", "12m30s", "2h05m", "3d04h": a duration for people, into buf. */
void class_report_format_duration(char *buf, size_t n, double ms);
/* A failure kind id of the gradebook (grade_failure_kind's "out-of-bounds",
 * "wrong-result", ..., "missing", "not-graded") in English words, marked
 * for the catalogue: show it with _(). An unknown id is returned as is. */
const char *class_report_kind_words(const char *kind);

/* The report as one self-contained HTML page: inline CSS and SVG, no
 * scripts, nothing fetched, every string escaped. Caller frees. */
char *class_report_html(const json_t *report);
/* class_report_html written atomically to path. */
Diag *class_report_write_html(const json_t *report, const char *path);

#endif
