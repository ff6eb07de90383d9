/* app/access_explain.c: the access map's session (see access_explain.h).
 *
 * The recorder follows one warp of one block of one kernel, chosen before
 * the run; "the first warp that ran the line" is found by recording warp
 * 0 of block 0 first, then the next warps, a bounded number of runs (each
 * is the whole exercise on the emulator, well under a second for the
 * course's). The line's kernel is found the same way: the first launch's
 * kernel, else each kernel the run launched until one has code there. */
#include "app/access_explain.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/xalloc.h"

/* Runs beyond the first spent looking for a warp that ran the line. */
#define MAX_WARP_TRIES 8

/* One run with warp `warp` of `block` of `kernel` (NULL: the first launch)
 * recorded; *res gets the run's result (caller frees). NULL with *err when
 * no launch was recorded. */
static EmuTrace *run_traced(const DebugTarget *tg, const AccessExplainRequest *rq, const char *kernel,
                            const unsigned block[3], int warp, RunResult **res, Diag **err) {
    *err = NULL;
    *res = NULL;
    EmuOptions eo = {.deterministic = true, .checks = true, .metrics = true};
    Diag *why = NULL;
    Backend *b = emu_backend_new(&eo, &why);
    if (!b) {
        *err = why ? why : diag_error("explain", "the emulator could not start");
        return NULL;
    }
    EmuTraceRequest trq = {.block = {block[0], block[1], block[2]}, .warp = warp, .kernel = kernel,
                           .cap_bytes = tg->cap_bytes};
    Diag *d = emu_trace_arm(b, &trq);
    if (d) {
        *err = d;
        backend_close(&b);
        return NULL;
    }
    ExerciseRunOptions opts = {.cu_path = tg->cu_path, .cu_display = tg->display, .param_keys = rq->param_keys,
                               .param_values = rq->param_values, .n_params = rq->n_params};
    RunResult *r = exercise_run(tg->ex, b, &opts);
    EmuTrace *tr = emu_trace_take(b);
    if (!tr) {
        const Diag *first = r->diags;
        while (first && first->severity != DIAG_ERROR) first = first->next;
        if (first)
            *err = diag_new(DIAG_ERROR, first->code, first->file, first->line, first->col,
                            _("%s: no access map: %s"), tg->ex->id, first->message);
        else
            *err = diag_error("explain", _("%s launched no kernel, so there is no access to draw (%s)"), tg->ex->id,
                              r->summary ? r->summary : "no launch");
        run_result_free(&r);
    }
    *res = r;
    backend_close(&b);
    return tr;
}

/* ---- the lines by cost, from the run's metrics ---------------------------------------------- */
typedef struct Ranked { int line; double score; } Ranked;

static double num(const json_t *o, const char *k) {
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0;
}

/* Adds the lines of every "lines" array under j (one per launch set). */
static void collect_lines(const json_t *j, Ranked **v, int *n, bool *ran, int max_line) {
    const char *k;
    json_t *e;
    size_t i;
    if (json_is_object(j)) {
        json_object_foreach((json_t *)j, k, e) {
            if (strcmp(k, "lines") || !json_is_array(e)) {
                collect_lines(e, v, n, ran, max_line);
                continue;
            }
            json_t *o;
            json_array_foreach(e, i, o) {
                int line = (int)num(o, "line");
                if (line < 1) continue;
                if (ran && line <= max_line && num(o, "executions") > 0) ran[line] = true;
                if (!v) continue;
                double score = 0;
                if (num(o, "global_requests") > 0) {
                    double ideal = num(o, "ideal_sectors_per_request");
                    score = num(o, "sectors_per_request") / (ideal > 0 ? ideal : 1);
                }
                if (num(o, "shared_requests") > 0 && num(o, "bank_conflict_degree") > score)
                    score = num(o, "bank_conflict_degree");
                if (score <= 0) continue;
                int at = 0;
                while (at < *n && (*v)[at].line != line) at++;
                if (at == *n) {
                    *v = xrealloc(*v, sizeof **v * (size_t)(*n + 1));
                    (*v)[(*n)++] = (Ranked){line, score};
                } else if (score > (*v)[at].score) (*v)[at].score = score;
            }
        }
    } else if (json_is_array(j)) {
        json_array_foreach((json_t *)j, i, e) collect_lines(e, v, n, ran, max_line);
    }
}

static int cmp_ranked(const void *a, const void *b) {
    const Ranked *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->line - y->line;
}

/* Lines with global or shared accesses, worst first. */
static int rank_lines(const json_t *metrics, int **out) {
    Ranked *v = NULL;
    int n = 0;
    collect_lines(metrics, &v, &n, NULL, 0);
    qsort(v, (size_t)n, sizeof *v, cmp_ranked);
    *out = xcalloc((size_t)(n ? n : 1), sizeof **out);
    for (int i = 0; i < n; i++) (*out)[i] = v[i].line;
    free(v);
    return n;
}

