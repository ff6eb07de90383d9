/* app/tui/tui_results.c: what a run found, laid out so a learner can act on
 * it: the first wrong elements of each failed check as a small table, each
 * diagnostic with its place (file:line, block, thread) and source excerpt,
 * the metrics, and the kernel's own printf output. */
#include "app/tui/tui_results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
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
    case VERDICT_PASS: return _("PASS");
    case VERDICT_FAIL: return _("FAIL");
    case VERDICT_COMPILE_ERROR: return _("COMPILE ERROR");
    case VERDICT_RUNTIME_ERROR: return _("RUNTIME ERROR");
    case VERDICT_TIMEOUT: return _("TIMEOUT");
    case VERDICT_CRASH: return _("CRASH");
    case VERDICT_CANCELLED: return _("CANCELLED");
    case VERDICT_EXERCISE_ERROR: return _("EXERCISE ERROR");
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

/* A check's rank in the list: failures first, then missed stretch goals, then passes. */
static int check_rank(const CheckResult *c) { return c->passed ? 2 : c->stretch ? 1 : 0; }

static void render_one_check(TextDoc *doc, const CheckResult *c, int width, bool utf8) {
    TextLine para = {0}, first = {0}, rest = {0};
    text_line_add(&first, ROLE_NORMAL, "  ");
    /* A missed stretch goal is not a failure: ○ in the warning colour. */
    int mark = c->passed ? ROLE_PASS : c->stretch ? ROLE_WARN : ROLE_FAIL;
    text_line_add(&first, mark, c->passed ? (utf8 ? "✓ " : "+ ") : c->stretch ? (utf8 ? "○ " : "o ") : (utf8 ? "✗ " : "x "));
    text_line_add(&rest, ROLE_NORMAL, "    ");
    text_line_add(&para, ROLE_BOLD, c->name ? c->name : _("check"));
    if (c->message && *c->message) {
        text_line_add(&para, ROLE_BOLD, ":");
        text_line_add(&para, ROLE_NORMAL, " ");
        char *msg = i18n_message(c->message);   /* built in English by the worker */
        text_line_add(&para, ROLE_NORMAL, msg);
        free(msg);
    }
    text_wrap(doc, &para, width, &first, &rest);
    text_line_fini(&para);
    text_line_fini(&first);
    text_line_fini(&rest);
    if (c->passed || c->n_mismatches == 0) return;
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
    char hi[64], hg[64];
    text_line_addf(h, ROLE_DIM, "      %s  %s  %s", i18n_pad(hi, sizeof hi, _("index"), iw, false),
                   i18n_pad(hg, sizeof hg, _("got"), gw, false), _("want"));
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
        text_doc_addf(doc, ROLE_DIM, _("      … and %lld more (%lld of %lld wrong)"), c->n_wrong - c->n_mismatches, c->n_wrong,
                      c->n_total);
}

/* The checks, failing ones first (with their got/want tables). */
static void render_checks(TextDoc *doc, const RunResult *r, int width, bool utf8) {
    if (r->n_checks == 0) return;
    section(doc, _("Checks"));
    for (int rank = 0; rank < 3; rank++)
        for (int i = 0; i < r->n_checks; i++)
            if (check_rank(&r->checks[i]) == rank) render_one_check(doc, &r->checks[i], width, utf8);
}

