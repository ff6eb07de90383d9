/* app/tui/tui_class_render.c: the class report as styled text (see
 * tui_class.h), shared by `cudojo class report` on a terminal and the
 * workbench's class screen. Fits 80 columns; narrower screens cut the
 * exercise ids and the histogram bars. */
#include "app/tui/tui_class.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/class_report.h"
#include "base/bytes.h"
#include "base/i18n.h"
#include "base/xalloc.h"

static double num(const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : 0;
}

/* Text a submission chose, safe for a terminal. Caller frees. */
static char *shown(const json_t *v) {
    const char *s = json_string_value(v);
    char *p = bytes_printable(s ? s : "?");
    for (char *q = p; *q; q++)
        if (*q == '\n' || *q == '\t') *q = ' ';
    return p;
}

static int rate_role(double r) { return r >= 0.8 ? ROLE_PASS : r >= 0.5 ? ROLE_WARN : ROLE_FAIL; }

/* A bar of `frac` of `w` columns: eighth blocks in UTF-8, '#' in ASCII. */
static void bar(TextLine *l, double frac, int w, bool utf8) {
    static const char *const EIGHTHS[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    int eighths = (int)lround(frac * w * 8);
    int used = 0;
    if (utf8) {
        for (; eighths >= 8; eighths -= 8, used++) text_line_add(l, ROLE_BAR_DONE, "█");
        if (eighths > 0) {
            text_line_add(l, ROLE_BAR_DONE, EIGHTHS[eighths]);
            used++;
        }
    } else {
        for (int k = (eighths + 4) / 8; k > 0; k--, used++) text_line_add(l, ROLE_BAR_DONE, "#");
    }
    if (used < w) text_line_addf(l, ROLE_NORMAL, "%*s", w - used, "");
}

static void render_summary(TextDoc *doc, const json_t *r, bool utf8) {
    const char *dot = utf8 ? " · " : " - ";
    TextLine *l = text_doc_add_line(doc);
    int n = (int)num(r, "students");
    text_line_addf(l, ROLE_H1, P_(n, "Class report: %d student", "Class report: %d students"), n);
    const char *backend = json_string_value(json_object_get(r, "backend"));
    if (backend) {
        char *b = shown(json_object_get(r, "backend"));
        text_line_addf(l, ROLE_DIM, _("%sgraded on %s"), dot, b);
        free(b);
    }
    if (json_string_value(json_object_get(r, "course_version"))) {
        char *cv = shown(json_object_get(r, "course_version"));
        text_line_addf(l, ROLE_DIM, _("%scourse %.12s"), dot, cv);
        free(cv);
    }
    const json_t *score = json_object_get(r, "score");
    l = text_doc_add_line(doc);
    if (json_is_object(score)) {
        text_line_add(l, ROLE_NORMAL, _("Scores: mean "));
        text_line_addf(l, ROLE_BOLD, "%.2f", num(score, "mean"));
        text_line_addf(l, ROLE_NORMAL, _("%smedian "), dot);
        text_line_addf(l, ROLE_BOLD, "%.2f", num(score, "median"));
        text_line_addf(l, ROLE_NORMAL, _("%slowest %g%shighest %g%sof %g points"), dot, num(score, "min"), dot,
                       num(score, "max"), dot, num(score, "max_total"));
    } else {
        text_line_add(l, ROLE_WARN, _("No students in this gradebook."));
    }
    l = text_doc_add_line(doc);
    text_line_addf(l, ROLE_DIM, _("%.0f with progress records%s"), num(r, "students_with_progress"), dot);
    int problems = (int)num(r, "students_with_problems");
    text_line_addf(l, problems ? ROLE_WARN : ROLE_DIM, _("%d with problems"), problems);
}

static void render_histogram(TextDoc *doc, const json_t *hist, int width, bool utf8) {
    text_doc_add_line(doc);
    text_doc_add_text(doc, ROLE_H2, _("Scores (share of the points)"));
    int max = 0;
    size_t i;
    const json_t *b;
    json_array_foreach(hist, i, b) if (num(b, "count") > max) max = (int)num(b, "count");
    int bw = width - 20;
    if (bw > 50) bw = 50;
    if (bw < 5) bw = 5;
    json_array_foreach(hist, i, b) {
        TextLine *l = text_doc_add_line(doc);
        char label[32];
        snprintf(label, sizeof label, "%3.0f%s%.0f%%", num(b, "from") * 100, utf8 ? "–" : "-", num(b, "to") * 100);
        text_line_add(l, ROLE_NORMAL, "  ");
        text_line_add_cell(l, ROLE_DIM, label, 8, false);
        text_line_add(l, ROLE_NORMAL, " ");
        int count = (int)num(b, "count");
        bar(l, max ? (double)count / max : 0, bw, utf8);
        text_line_addf(l, count ? ROLE_BOLD : ROLE_DIM, " %4d", count);
    }
}

/* "kind 4, kind 2, kind 1 (+N more)" within `cols` columns. */
static void render_failures(TextDoc *doc, const json_t *failures, int width, bool utf8) {
    if (json_array_size(failures) == 0) return;
    TextLine *l = text_doc_add_line(doc);
    text_line_add(l, ROLE_DIM, _("    failed: "));
    int used = text_width(_("    failed: "));
    size_t i;
    const json_t *f;
    json_array_foreach(failures, i, f) {
        /* a kind in words in the language shown; one this build does not know, as the gradebook has it */
        const char *id = json_string_value(json_object_get(f, "kind"));
        const char *words = class_report_kind_words(id);
        char *kind = words && words != id ? xstrdup(_(words)) : shown(json_object_get(f, "kind"));
        char item[160];
        snprintf(item, sizeof item, "%s%s %.0f", i ? (utf8 ? " · " : ", ") : "", kind, num(f, "count"));
        free(kind);
        int w = text_width(item);
        size_t left = json_array_size(failures) - i;
        if (i > 0 && used + w > width - 12) {
            text_line_addf(l, ROLE_DIM, _(" (+%zu more)"), left);
            break;
        }
        text_line_add(l, ROLE_WARN, item);
        used += w;
    }
}

static void render_exercises(TextDoc *doc, const json_t *exercises, int width, bool utf8) {
    text_doc_add_line(doc);
    text_doc_add_text(doc, ROLE_H2, _("Exercises"));
    int id_w = 10;
    size_t i;
    const json_t *ex;
    json_array_foreach(exercises, i, ex) {
        const char *id = json_string_value(json_object_get(ex, "id"));
        int w = id ? text_width(id) : 1;
        if (w > id_w) id_w = w;
    }
    int room = width - 2 - 12 - 6 - 12 - 15 - 1;
    if (id_w > room) id_w = room > 6 ? room : 6;
    TextLine *h = text_doc_add_line(doc);
    text_line_add(h, ROLE_NORMAL, "  ");
    text_line_add_cell(h, ROLE_DIM, _("exercise"), id_w, false);
    text_line_add_cell(h, ROLE_DIM, _("passed"), 12, true);
    text_line_add_cell(h, ROLE_DIM, _("fast"), 6, true);
    text_line_add_cell(h, ROLE_DIM, _("attempts"), 12, true);
    text_line_add_cell(h, ROLE_DIM, _("to pass"), 15, true);
    json_array_foreach(exercises, i, ex) {
        TextLine *l = text_doc_add_line(doc);
        text_line_add(l, ROLE_NORMAL, "  ");
        char *id = shown(json_object_get(ex, "id"));
        text_line_add_cell(l, ROLE_BOLD, id, id_w, false);
        free(id);
        char buf[64];
        double rate = num(ex, "pass_rate");
        snprintf(buf, sizeof buf, "%.0f/%.0f %3.0f%%", num(ex, "passed"), num(ex, "students"), rate * 100);
        text_line_add_cell(l, rate_role(rate), buf, 12, true);
        snprintf(buf, sizeof buf, "%.0f%%", num(ex, "fast_rate") * 100);
        text_line_add_cell(l, ROLE_NORMAL, buf, 6, true);
        const json_t *a = json_object_get(ex, "attempts_to_pass"), *t = json_object_get(ex, "time_to_pass_ms");
        if (json_is_number(json_object_get(a, "median")))
            snprintf(buf, sizeof buf, "%g (n=%.0f)", num(a, "median"), num(a, "n"));
        else snprintf(buf, sizeof buf, "%s", utf8 ? "—" : "-");
        text_line_add_cell(l, ROLE_NORMAL, buf, 12, true);
        if (json_is_number(json_object_get(t, "median"))) {
            char d[32];
            class_report_format_duration(d, sizeof d, num(t, "median"));
            snprintf(buf, sizeof buf, "%s (n=%.0f)", d, num(t, "n"));
        } else {
            snprintf(buf, sizeof buf, "%s", utf8 ? "—" : "-");
        }
        text_line_add_cell(l, ROLE_NORMAL, buf, 15, true);
        render_failures(doc, json_object_get(ex, "failures"), width, utf8);
        int groups = (int)num(ex, "similar_groups");
        if (groups > 0)
            text_doc_addf(doc, ROLE_NOTE, P_(groups, "    %d group of similar submissions", "    %d groups of similar submissions"), groups);
    }
    text_doc_add_text(doc, ROLE_DIM, _("  attempts and time to pass: medians over the students whose progress"));
    text_doc_add_text(doc, ROLE_DIM, _("  records show a pass (n of them); fast: passed meeting every stretch goal"));
}

/* Appends para wrapped to width as a list item ("  " first, "    " after) and
 * finishes it. */
static void wrap_item(TextDoc *doc, TextLine *para, int width) {
    TextLine first = {0}, rest = {0};
    text_line_add(&first, ROLE_NORMAL, "  ");
    text_line_add(&rest, ROLE_NORMAL, "    ");
    text_wrap(doc, para, width, &first, &rest);
    text_line_fini(para);
    text_line_fini(&first);
    text_line_fini(&rest);
}

static void render_similarity(TextDoc *doc, const json_t *groups, int width) {
    if (json_array_size(groups) == 0) return;
    text_doc_add_line(doc);
    text_doc_add_text(doc, ROLE_H2, _("Similar submissions (same code of their own, up to names and spacing)"));
    size_t i;
    const json_t *g;
    int listed = 0;
    json_array_foreach(groups, i, g) {
        if (json_is_true(json_object_get(g, "common"))) {
            char *ex = shown(json_object_get(g, "exercise"));
            text_doc_addf(doc, ROLE_DIM, _("  %s: %zu of %.0f submissions are the common solution"), ex,
                          json_array_size(json_object_get(g, "students")), num(g, "submissions"));
            free(ex);
            continue;
        }
        listed++;
        TextLine para = {0};
        char *ex = shown(json_object_get(g, "exercise"));
        text_line_addf(&para, ROLE_BOLD, "%s", ex);
        free(ex);
        text_line_add(&para, ROLE_NORMAL, ": ");
        size_t k;
        const json_t *s;
        json_array_foreach(json_object_get(g, "students"), k, s) {
            char *name = shown(s);
            text_line_addf(&para, ROLE_NORMAL, "%s%s", k ? ", " : "", name);
            free(name);
        }
        if (json_is_true(json_object_get(g, "near")))
            text_line_addf(&para, ROLE_DIM, _(" (near-duplicates, %.0f%% shared)"), num(g, "similarity") * 100);
        else if (json_is_number(json_object_get(g, "tokens")))
            text_line_addf(&para, ROLE_DIM, _(" (%.0f tokens)"), num(g, "tokens"));
        wrap_item(doc, &para, width);
    }
    if (!listed) text_doc_add_text(doc, ROLE_DIM, _("  no group besides the common solutions"));
}

static void render_problems(TextDoc *doc, const json_t *problems, int width) {
    if (json_array_size(problems) == 0) return;
    text_doc_add_line(doc);
    text_doc_add_text(doc, ROLE_H2, _("Problems with submissions"));
    size_t i;
    const json_t *p;
    json_array_foreach(problems, i, p) {
        TextLine para = {0};
        char *name = shown(json_object_get(p, "student")), *what = shown(json_object_get(p, "problem"));
        text_line_add(&para, ROLE_BOLD, name);
        text_line_add(&para, ROLE_NORMAL, ": ");
        text_line_add(&para, ROLE_NORMAL, what);
        free(name);
        free(what);
        wrap_item(doc, &para, width);
    }
}

void class_report_render(TextDoc *doc, const json_t *report, int width, bool utf8) {
    if (width < 40) width = 40;
    render_summary(doc, report, utf8);
    render_histogram(doc, json_object_get(report, "histogram"), width, utf8);
    render_exercises(doc, json_object_get(report, "exercises"), width, utf8);
    render_similarity(doc, json_object_get(report, "similarity"), width);
    render_problems(doc, json_object_get(report, "problems"), width);
}