/* Whether any launch's metrics say the line ran. */
static bool line_ran(const json_t *metrics, int line) {
    bool *ran = xcalloc((size_t)line + 1, sizeof *ran);
    collect_lines(metrics, NULL, NULL, ran, line);
    bool r = ran[line];
    free(ran);
    return r;
}

/* ---- the line's accesses in a recording -------------------------------------------------------- */
static bool has_code(const EmuTrace *tr, int line) {
    return tr->line_flags && line >= 0 && line <= tr->max_line && (tr->line_flags[line] & EMU_LINE_CODE);
}

/* The global/shared accesses the first time the warp ran the line; false when it never did. */
static bool find_accesses(const EmuTrace *tr, int line, int *first, int *end, int *times) {
    int f = -1, total = 0;
    for (int i = 0; i < tr->n_mem; i++) {
        const EmuTraceMem *m = &tr->mem[i];
        if (m->line != line || m->space == EMU_MEM_LOCAL) continue;
        if (f < 0) f = i;
        total++;
    }
    if (f < 0) return false;
    int e = f + 1;
    while (e < tr->n_mem && tr->mem[e].step == tr->mem[f].step &&
           (tr->mem[e].line == line || tr->mem[e].space == EMU_MEM_LOCAL))
        e++;
    while (e > f + 1 && tr->mem[e - 1].space == EMU_MEM_LOCAL) e--;
    int per = 0;
    for (int i = f; i < e; i++) per += tr->mem[i].space != EMU_MEM_LOCAL;
    *first = f;
    *end = e;
    *times = per ? total / per : 1;
    return true;
}

