/* app/tui/tui_results.c: what a run found, laid out so a learner can act on
 * it: the first wrong elements of each failed check as a small table, each
 * diagnostic with its place (file:line, block, thread) and source excerpt,
 * the metrics, and the kernel's own printf output. */
#include "app/tui/tui_results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

/* Source files longer than this have no per-line notes in the results pane. */
#define MAX_LINES 20000

/* The last path component: results name the learner's file, not its directory. */
static const char *path_tail(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

const char *results_verdict_label(Verdict v) {
    switch (v) {
    case VERDICT_PASS: return "PASS";
    case VERDICT_FAIL: return "FAIL";
    case VERDICT_COMPILE_ERROR: return "COMPILE ERROR";
    case VERDICT_RUNTIME_ERROR: return "RUNTIME ERROR";
    case VERDICT_TIMEOUT: return "TIMEOUT";
    case VERDICT_CRASH: return "CRASH";
    case VERDICT_CANCELLED: return "CANCELLED";
    case VERDICT_EXERCISE_ERROR: return "EXERCISE ERROR";
    }
    return "?";
}

static void wrapped(TextDoc *doc, int width, int indent, int role, const char *text) {
    TextLine para = {0}, pre = {0};
    text_line_add(&para, role, text);
    text_line_addf(&pre, ROLE_NORMAL, "%*s", indent, "");
    text_wrap(doc, &para, width, &pre, &pre);
    text_line_fini(&para);
    text_line_fini(&pre);
}

static void section(TextDoc *doc, const char *title) {
    text_doc_add_line(doc);
    text_doc_add_text(doc, ROLE_H3, title);
}

static void render_checks(TextDoc *doc, const RunResult *r, int width, bool utf8) {
    bool any_failed = false;
    for (int i = 0; i < r->n_checks; i++) any_failed |= !r->checks[i].passed;
    if (r->n_checks == 0) return;
    section(doc, "Checks");
    for (int i = 0; i < r->n_checks; i++) {
        const CheckResult *c = &r->checks[i];
        TextLine para = {0}, first = {0}, rest = {0};
        text_line_add(&first, ROLE_NORMAL, "  ");
        text_line_add(&first, c->passed ? ROLE_PASS : ROLE_FAIL, c->passed ? (utf8 ? "✓ " : "+ ") : (utf8 ? "✗ " : "x "));
        text_line_add(&rest, ROLE_NORMAL, "    ");
        text_line_add(&para, ROLE_BOLD, c->name ? c->name : "check");
        if (c->message && *c->message) {
            text_line_add(&para, ROLE_BOLD, ":");
            text_line_add(&para, ROLE_NORMAL, " ");
            text_line_add(&para, ROLE_NORMAL, c->message);
        }
        text_wrap(doc, &para, width, &first, &rest);
        text_line_fini(&para);
        text_line_fini(&first);
        text_line_fini(&rest);
        if (c->passed || c->n_mismatches == 0) continue;
        /* The got/want table, columns as wide as their widest cell. */
        int iw = 5, gw = 3, ww = 4;
        for (int k = 0; k < c->n_mismatches; k++) {
            char idx[32];
            snprintf(idx, sizeof idx, "%lld", c->mismatches[k].index);
            if ((int)strlen(idx) > iw) iw = (int)strlen(idx);
            if (text_width(c->mismatches[k].got) > gw) gw = text_width(c->mismatches[k].got);
            if (text_width(c->mismatches[k].want) > ww) ww = text_width(c->mismatches[k].want);
        }
        if (gw > 24) gw = 24;
        TextLine *h = text_doc_add_line(doc);
        text_line_addf(h, ROLE_DIM, "      %-*s  %-*s  %s", iw, "index", gw, "got", "want");
        for (int k = 0; k < c->n_mismatches; k++) {
            const Mismatch *m = &c->mismatches[k];
            TextLine *l = text_doc_add_line(doc);
            text_line_addf(l, ROLE_NORMAL, "      %-*lld  ", iw, m->index);
            const char *got = m->got ? m->got : "?";
            text_line_add(l, ROLE_FAIL, got);
            int pad = gw - text_width(got);
            text_line_addf(l, ROLE_NORMAL, "%*s  ", pad > 0 ? pad : 0, "");
            text_line_add(l, ROLE_PASS, m->want ? m->want : "?");
        }
        if (c->n_wrong > c->n_mismatches)
            text_doc_addf(doc, ROLE_DIM, "      … and %lld more (%lld of %lld wrong)", c->n_wrong - c->n_mismatches, c->n_wrong, c->n_total);
    }
    (void)any_failed;
}

static void render_diags(TextDoc *doc, const RunResult *r, int width, bool utf8) {
    if (!r->diags) return;
    section(doc, r->verdict == VERDICT_COMPILE_ERROR ? "Compiler" : "Diagnostics");
    for (const Diag *d = r->diags; d; d = d->next) {
        int role = d->severity == DIAG_ERROR ? ROLE_FAIL : d->severity == DIAG_WARNING ? ROLE_WARN : ROLE_NOTE;
        TextLine para = {0}, first = {0}, rest = {0};
        text_line_add(&first, ROLE_NORMAL, "  ");
        text_line_add(&rest, ROLE_NORMAL, "    ");
        text_line_add(&para, role, diag_severity_name(d->severity));
        if (d->file) {
            text_line_add(&para, ROLE_NORMAL, " ");
            if (d->line > 0) text_line_addf(&para, ROLE_BOLD, "%s:%d", path_tail(d->file), d->line);
            else text_line_add(&para, ROLE_BOLD, path_tail(d->file));
        } else if (d->line > 0) {
            text_line_addf(&para, ROLE_BOLD, " line %d", d->line);
        }
        text_line_add(&para, ROLE_NORMAL, ": ");
        text_line_add(&para, ROLE_NORMAL, d->message ? d->message : "");
        text_wrap(doc, &para, width, &first, &rest);
        text_line_fini(&para);
        text_line_fini(&first);
        text_line_fini(&rest);
        if (d->has_thread)
            text_doc_addf(doc, ROLE_DIM, "    block (%u,%u,%u) thread (%u,%u,%u)", d->block[0], d->block[1],
                          d->block[2], d->thread[0], d->thread[1], d->thread[2]);
        if (d->excerpt && *d->excerpt) {
            /* The excerpt is the source line then a caret line. */
            const char *p = d->excerpt;
            int k = 0;
            while (*p) {
                const char *nl = strchr(p, '\n');
                size_t len = nl ? (size_t)(nl - p) : strlen(p);
                TextLine *l = text_doc_add_line(doc);
                text_line_add(l, ROLE_LINENO, "    │ ");
                char *one = xstrndup(p, len);
                for (char *q = one; *q; q++)
                    if (*q == '\t') *q = ' ';
                text_line_add(l, k == 0 ? ROLE_CODEBLOCK : ROLE_FAIL, one);
                free(one);
                l->tag = k == 0 ? d->line : 0;
                k++;
                p += len + (nl ? 1 : 0);
            }
        }
    }
    (void)utf8;
}

/* Calls fn on every array named "lines" anywhere in the metrics. */
static void each_lines_array(json_t *j, void (*fn)(json_t *arr, void *ctx), void *ctx) {
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) {
            if (!strcmp(k, "lines") && json_is_array(v)) fn(v, ctx);
            else each_lines_array(v, fn, ctx);
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) each_lines_array(v, fn, ctx);
    }
}