static void render_diags(TextDoc *doc, const RunResult *r, int width, bool utf8) {
    if (!r->diags) return;
    section(doc, r->verdict == VERDICT_COMPILE_ERROR ? _("Compiler") : _("Diagnostics"));
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
            text_line_addf(&para, ROLE_BOLD, _(" line %d"), d->line);
        }
        text_line_add(&para, ROLE_NORMAL, ": ");
        char *msg = i18n_message(d->message ? d->message : "");
        text_line_add(&para, ROLE_NORMAL, msg);
        free(msg);
        text_wrap(doc, &para, width, &first, &rest);
        text_line_fini(&para);
        text_line_fini(&first);
        text_line_fini(&rest);
        if (d->has_thread)
            text_doc_addf(doc, ROLE_DIM, _("    block (%u,%u,%u) thread (%u,%u,%u)"), d->block[0], d->block[1],
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
    double executions, spr, ideal, layout, bank, divergent, branches, idle_lanes, requests, strided;
    bool seen, has_idle;
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
            s->layout = num(e, "layout_sectors_per_request");
        }
        if (num(e, "bank_conflict_degree") > s->bank) s->bank = num(e, "bank_conflict_degree");
        json_t *dv = json_object_get(e, "divergent");
        if (!dv) dv = json_object_get(e, "divergent_branches");
        s->divergent += json_is_true(dv) ? 1 : num(e, json_object_get(e, "divergent") ? "divergent" : "divergent_branches");
        s->branches += num(e, "branches");
        s->requests += num(e, "global_requests");
        s->strided += num(e, "strided_requests");
        if (json_object_get(e, "divergent_idle_lanes")) s->has_idle = true;
        s->idle_lanes += num(e, "divergent_idle_lanes");
    }
}

