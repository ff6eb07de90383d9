/* app/class_report_html.c: the class report as one self-contained HTML page
 * for the instructor's browser: inline CSS, inline SVG bars (the score
 * histogram, each exercise's pass and passed-fast rates), no script and
 * nothing fetched, so it opens from a file or a mail attachment. Student
 * names, problems and every other string are HTML-escaped: a submission
 * chooses them. */
#include "app/class_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

/* Appends s with & < > " ' escaped; control characters (but tab and
 * newline) become U+FFFD, so nothing hidden reaches the page. */
static void html_text(StrBuf *sb, const char *s) {
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': strbuf_append(sb, "&amp;"); break;
        case '<': strbuf_append(sb, "&lt;"); break;
        case '>': strbuf_append(sb, "&gt;"); break;
        case '"': strbuf_append(sb, "&quot;"); break;
        case '\'': strbuf_append(sb, "&#39;"); break;
        default:
            if ((c < 32 && c != '\t' && c != '\n') || c == 127) strbuf_append(sb, "&#xFFFD;");
            else strbuf_append_char(sb, (char)c);
        }
    }
}

static void html_json_text(StrBuf *sb, const json_t *v, const char *dflt) {
    const char *s = json_string_value(v);
    html_text(sb, s ? s : dflt);
}

static double num(const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : 0;
}

static const char CSS[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:64em;"
    "padding:0 1em;color:#1b1f24;background:#fff}\n"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd}\n"
    ".sub{color:#57606a}\n"
    "table{border-collapse:collapse;width:100%}th,td{padding:.3em .6em;text-align:left;"
    "border-bottom:1px solid #eee;vertical-align:middle}\n"
    "th{font-weight:600;color:#57606a;font-size:.9em}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".bar{fill:#2da44e}.fast{fill:#0969da}.todo{fill:#eaeef2}.hist{fill:#8250df}\n"
    "svg text{font-size:11px;fill:#57606a}\n"
    ".kinds span{display:inline-block;margin:0 .4em .2em 0;padding:0 .4em;border-radius:.6em;"
    "background:#fff1e5;color:#953800;font-size:.85em}\n"
    "code{font-size:.9em}\n"
    "@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}.sub,th,svg text{color:#8b949e;"
    "fill:#8b949e}.todo{fill:#30363d}th,td{border-color:#30363d}.kinds span{background:#3d2b1f;color:#f0883e}}\n";

/* The score histogram: ten vertical bars with their counts and ranges. */
static void html_histogram(StrBuf *sb, const json_t *hist) {
    int max = 1;
    size_t i;
    const json_t *b;
    json_array_foreach(hist, i, b) if (num(b, "count") > max) max = (int)num(b, "count");
    const int bw = 48, gap = 8, h = 140, top = 16, w = (int)json_array_size(hist) * (bw + gap);
    strbuf_printf(sb, "<svg role=\"img\" aria-label=\"score histogram\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
                  w, h + top + 20, w, h + top + 20);
    json_array_foreach(hist, i, b) {
        int count = (int)num(b, "count");
        int bh = (int)lround((double)count / max * h);
        int x = (int)i * (bw + gap);
        strbuf_printf(sb, "<rect class=\"hist\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"><title>%d student%s</title></rect>\n",
                      x, top + h - bh, bw, bh, count, count == 1 ? "" : "s");
        strbuf_printf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", x + bw / 2, top + h - bh - 3,
                      count);
        strbuf_printf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.0f–%.0f%%</text>\n", x + bw / 2,
                      top + h + 14, num(b, "from") * 100, num(b, "to") * 100);
    }
    strbuf_append(sb, "</svg>\n");
}

/* A pass-rate bar: passed (green) over passed-fast (blue) on a grey track. */
static void html_rate_bar(StrBuf *sb, double pass, double fast) {
    const int w = 160;
    strbuf_printf(sb, "<svg width=\"%d\" height=\"14\" viewBox=\"0 0 %d 14\"><rect class=\"todo\" width=\"%d\" height=\"14\"/>"
                      "<rect class=\"bar\" width=\"%ld\" height=\"14\"/><rect class=\"fast\" y=\"9\" width=\"%ld\" height=\"5\"/></svg>",
                  w, w, w, lround(pass * w), lround(fast * w));
}