typedef struct LineStat {
    double executions, spr, ideal, bank;
    bool divergent, seen;
} LineStat;

typedef struct HeatCtx {
    LineStat *stats;
    int n;
} HeatCtx;

static double num(json_t *o, const char *k) {
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : json_is_true(v) ? 1 : 0;
}

static void merge_lines(json_t *arr, void *vctx) {
    HeatCtx *c = vctx;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        int line = (int)num(e, "line");
        if (line < 1 || line > c->n) continue;
        LineStat *s = &c->stats[line];
        s->seen = true;
        s->executions += num(e, "executions");
        if (num(e, "sectors_per_request") > s->spr) {
            s->spr = num(e, "sectors_per_request");
            s->ideal = num(e, "ideal_sectors_per_request");
        }
        if (num(e, "bank_conflict_degree") > s->bank) s->bank = num(e, "bank_conflict_degree");
        json_t *dv = json_object_get(e, "divergent");
        if (!dv) dv = json_object_get(e, "divergent_branches");
        if (json_is_true(dv) || (json_is_number(dv) && json_number_value(dv) > 0)) s->divergent = true;
    }
}

int results_line_heat(const RunResult *r, int n_lines, int **heat, char ***notes) {
    *heat = NULL;
    *notes = NULL;
    if (!r || !r->metrics || n_lines <= 0) return 0;
    HeatCtx c = {.stats = xcalloc((size_t)n_lines + 1, sizeof(LineStat)), .n = n_lines};
    each_lines_array(r->metrics, merge_lines, &c);
    int covered = 0;
    int *h = xcalloc((size_t)n_lines + 1, sizeof *h);
    char **nt = xcalloc((size_t)n_lines + 1, sizeof *nt);
    for (int l = 1; l <= n_lines; l++) {
        LineStat *s = &c.stats[l];
        if (!s->seen) continue;
        covered++;
        int level = 1;
        StrBuf sb;
        strbuf_init(&sb);
        strbuf_printf(&sb, "line %d: %.0f executions", l, s->executions);
        /* 32 lanes reading consecutive 4-byte words touch 4 sectors of 32 bytes:
           the ideal, when the emulator does not give it. */
        if (s->spr > 0) {
            double ideal = s->ideal > 0 ? s->ideal : 4.0;
            strbuf_printf(&sb, ", %.1f sectors/request (ideal %.1f)", s->spr, ideal);
            double ratio = s->spr / ideal;
            int lv = ratio <= 1.25 ? 1 : ratio <= 2.5 ? 2 : 3;
            if (lv > 1) strbuf_append(&sb, lv == 3 ? " (uncoalesced)" : " (partly coalesced)");
            if (lv > level) level = lv;
        }
        if (s->bank > 1) {
            strbuf_printf(&sb, ", %.0f-way bank conflict", s->bank);
            int lv = s->bank <= 4 ? 2 : 3;
            if (lv > level) level = lv;
        }
        if (s->divergent) {
            strbuf_append(&sb, ", divergent branch");
            if (level < 2) level = 2;
        }
        h[l] = level;
        nt[l] = strbuf_steal(&sb);
        strbuf_fini(&sb);
    }
    free(c.stats);
    if (!covered) {
        free(h);
        free(nt);
        return 0;
    }
    *heat = h;
    *notes = nt;
    return covered;
}