static Diag *at_line(const DebugTarget *tg, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static Diag *at_line(const DebugTarget *tg, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    Diag *d = diag_new(DIAG_ERROR, "explain", tg->display, line, 0, "%s", msg);
    free(msg);
    return d;
}

/* Fills x's line fields from its recording (the line has accesses there). */
static void point_at(AccessExplain *x, int line) {
    x->line = line;
    find_accesses(x->trace, line, &x->first, &x->end, &x->times);
    x->rank = -1;
    for (int i = 0; i < x->n_ranked; i++)
        if (x->ranked[i] == line) x->rank = i;
}

/* Finds the kernel with code on `line` (tr is the first launch's recording;
 * replaced when another kernel has it). False when none has. */
static bool kernel_of_line(const DebugTarget *tg, const AccessExplainRequest *rq, const unsigned block[3], int warp,
                           const json_t *metrics, int line, EmuTrace **tr, Diag **err) {
    if (has_code(*tr, line)) return true;
    const char *name;
    json_t *v;
    json_object_foreach(json_object_get(metrics, "kernels"), name, v) {
        if (!strcmp(name, (*tr)->kernel)) continue;
        RunResult *res = NULL;
        EmuTrace *other = run_traced(tg, rq, name, block, warp, &res, err);
        run_result_free(&res);
        if (!other) return false;
        if (has_code(other, line)) {
            emu_trace_free(tr);
            *tr = other;
            return true;
        }
        emu_trace_free(&other);
    }
    return false;
}

/* Looks for the first warp (block 0's warps in order, then the next blocks'
 * first warps) whose recording has accesses on the line. */
static EmuTrace *first_warp_on_line(const DebugTarget *tg, const AccessExplainRequest *rq, EmuTrace *tr, int line,
                                    Diag **err) {
    char *kernel = xstrdup(tr->kernel);
    int n_warps = tr->n_warps;
    unsigned blocks = tr->grid.x * tr->grid.y * tr->grid.z;
    EmuTrace *found = NULL;
    for (int k = 1; k <= MAX_WARP_TRIES && !found; k++) {
        unsigned b[3] = {0, 0, 0};
        int w = k;
        if (k >= n_warps) {   /* past block 0's warps: the first warp of the next blocks */
            unsigned lin = (unsigned)(k - n_warps + 1);
            if (lin >= blocks) break;
            b[0] = lin % tr->grid.x;
            b[1] = lin / tr->grid.x % tr->grid.y;
            b[2] = lin / (tr->grid.x * tr->grid.y);
            w = 0;
        }
        RunResult *res = NULL;
        EmuTrace *t = run_traced(tg, rq, kernel, b, w, &res, err);
        run_result_free(&res);
        if (!t) break;
        int f, e, times;
        if (find_accesses(t, line, &f, &e, &times)) found = t;
        else emu_trace_free(&t);
    }
    free(kernel);
    return found;
}

Diag *access_explain_run(const DebugTarget *tg, const AccessExplainRequest *rq, AccessExplain *x) {
    int line = rq->line;
    if (!line && x->n_ranked) line = x->ranked[((rq->rank % x->n_ranked) + x->n_ranked) % x->n_ranked];
    int f, e, times;
    if (line && x->trace && !rq->has_warp && find_accesses(x->trace, line, &f, &e, &times)) {
        point_at(x, line);
        return NULL;
    }
    unsigned block[3] = {0, 0, 0};
    int warp = 0;
    if (rq->has_warp) {
        memcpy(block, rq->block, sizeof block);
        warp = rq->warp;
    }
    Diag *err = NULL;
    RunResult *res = NULL;
    EmuTrace *tr = run_traced(tg, rq, NULL, block, warp, &res, &err);
    if (!tr) return err;
    AccessExplain nx = {.trace = tr, .rank = -1};
    nx.n_ranked = rank_lines(res->metrics, &nx.ranked);
    nx.verdict = xstrdup(verdict_words(res->verdict));
    if (!line) {
        if (!nx.n_ranked) {
            err = diag_error("explain", _("%s: no global or shared memory access ran, so there is no worst line"),
                             tg->ex->id);
            goto fail;
        }
        line = nx.ranked[((rq->rank % nx.n_ranked) + nx.n_ranked) % nx.n_ranked];
    }
    if (!kernel_of_line(tg, rq, block, warp, res->metrics, line, &nx.trace, &err)) {
        if (!err)
            err = at_line(tg, line, _("line %d has no code of a kernel this exercise launches (a comment, a "
                                      "declaration, host code or a line the compiler folded into another)"), line);
        goto fail;
    }
    if (!(nx.trace->line_flags[line] & EMU_LINE_MEM)) {
        err = at_line(tg, line, _("line %d reads and writes no global or shared memory (its values stay in "
                                  "registers), so it has no access map; --explain worst picks the costliest line"),
                      line);
        goto fail;
    }
    if (!find_accesses(nx.trace, line, &f, &e, &times)) {
        const EmuTrace *t = nx.trace;
        if (rq->has_warp) {
            err = at_line(tg, line, _("warp %d of block (%u,%u,%u) never ran line %d's memory accesses (%s); "
                                      "try another with --block and --warp"),
                          t->warp, t->block_idx[0], t->block_idx[1], t->block_idx[2], line,
                          t->note ? t->note : _("other lanes or blocks run it"));
            goto fail;
        }
        if (json_object_size(json_object_get(res->metrics, "kernels")) <= 1 && !line_ran(res->metrics, line)) {
            err = at_line(tg, line, _("line %d never ran in this run (no thread reached it)"), line);
            goto fail;
        }
        EmuTrace *other = first_warp_on_line(tg, rq, nx.trace, line, &err);
        if (!other) {
            if (!err)
                err = at_line(tg, line, _("line %d: none of the first %d warps tried ran its memory accesses; "
                                          "name one with --block and --warp"),
                              line, MAX_WARP_TRIES + 1);
            goto fail;
        }
        emu_trace_free(&nx.trace);
        nx.trace = other;
    }
    run_result_free(&res);
    access_explain_fini(x);
    *x = nx;
    point_at(x, line);
    return NULL;
fail:
    run_result_free(&res);
    access_explain_fini(&nx);
    return err;
}

void access_explain_fini(AccessExplain *x) {
    emu_trace_free(&x->trace);
    free(x->ranked);
    free(x->verdict);
    memset(x, 0, sizeof *x);
    x->rank = -1;
}

/* Line `line` (1-based) of src, NULL past the end (points into src). */
static const char *source_line(const char *src, int line) {
    if (!src || line < 1) return NULL;
    const char *s = src;
    for (int i = 1; i < line; i++) {
        s = strchr(s, '\n');
        if (!s) return NULL;
        s++;
    }
    return s;
}

void access_explain_render(AccessMapText *out, const AccessExplain *x, const char *source, int width, bool utf8) {
    const EmuTrace *tr = x->trace;
    if (!tr) return;
    for (int i = x->first; i < x->end; i++) {
        const EmuTraceMem *m = &tr->mem[i];
        if (m->space == EMU_MEM_LOCAL) continue;
        AccessMapInput in = {.mem = m, .regions = tr->regions, .n_regions = tr->n_regions,
                             .source = i == x->first ? source_line(source, m->line) : NULL,
                             .block = {tr->block_idx[0], tr->block_idx[1], tr->block_idx[2]}, .warp = tr->warp,
                             .times = x->times};
        if (i > x->first) access_map_text_add(out, "%s", "");
        access_map_render(out, &in, width, utf8);
    }
}