/* Sums `key` over every "totals" object in the metrics (one per launch set). */
static double sum_totals(json_t *j, const char *key) {
    double n = 0;
    const char *k;
    json_t *v;
    if (json_is_object(j)) {
        json_object_foreach(j, k, v) {
            if (!strcmp(k, "totals") && json_is_object(v)) {
                json_t *x = json_object_get(v, key);
                if (json_is_number(x)) n += json_number_value(x);
            } else n += sum_totals(v, key);
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_array_foreach(j, i, v) n += sum_totals(v, key);
    }
    return n;
}

/* A line's share of the kernel's lane slots lost to divergence: lanes that
 * idled while its branch kept the warp split (the emulator counts them:
 * both sides of an if/else, a body few lanes run; a tail guard or the
 * `if (lane == 0)` store after a warp reduction idle briefly). -1 when the
 * metrics do not say (older runs, the GPU). */
static double divergence_share(const LineStat *s, double warp_instructions) {
    if (!s->has_idle || warp_instructions <= 0) return -1;
    return s->idle_lanes / (32.0 * warp_instructions);
}

/* Without the emulator's count: more than one warp per block split there
 * (blocks known), of a kernel that idles at least 5% of its lanes; without
 * the block count, 5% of the line's branch executions diverging. */
static bool divergence_matters_guess(const LineStat *s, double blocks, double idle) {
    if (idle < 0.05) return false;
    if (blocks > 0) return s->divergent > blocks;
    return s->branches <= 0 || s->divergent >= 0.05 * s->branches;
}

/* Heat of a line's global accesses: against what the data's own layout
 * needs when the emulator says (3-byte pixels need every sector they span),
 * else the contiguous ideal; a real margin (over 1.5x) before a mark. */
static int heat_global(const LineStat *s, StrBuf *sb) {
    double ideal = s->ideal > 0 ? s->ideal : 4.0;
    double need = s->layout > 0 ? s->layout : ideal;
    strbuf_printf(sb, _(", %.1f sectors/request (ideal %.1f)"), s->spr, ideal);
    if (need > ideal * 1.05) strbuf_printf(sb, _(", %.1f for this data layout"), need);
    double ratio = s->spr / need;
    int lv = ratio <= 1.5 ? 1 : ratio <= 2.5 ? 2 : 3;
    /* Some accesses of the line coalesce and others do not: a copy between
     * two layouts (volume-3d's axes, a transpose), where one side must be
     * strided unless the tile goes through shared memory (chapter 4). */
    bool layout_change = s->strided > 0 && s->strided < s->requests;
    if (layout_change && lv == 3) lv = 2;
    if (lv > 1) strbuf_append(sb, lv == 3 ? _(" (uncoalesced)") : _(" (partly coalesced)"));
    if (layout_change && lv > 1) strbuf_append(sb, _(": one side of a copy between layouts"));
    return lv;
}

/* Heat of a line's divergent branches (see divergence_share): 20% of the
 * kernel's lane slots is worth a look (reduce-steps' interleaved starter
 * idles 23%; atan2f's own branches 15%, a thread-0 loop after a ballot
 * 10%), 40% is costly (every warp running both of chapter 9's loops: 44%). */
static int heat_divergence(const LineStat *s, double warp_instructions, double blocks, double idle, StrBuf *sb) {
    strbuf_printf(sb, P_((long long)s->divergent, ", divergent branch in %.0f warp", ", divergent branch in %.0f warps"),
                  s->divergent);
    double share = divergence_share(s, warp_instructions);
    if (share >= 0) {
        if (share < 0.05) {
            strbuf_append(sb, _(" (under 5 percent of the kernel's work)"));
            return 1;
        }
        strbuf_printf(sb, _(" (idles %.0f%% of the kernel's lane slots)"), 100.0 * share);
        return share >= 0.40 ? 3 : share >= 0.20 ? 2 : 1;
    }
    /* A tail guard (if (i < n)) splits one warp per block at most, and a
     * kernel whose lanes idle less than 5% of the time cannot lose more to
     * divergence: neither is worth a warning (chapter 9). */
    if (divergence_matters_guess(s, blocks, idle)) return 2;
    strbuf_append(sb, blocks > 0 && s->divergent <= blocks ? _(" (at most one per block: a tail)")
                                                           : _(" (under 5 percent of the kernel's work)"));
    return 1;
}

int results_line_heat(const RunResult *r, int n_lines, int **heat, char ***notes) {
    *heat = NULL;
    *notes = NULL;
    if (!r || !r->metrics || n_lines <= 0) return 0;
    HeatCtx c = {.stats = xcalloc((size_t)n_lines + 1, sizeof(LineStat)), .n = n_lines};
    each_lines_array(r->metrics, merge_lines, &c);
    /* What divergence can cost this launch: the share of lane slots that
     * idled (an upper bound; tails count too), and its blocks. */
    json_t *tot = json_object_get(json_object_get(r->metrics, "emu"), "totals");
    double blocks = num(tot, "blocks");
    json_t *lanes = json_object_get(tot, "active_lanes_avg");
    double idle = json_is_number(lanes) ? 1.0 - json_number_value(lanes) / 32.0 : 1.0;
    double warp_instructions = sum_totals(r->metrics, "warp_instructions");
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
        strbuf_printf(&sb, _("line %d: %.0f executions"), l, s->executions);
        if (s->spr > 0) {
            int lv = heat_global(s, &sb);
            if (lv > level) level = lv;
        }
        if (s->bank > 1) {
            strbuf_printf(&sb, _(", %.0f-way bank conflict"), s->bank);
            int lv = s->bank <= 4 ? 2 : 3;
            if (lv > level) level = lv;
        }
        if (s->divergent > 0) {
            int lv = heat_divergence(s, warp_instructions, blocks, idle, &sb);
            if (lv > level) level = lv;
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
 * the per-line arrays (shown as heat) are left out. Returns how many. */
static int flatten_metrics(TextDoc *doc, json_t *j, const char *prefix) {
    const char *k;
    json_t *v;
    int n = 0;
    json_object_foreach(j, k, v) {
        char *name = *prefix ? xasprintf("%s.%s", prefix, k) : xstrdup(k);
        if (json_is_object(v) && strcmp(k, "params") != 0) {
            n += flatten_metrics(doc, v, name);
        } else if ((json_is_number(v) && json_number_value(v) != 0) || json_is_true(v)) {
            n++;
            if (!doc) {
            } else if (json_is_true(v)) text_doc_addf(doc, ROLE_NORMAL, _("  %-32s yes"), name);
            else if (json_is_integer(v)) text_doc_addf(doc, ROLE_NORMAL, "  %-32s %lld", name, (long long)json_integer_value(v));
            else text_doc_addf(doc, ROLE_NORMAL, "  %-32s %.4g", name, json_number_value(v));
        }
        free(name);
    }
    return n;
}

/* A log's lines, wrapped and dim. */
static void render_lines(TextDoc *doc, int width, const char *p) {
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *one = xstrndup(p, len);
        wrapped(doc, width, 2, ROLE_DIM, one);
        free(one);
        p += len + (nl ? 1 : 0);
    }
}

/* Whether the run's log or a check's message talks about `word`: then the
 * exercise is about that number. */
static bool run_mentions(const RunResult *r, const char *word) {
    if (r->log && strstr(r->log, word)) return true;
    for (int i = 0; i < r->n_checks; i++)
        if (r->checks[i].message && strstr(r->checks[i].message, word)) return true;
    return false;
}

static void number_line(TextDoc *doc, const char *name, const char *value) {
    TextLine *l = text_doc_add_line(doc);
    char pad[96];
    text_line_addf(l, ROLE_NORMAL, "  %s ", i18n_pad(pad, sizeof pad, name, 22, false));   /* columns, not bytes: CJK */
    text_line_add(l, ROLE_BOLD, value);
}

/* The few numbers this exercise is about: what its Lua measured and reported
 * (t:metric, t:report_bandwidth, the kernel time) and the emulator's counts
 * its checks or log talk about (sectors per request, bank conflicts, active
 * lanes). Internal numbers (compile time, Lua instructions, the timeline)
 * stay behind `m`. Returns how many lines it added. */
static int render_key_numbers(TextDoc *doc, const RunResult *r) {
    json_t *m = r->metrics;
    int before = doc->n, shown = 0;
    char buf[160];
    section(doc, _("Numbers"));
    double kernel_ms = run_result_kernel_ms(r);
    if (kernel_ms > 0) {
        snprintf(buf, sizeof buf, "%.4g ms", kernel_ms);
        number_line(doc, _("kernel time"), buf);
        shown++;
    }
    json_t *bw = json_object_get(m, "bandwidth");
    if (json_is_object(bw) && json_is_number(json_object_get(bw, "gbs"))) {
        double gbs = json_number_value(json_object_get(bw, "gbs"));
        json_t *fr = json_object_get(bw, "fraction_of_peak");
        if (json_is_number(fr))
            snprintf(buf, sizeof buf, _("%.0f GB/s = %.0f%% of the copy bandwidth"), gbs, 100 * json_number_value(fr));
        else snprintf(buf, sizeof buf, "%.0f GB/s", gbs);
        number_line(doc, _("bandwidth"), buf);
        shown++;
    }
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(m, "custom"), k, v) {
        json_t *val = json_object_get(v, "value");
        if (!json_is_number(val)) continue;
        const char *unit = json_string_value(json_object_get(v, "unit"));
        snprintf(buf, sizeof buf, "%.4g%s%s", json_number_value(val), unit ? " " : "", unit ? unit : "");
        number_line(doc, k, buf);
        shown++;
    }
    json_t *tot = json_object_get(json_object_get(m, "emu"), "totals");
    json_t *spr = json_object_get(tot, "sectors_per_request");
    if (json_is_number(spr) && (run_mentions(r, "sector") || run_mentions(r, "coalesc"))) {
        snprintf(buf, sizeof buf, _("%.2f (ideal %.2f)"), json_number_value(spr),
                 json_number_value(json_object_get(tot, "ideal_sectors_per_request")));
        number_line(doc, _("sectors per request"), buf);
        shown++;
    }
    json_t *bank = json_object_get(tot, "bank_conflict_degree");
    if (json_is_number(bank) && run_mentions(r, "bank")) {
        snprintf(buf, sizeof buf, _("%.2f-way"), json_number_value(bank));
        number_line(doc, _("bank conflicts"), buf);
        shown++;
    }
    json_t *lanes = json_object_get(tot, "active_lanes_avg");
    if (json_is_number(lanes) && (run_mentions(r, "diverg") || run_mentions(r, "lanes"))) {
        snprintf(buf, sizeof buf, _("%.1f of 32"), json_number_value(lanes));
        number_line(doc, _("active lanes per warp"), buf);
        shown++;
    }
    if (shown == 0) {
        /* No numbers: take the section heading back out. */
        while (doc->n > before) text_line_fini(&doc->lines[--doc->n]);
        return 0;
    }
    if (json_is_true(json_object_get(json_object_get(m, "timeline"), "modeled")) && kernel_ms >= 0)
        text_doc_add_text(doc, ROLE_DIM, _("  (times on the emulator are modeled, not measured)"));
    return doc->n - before;
}

/* The lines worth a look, as the heat column shows them. */
static void render_line_notes(TextDoc *doc, const RunResult *r, int width) {
    int *heat;
    char **notes;
    int covered = results_line_heat(r, MAX_LINES, &heat, &notes);
    if (!covered) return;
    int shown = 0;
    for (int l = 1; l <= MAX_LINES; l++)
        if (notes[l] && heat[l] >= 2) {
            if (!shown++) section(doc, _("Per line (emulator)"));
            wrapped(doc, width, 2, heat[l] == 3 ? ROLE_FAIL : ROLE_WARN, notes[l]);
        }
    if (shown) text_doc_add_text(doc, ROLE_DIM, _("  (the heat column next to the source shows each line)"));
    results_heat_free(&heat, &notes, MAX_LINES);
}

static void render_all_metrics(TextDoc *doc, const RunResult *r, bool all) {
    if (!r->metrics || !json_is_object(r->metrics)) return;
    int n = flatten_metrics(NULL, r->metrics, "");
    if (n == 0) return;
    if (!all) {
        TextLine *l = text_doc_add_line(doc);
        text_line_add(l, ROLE_DIM, "  ");
        text_line_add(l, ROLE_KEY, "m");
        text_line_addf(l, ROLE_DIM, _(" shows all %d metrics of this run"), n);
        return;
    }
    section(doc, _("All metrics"));
    flatten_metrics(doc, r->metrics, "");
    if (json_is_true(json_object_get(r->metrics, "modeled")))
        text_doc_add_text(doc, ROLE_DIM, _("  (times on the emulator are modeled, not measured)"));
    TextLine *l = text_doc_add_line(doc);
    text_line_add(l, ROLE_DIM, "  ");
    text_line_add(l, ROLE_KEY, "m");
    text_line_add(l, ROLE_DIM, _(" hides them again"));
}

void results_render(TextDoc *doc, const RunResult *r, int width, bool utf8, bool all_metrics) {
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
    if (r->summary && *r->summary) {
        char *summary = i18n_message(r->summary);
        wrapped(doc, width, 2, ROLE_NORMAL, summary);
        free(summary);
    }
    render_checks(doc, r, width, utf8);
    render_diags(doc, r, width, utf8);
    if (r->device_output && *r->device_output) {
        bool program = r->metrics && json_object_get(r->metrics, "program");
        section(doc, program ? _("Program output") : _("Device output (printf)"));
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
        if (*p) text_doc_add_text(doc, ROLE_DIM, _("  … (more output)"));
    }
    render_key_numbers(doc, r);
    render_line_notes(doc, r, width);
    if (r->log && *r->log) {
        section(doc, _("Log"));
        render_lines(doc, width, r->log);
    }
    if (r->after_log && *r->after_log) {
        section(doc, _(run_result_after_title(r)));
        render_lines(doc, width, r->after_log);
    }
    render_all_metrics(doc, r, all_metrics);
}