void results_heat_free(int **heat, char ***notes, int n_lines) {
    if (*notes)
        for (int i = 0; i <= n_lines; i++) free((*notes)[i]);
    free(*notes);
    free(*heat);
    *notes = NULL;
    *heat = NULL;
}

/* Numbers in the metrics, flattened to "compile.ms"-style names; zeros and
 * the per-line arrays (shown as heat) are left out. */
static void flatten_metrics(TextDoc *doc, json_t *j, const char *prefix, bool *header) {
    const char *k;
    json_t *v;
    json_object_foreach(j, k, v) {
        char *name = *prefix ? xasprintf("%s.%s", prefix, k) : xstrdup(k);
        if (json_is_object(v) && strcmp(k, "params") != 0) {
            flatten_metrics(doc, v, name, header);
        } else if ((json_is_number(v) && json_number_value(v) != 0) || json_is_true(v)) {
            if (!*header) section(doc, "Metrics");
            *header = true;
            if (json_is_true(v)) text_doc_addf(doc, ROLE_NORMAL, "  %-32s yes", name);
            else if (json_is_integer(v)) text_doc_addf(doc, ROLE_NORMAL, "  %-32s %lld", name, (long long)json_integer_value(v));
            else text_doc_addf(doc, ROLE_NORMAL, "  %-32s %.4g", name, json_number_value(v));
        }
        free(name);
    }
}

static void render_metrics(TextDoc *doc, const RunResult *r, int width) {
    if (!r->metrics || !json_is_object(r->metrics)) return;
    bool header = false;
    flatten_metrics(doc, r->metrics, "", &header);
    if (json_is_true(json_object_get(r->metrics, "modeled")))
        text_doc_add_text(doc, ROLE_DIM, "  (times on the emulator are modeled, not measured)");
    /* The lines worth a look, as the heat column shows them. */
    int *heat;
    char **notes;
    int covered = results_line_heat(r, MAX_LINES, &heat, &notes);
    if (covered) {
        section(doc, "Per line (emulator)");
        int shown = 0;
        for (int l = 1; l <= MAX_LINES; l++)
            if (notes[l] && heat[l] >= 2) {
                wrapped(doc, width, 2, heat[l] == 3 ? ROLE_FAIL : ROLE_WARN, notes[l]);
                shown++;
            }
        if (!shown) text_doc_add_text(doc, ROLE_PASS, "  every line's memory accesses look fine");
        text_doc_add_text(doc, ROLE_DIM, "  (the heat column next to the source shows each line)");
        results_heat_free(&heat, &notes, MAX_LINES);
    }
}

void results_render(TextDoc *doc, const RunResult *r, int width, bool utf8) {
    if (!r) return;
    TextLine *l = text_doc_add_line(doc);
    bool pass = r->verdict == VERDICT_PASS;
    int role = pass ? ROLE_PASS : r->verdict == VERDICT_CANCELLED ? ROLE_WARN : ROLE_FAIL;
    text_line_add(l, role, pass ? (utf8 ? "✓ " : "+ ") : (utf8 ? "✗ " : "x "));
    text_line_add(l, role, results_verdict_label(r->verdict));
    if (r->backend || r->duration_ms > 0) {
        text_line_add(l, ROLE_DIM, "  (");
        if (r->backend) text_line_add(l, ROLE_DIM, r->backend);
        if (r->duration_ms > 0) text_line_addf(l, ROLE_DIM, "%s%.2f s", r->backend ? ", " : "", r->duration_ms / 1000);
        text_line_add(l, ROLE_DIM, ")");
    }
    if (r->summary && *r->summary) wrapped(doc, width, 2, ROLE_NORMAL, r->summary);
    render_checks(doc, r, width, utf8);
    render_diags(doc, r, width, utf8);
    if (r->device_output && *r->device_output) {
        bool program = r->metrics && json_object_get(r->metrics, "program");
        section(doc, program ? "Program output" : "Device output (printf)");
        const char *p = r->device_output;
        int n = 0;
        while (*p && n < 200) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            char *one = xstrndup(p, len);
            text_doc_addf(doc, ROLE_CODEBLOCK, "  %s", one);
            free(one);
            n++;
            p += len + (nl ? 1 : 0);
        }
        if (*p) text_doc_add_text(doc, ROLE_DIM, "  … (more output)");
    }
    render_metrics(doc, r, width);
    if (r->log && *r->log) {
        section(doc, "Log");
        const char *p = r->log;
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            char *one = xstrndup(p, len);
            wrapped(doc, width, 2, ROLE_DIM, one);
            free(one);
            p += len + (nl ? 1 : 0);
        }
    }
}