static void html_exercises(StrBuf *sb, const json_t *exercises) {
    strbuf_append(sb, "<table>\n<tr><th>exercise</th><th>points</th><th>passed</th><th></th><th>fast</th>"
                      "<th>attempts to pass<br>(median)</th><th>time to pass<br>(median)</th><th>failures</th></tr>\n");
    size_t i;
    const json_t *ex;
    json_array_foreach(exercises, i, ex) {
        strbuf_append(sb, "<tr><td><code>");
        html_json_text(sb, json_object_get(ex, "id"), "?");
        strbuf_append(sb, "</code><br><span class=\"sub\">");
        html_json_text(sb, json_object_get(ex, "title"), "");
        strbuf_printf(sb, "</span></td><td class=\"n\">%g</td><td class=\"n\">%.0f/%.0f (%.0f%%)</td><td>",
                      num(ex, "points"), num(ex, "passed"), num(ex, "students"), num(ex, "pass_rate") * 100);
        html_rate_bar(sb, num(ex, "pass_rate"), num(ex, "fast_rate"));
        strbuf_printf(sb, "</td><td class=\"n\">%.0f%%</td>", num(ex, "fast_rate") * 100);
        const json_t *a = json_object_get(ex, "attempts_to_pass"), *t = json_object_get(ex, "time_to_pass_ms");
        if (json_is_number(json_object_get(a, "median")))
            strbuf_printf(sb, "<td class=\"n\">%g <span class=\"sub\">(n=%.0f)</span></td>", num(a, "median"),
                          num(a, "n"));
        else strbuf_append(sb, "<td class=\"n\">–</td>");
        if (json_is_number(json_object_get(t, "median"))) {
            char d[32];
            class_report_format_duration(d, sizeof d, num(t, "median"));
            strbuf_printf(sb, "<td class=\"n\">%s <span class=\"sub\">(n=%.0f)</span></td>", d, num(t, "n"));
        } else {
            strbuf_append(sb, "<td class=\"n\">–</td>");
        }
        strbuf_append(sb, "<td class=\"kinds\">");
        size_t k;
        const json_t *f;
        json_array_foreach(json_object_get(ex, "failures"), k, f) {
            /* in words, as the terminal report says them; the id (--json's) as its title */
            const char *kind = json_string_value(json_object_get(f, "kind"));
            strbuf_append(sb, "<span title=\"");
            html_text(sb, kind ? kind : "?");
            strbuf_append(sb, "\">");
            html_text(sb, kind ? class_report_kind_words(kind) : "?");
            strbuf_printf(sb, " %.0f</span>", num(f, "count"));
        }
        if (num(ex, "similar_groups") > 0)
            strbuf_printf(sb, "<br><span class=\"sub\">%.0f similar group(s)</span>", num(ex, "similar_groups"));
        strbuf_append(sb, "</td></tr>\n");
    }
    strbuf_append(sb, "</table>\n");
}

static void html_similarity(StrBuf *sb, const json_t *groups) {
    if (json_array_size(groups) == 0) return;
    strbuf_append(sb, "<h2>Similar submissions</h2>\n<p class=\"sub\">Kernels that are the same up to names, "
                      "spacing, comments and literal formatting, once the starter's code is left out (the "
                      "fingerprint), or nearly so (a share of their token sequences). "
                      "For you to look at, not a verdict.</p>\n<table>\n"
                      "<tr><th>exercise</th><th>students</th><th>tokens</th><th>match</th></tr>\n");
    size_t i;
    const json_t *g;
    json_array_foreach(groups, i, g) {
        bool common = json_is_true(json_object_get(g, "common"));
        strbuf_append(sb, "<tr><td><code>");
        html_json_text(sb, json_object_get(g, "exercise"), "?");
        strbuf_append(sb, "</code></td><td>");
        if (common) {
            strbuf_printf(sb, "<span class=\"sub\">%zu of %.0f submissions: the common solution</span>",
                          json_array_size(json_object_get(g, "students")), num(g, "submissions"));
            strbuf_printf(sb, "</td><td class=\"n\">%.0f</td><td></td></tr>\n", num(g, "tokens"));
            continue;
        }
        size_t k;
        const json_t *s;
        json_array_foreach(json_object_get(g, "students"), k, s) {
            if (k) strbuf_append(sb, ", ");
            html_json_text(sb, s, "?");
        }
        strbuf_append(sb, "</td><td class=\"n\">");
        if (json_is_number(json_object_get(g, "tokens"))) strbuf_printf(sb, "%.0f", num(g, "tokens"));
        strbuf_append(sb, "</td><td>");
        if (json_is_true(json_object_get(g, "near"))) {
            strbuf_printf(sb, "near-duplicates, %.0f%% shared</td></tr>\n", num(g, "similarity") * 100);
            continue;
        }
        strbuf_append(sb, "<code>");
        const char *fp = json_string_value(json_object_get(g, "fingerprint"));
        char short_fp[17] = "";
        if (fp) snprintf(short_fp, sizeof short_fp, "%s", fp);
        html_text(sb, short_fp);
        strbuf_append(sb, "</code></td></tr>\n");
    }
    strbuf_append(sb, "</table>\n");
}

static void html_problems(StrBuf *sb, const json_t *problems) {
    if (json_array_size(problems) == 0) return;
    strbuf_append(sb, "<h2>Problems with submissions</h2>\n<table>\n<tr><th>student</th><th>problem</th></tr>\n");
    size_t i;
    const json_t *p;
    json_array_foreach(problems, i, p) {
        strbuf_append(sb, "<tr><td>");
        html_json_text(sb, json_object_get(p, "student"), "?");
        strbuf_append(sb, "</td><td>");
        html_json_text(sb, json_object_get(p, "problem"), "");
        strbuf_append(sb, "</td></tr>\n");
    }
    strbuf_append(sb, "</table>\n");
}

char *class_report_html(const json_t *report) {
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                       "style-src 'unsafe-inline'\">\n<title>Class report</title>\n<style>\n");
    strbuf_append(&sb, CSS);
    strbuf_append(&sb, "</style>\n</head>\n<body>\n<h1>Class report</h1>\n<p class=\"sub\">");
    int n = (int)num(report, "students");
    strbuf_printf(&sb, "%d student%s", n, n == 1 ? "" : "s");
    const char *backend = json_string_value(json_object_get(report, "backend"));
    if (backend) {
        strbuf_append(&sb, " · graded on ");
        html_text(&sb, backend);
    }
    const char *cv = json_string_value(json_object_get(report, "course_version"));
    if (cv) {
        char short_cv[13];
        snprintf(short_cv, sizeof short_cv, "%s", cv);
        strbuf_append(&sb, " · course version <code>");
        html_text(&sb, short_cv);
        strbuf_append(&sb, "</code>");
    }
    strbuf_printf(&sb, " · %.0f with progress records · %.0f with problems</p>\n",
                  num(report, "students_with_progress"), num(report, "students_with_problems"));
    const json_t *score = json_object_get(report, "score");
    strbuf_append(&sb, "<h2>Scores</h2>\n");
    if (json_is_object(score))
        strbuf_printf(&sb, "<p>mean <b>%.2f</b> · median <b>%.2f</b> · lowest %.2f · highest %.2f, of %g points</p>\n",
                      num(score, "mean"), num(score, "median"), num(score, "min"), num(score, "max"),
                      num(score, "max_total"));
    else strbuf_append(&sb, "<p>No students in this gradebook.</p>\n");
    html_histogram(&sb, json_object_get(report, "histogram"));
    strbuf_append(&sb, "<h2>Exercises</h2>\n<p class=\"sub\">Green: passed; blue: passed and met every "
                       "stretch goal. Attempts and time to pass come from the students' progress records.</p>\n");
    html_exercises(&sb, json_object_get(report, "exercises"));
    html_similarity(&sb, json_object_get(report, "similarity"));
    html_problems(&sb, json_object_get(report, "problems"));
    strbuf_append(&sb, "</body>\n</html>\n");
    return strbuf_steal(&sb);
}

Diag *class_report_write_html(const json_t *report, const char *path) {
    char *html = class_report_html(report);
    Diag *d = fs_write_file_atomic(path, html, strlen(html));
    free(html);
    return d;
}
