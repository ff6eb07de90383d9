/* app/tui/tui_debug.c: the warp debugger's screen: one warp of one block
 * of the learner's kernel, a source line at a time.
 *
 * The run is recorded once (app/cmd_debug.c's debug_trace_run, the
 * recorder kernels/emu/emu_trace.c); stepping forward and back replays the
 * recording, so a key costs one redraw. Rows, top to bottom: where we are;
 * the source with the current line; the 32 lanes (running / waiting on
 * the other side of a branch / exited); the named variables per lane; the
 * block's shared memory as a grid of 4-byte words (the words this step's
 * line touched marked); the step's memory instruction or the finding.
 * w and B follow another warp or block: that is a new recording. */
#include "app/tui/tui.h"

#include <stdlib.h>
#include <string.h>

#include "app/tui/tui_debug.h"
#include "base/i18n.h"
#include "base/xalloc.h"

typedef struct DebugPanel {
    Panel base;
    DebugTarget tg;          /* copies of the strings */
    EmuTrace *tr;
    int step;
    int lane0;               /* first lane of the variables table */
    char **src;              /* the source's lines (src[0] is line 1) */
    int n_src;
} DebugPanel;

static const TuiKeyHelp DEBUG_HELP[] = {
    {"n → Space", N_("next step (the warp's next line)")},
    {"p ←", N_("step back")},
    {"b", N_("run to the next __syncthreads()")},
    {"e / g", N_("run to the end / back to the start")},
    {"f", N_("the line of the first finding")},
    {"w / B", N_("follow the next warp / the next block (records it)")},
    {"< >", N_("other lanes in the variables table")},
    {"q Esc", N_("back")},
    {NULL, NULL},
};

static void split_source(DebugPanel *dp) {
    const char *s = dp->tg.source ? dp->tg.source : "";
    int cap = 64;
    dp->src = xcalloc((size_t)cap, sizeof *dp->src);
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (dp->n_src == cap) {
            cap *= 2;
            dp->src = xrealloc(dp->src, sizeof *dp->src * (size_t)cap);
        }
        char *l = xstrndup(s, n);
        for (char *p = l; *p; p++)
            if (*p == '\t') *p = ' ';
        dp->src[dp->n_src++] = l;
        if (!e) break;
        s = e + 1;
    }
}

/* A 4-byte word as a reader expects it: a float when its bits look like one, else an integer. */
static void format_word(uint32_t u, char *buf, size_t n) {
    float f;
    memcpy(&f, &u, 4);
    uint32_t ex = (u >> 23) & 0xff;
    if (u == 0) snprintf(buf, n, "0");
    else if (ex >= 103 && ex <= 157 && (u & 0x7f) == 0) snprintf(buf, n, "%.4g", f);   /* ~1e-7 .. ~1e9, few bits */
    else snprintf(buf, n, "%d", (int32_t)u);
}

static void draw_source(DebugPanel *dp, Tui *t, int y, int h, int w, int line) {
    int first = line - h / 2;
    if (first > dp->n_src - h + 1) first = dp->n_src - h + 1;
    if (first < 1) first = 1;
    for (int r = 0; r < h; r++) {
        int ln = first + r;
        if (ln > dp->n_src) break;
        bool cur = ln == line;
        char num[16];
        snprintf(num, sizeof num, "%4d ", ln);
        tui_fill(y + r, 0, w, cur ? ROLE_SELECTED : ROLE_NORMAL);
        tui_put(y + r, 0, 2, cur ? ROLE_SELECTED : ROLE_NORMAL, cur ? tui_glyph(t, "▶", ">") : " ");
        tui_put(y + r, 1, 5, cur ? ROLE_SELECTED : ROLE_DIM, num);
        tui_put_clip(t, y + r, 6, w - 7, cur ? ROLE_SELECTED : ROLE_CODEBLOCK, dp->src[ln - 1]);
    }
}

static void draw_lanes(DebugPanel *dp, Tui *t, int y, int w, const EmuTraceStep *st) {
    const char *run = tui_glyph(t, "●", "#"), *wait = tui_glyph(t, "○", "o"), *gone = tui_glyph(t, "·", ".");
    int x = tui_put(y, 1, w - 2, ROLE_BOLD, _("lanes")) + 2;
    for (int l = 0; l < 32 && x < w - 1; l++) {
        bool a = st->active >> l & 1, live = st->live >> l & 1;
        tui_put(y, x++, 1, a ? ROLE_PASS : live ? ROLE_DIM : ROLE_DIM, a ? run : live ? wait : gone);
        if (l % 8 == 7) x++;
    }
    char buf[128];
    snprintf(buf, sizeof buf, _("%d running, %d waiting, %d exited"), __builtin_popcount(st->active),
             __builtin_popcount(st->live & ~st->active), 32 - __builtin_popcount(st->live));
    if (x + 2 < w) tui_put_clip(t, y, x + 1, w - x - 2, ROLE_DIM, buf);
    (void)dp;
}

static void draw_vars(DebugPanel *dp, Tui *t, int y, int h, int w, int s) {
    const EmuTrace *tr = dp->tr;
    int per = (w - 11) / 9;
    if (per < 1) per = 1;
    if (per > 32) per = 32;
    if (dp->lane0 > 32 - per) dp->lane0 = 32 - per > 0 ? (32 - per) / per * per : 0;
    char buf[64];
    tui_put(y, 1, 10, ROLE_BOLD, _("lane"));
    for (int i = 0; i < per && dp->lane0 + i < 32; i++) {
        snprintf(buf, sizeof buf, "%8d", dp->lane0 + i);
        tui_put(y, 11 + i * 9, 9, ROLE_BOLD, buf);
    }
    if (tr->n_vars == 0) {
        tui_put_clip(t, y + 1, 1, w - 2, ROLE_DIM, _("(no named variables: no line of this kernel assigns one)"));
        return;
    }
    const EmuTraceVal *v = emu_trace_vals(tr, s);
    const EmuTraceStep *st = &tr->steps[s];
    int rows = tr->n_vars < h ? tr->n_vars : h;
    for (int r = 0; r < rows; r++) {
        int vi = r;
        tui_put_clip(t, y + 1 + r, 1, 10, ROLE_CODE, tr->var_names[vi]);
        for (int i = 0; i < per && dp->lane0 + i < 32; i++) {
            int l = dp->lane0 + i;
            emu_trace_format(&v[vi], l, buf, sizeof buf);
            char cell[16];
            snprintf(cell, sizeof cell, "%8.8s", buf);
            tui_put(y + 1 + r, 11 + i * 9, 9, st->active >> l & 1 ? ROLE_NORMAL : ROLE_DIM, cell);
        }
    }
    if (tr->n_vars > rows) {
        snprintf(buf, sizeof buf, _("+%d more"), tr->n_vars - rows);
        tui_put(y + rows, w - 12, 11, ROLE_DIM, buf);
    }
}

/* Whether the step's memory records touch shared word `word`. */
static bool touched(const EmuTrace *tr, int s, size_t word) {
    int a, b;
    emu_trace_mem_of(tr, s, &a, &b);
    for (int i = a; i < b; i++) {
        const EmuTraceMem *m = &tr->mem[i];
        if (m->space != EMU_MEM_SHARED) continue;
        for (int l = 0; l < 32; l++)
            if (m->mask >> l & 1 && m->addr[l] / 4 <= word && word <= (m->addr[l] + m->width - 1) / 4) return true;
    }
    return false;
}

static void draw_shared(DebugPanel *dp, Tui *t, int y, int h, int w, int s) {
    const EmuTrace *tr = dp->tr;
    char buf[160];
    if (!tr->shared_size) {
        tui_put_clip(t, y, 1, w - 2, ROLE_DIM, _("shared memory: none in this kernel"));
        return;
    }
    const unsigned char *sh = emu_trace_shared_at(tr, s);
    size_t words = tr->shared_size / 4;
    int per = (w - 8) / 9;
    if (per < 1) per = 1;
    /* start at the row of the first word this step touches */
    size_t first = 0;
    int a, b;
    emu_trace_mem_of(tr, s, &a, &b);
    for (int i = a; i < b; i++)
        if (tr->mem[i].space == EMU_MEM_SHARED) { first = tr->mem[i].addr[__builtin_ctz(tr->mem[i].mask)] / 4; break; }
    first = first / (size_t)per * (size_t)per;
    if (first + (size_t)per * (size_t)(h - 1) > words && words > (size_t)per * (size_t)(h - 1))
        first = (words - (size_t)per * (size_t)(h - 1) + (size_t)per - 1) / (size_t)per * (size_t)per;
    if (first + (size_t)per * (size_t)(h - 1) > words) first = 0;
    snprintf(buf, sizeof buf, _("shared memory (%zu bytes, 4-byte words; marked: used by this line)"), tr->shared_size);
    tui_put_clip(t, y, 1, w - 2, ROLE_BOLD, buf);
    if (!sh) {
        tui_put_clip(t, y + 1, 1, w - 2, ROLE_DIM, _("(not recorded yet at this step)"));
        return;
    }
    for (int r = 0; r < h - 1; r++) {
        size_t base = first + (size_t)r * (size_t)per;
        if (base >= words) break;
        snprintf(buf, sizeof buf, "%6zu", base);
        tui_put(y + 1 + r, 0, 7, ROLE_DIM, buf);
        for (int i = 0; i < per && base + (size_t)i < words; i++) {
            uint32_t u;
            memcpy(&u, sh + (base + (size_t)i) * 4, 4);
            char v[32], cell[16];
            format_word(u, v, sizeof v);
            snprintf(cell, sizeof cell, "%8.8s", v);
            tui_put(y + 1 + r, 8 + i * 9, 9, touched(tr, s, base + (size_t)i) ? ROLE_SEARCH : ROLE_NORMAL, cell);
        }
    }
}

/* The bottom line: the finding the step's line makes, else its memory instruction, else the trace's note. */
static void draw_message(DebugPanel *dp, Tui *t, int y, int w, int s) {
    const EmuTrace *tr = dp->tr;
    char buf[512];
    if (s + 1 < tr->n_steps && tr->steps[s + 1].findings > tr->steps[s].findings) {
        const char *msg = "";
        for (int i = 0; i < tr->n_findings; i++)
            if (tr->findings[i].line == tr->steps[s].line) { msg = tr->findings[i].message; break; }
        snprintf(buf, sizeof buf, _("this line makes a finding: %s"), msg);
        tui_put_clip(t, y, 1, w - 2, ROLE_FAIL, buf);
        return;
    }
    int a, b;
    emu_trace_mem_of(tr, s, &a, &b);
    if (a < b) {
        const EmuTraceMem *m = &tr->mem[a];
        static const char *const space[] = {"global", "shared", "local"}, *const op[] = {"load", "store", "atomic"};
        int l = __builtin_ctz(m->mask);
        snprintf(buf, sizeof buf, _("%s %s of %d bytes by %d lanes; lane %d at %s%llx%s"), space[m->space % 3],
                 op[m->op % 3], m->width, __builtin_popcount(m->mask), l, m->space == EMU_MEM_GLOBAL ? "0x" : "byte 0x",
                 (unsigned long long)m->addr[l], b - a > 1 ? _(" (and more)") : "");
        tui_put_clip(t, y, 1, w - 2, ROLE_DIM, buf);
    } else if (tr->note) {
        tui_put_clip(t, y, 1, w - 2, ROLE_WARN, tr->note);
    }
}

static void debug_draw(Panel *pn, Tui *t, int top, int h, int w) {
    DebugPanel *dp = (DebugPanel *)pn;
    const EmuTrace *tr = dp->tr;
    char *title = xasprintf(_("cudojo — Debugger: %s"), tui_exercise_title(t, dp->tg.ex));
    char right[96];
    snprintf(right, sizeof right, _("block (%u,%u,%u) warp %d/%d"), tr->block_idx[0], tr->block_idx[1],
             tr->block_idx[2], tr->warp, tr->n_warps);
    tui_draw_title(t, title, right);
    free(title);
    tui_draw_status(t, _("n next  p back  b barrier  e end  f finding  w warp  B block  < > lanes  q quit"));
    if (tr->n_steps == 0) {
        tui_put_clip(t, top + 1, 1, w - 2, ROLE_WARN, tr->note ? tr->note : _("nothing was recorded"));
        return;
    }
    int s = dp->step;
    const EmuTraceStep *st = &tr->steps[s];
    char buf[256];
    snprintf(buf, sizeof buf, _("step %d of %d · line %d%s · kernel %s"), s + 1, tr->n_steps, st->line,
             st->kind == EMU_STEP_BARRIER ? _(" · at __syncthreads()") : st->kind == EMU_STEP_END ? _(" · finished") : "",
             tr->kernel);
    tui_put_clip(t, top, 1, w - 2, ROLE_BOLD, buf);
    int var_rows = tr->n_vars < 1 ? 1 : tr->n_vars;
    int sh_rows = h >= 30 ? 8 : 4;
    if (var_rows > (h >= 30 ? 10 : 5)) var_rows = h >= 30 ? 10 : 5;
    int src_h = h - 1 - 1 - 1 - var_rows - sh_rows - 1;
    if (src_h < 3) {
        sh_rows = 2;
        src_h = h - 5 - var_rows - sh_rows;
    }
    if (src_h < 1) src_h = 1;
    int y = top + 1;
    draw_source(dp, t, y, src_h, w, st->line);
    y += src_h;
    draw_lanes(dp, t, y++, w, st);
    draw_vars(dp, t, y, var_rows, w, s);
    y += var_rows + 1;
    draw_shared(dp, t, y, sh_rows, w, s);
    y += sh_rows;
    if (y < top + h) draw_message(dp, t, top + h - 1, w, s);
}

/* Records another warp or block and keeps the place: the first step at the line shown. */
static void follow(DebugPanel *dp, Tui *t, const unsigned block[3], int warp) {
    Diag *err = NULL;
    int line = dp->tr->n_steps ? dp->tr->steps[dp->step].line : 0;
    EmuTrace *tr = debug_trace_run(&dp->tg, block, warp, &err);
    if (!tr) {
        tui_notify(t, true, "%s", err ? err->message : "the run failed");
        diag_free(&err);
        return;
    }
    emu_trace_free(&dp->tr);
    dp->tr = tr;
    int s = emu_trace_find_line(tr, line, 0);
    dp->step = s >= 0 ? s : 0;
    if (tr->n_steps == 0) dp->step = 0;
}

static int debug_key(Panel *pn, Tui *t, int key) {
    DebugPanel *dp = (DebugPanel *)pn;
    EmuTrace *tr = dp->tr;
    int last = tr->n_steps ? tr->n_steps - 1 : 0;
    switch (key) {
    case 'q': case 27: return TUI_POP;
    case 'n': case ' ': case KEY_RIGHT: case 'j': case KEY_DOWN:
        if (dp->step < last) dp->step++;
        else tui_notify(t, false, "%s", _("The warp has finished: this is the last step."));
        return TUI_HANDLED;
    case 'p': case KEY_LEFT: case 'k': case KEY_UP:
        if (dp->step > 0) dp->step--;
        return TUI_HANDLED;
    case 'b': dp->step = emu_trace_next_barrier(tr, dp->step); return TUI_HANDLED;
    case 'e': case 'G': dp->step = last; return TUI_HANDLED;
    case 'g': dp->step = 0; return TUI_HANDLED;
    case 'f': {
        int s = emu_trace_find_finding(tr);
        if (s >= 0) dp->step = s;
        else tui_notify(t, false, "%s", _("This warp's block made no finding."));
        return TUI_HANDLED;
    }
    case '<': dp->lane0 = dp->lane0 >= 8 ? dp->lane0 - 8 : 0; return TUI_HANDLED;
    case '>': if (dp->lane0 < 24) dp->lane0 += 8; return TUI_HANDLED;
    case 'w': {
        int nw = tr->n_warps > 0 ? tr->n_warps : 1;
        follow(dp, t, tr->block_idx, (tr->warp + 1) % nw);
        return TUI_HANDLED;
    }
    case 'B': {
        unsigned b[3] = {tr->block_idx[0] + 1, tr->block_idx[1], tr->block_idx[2]};
        if (b[0] >= tr->grid.x) {
            b[0] = 0;
            if (++b[1] >= tr->grid.y) { b[1] = 0; if (++b[2] >= tr->grid.z) b[2] = 0; }
        }
        follow(dp, t, b, tr->warp);
        return TUI_HANDLED;
    }
    default: return TUI_UNHANDLED;
    }
}

static void debug_free(Panel *pn, Tui *t) {
    (void)t;
    DebugPanel *dp = (DebugPanel *)pn;
    emu_trace_free(&dp->tr);
    for (int i = 0; i < dp->n_src; i++) free(dp->src[i]);
    free(dp->src);
    debug_target_fini(&dp->tg);
    free(dp);
}

static Panel *panel_new(const DebugTarget *tg, EmuTrace *tr, int start) {
    DebugPanel *dp = xcalloc(1, sizeof *dp);
    dp->base = (Panel){.title = N_("Warp debugger"), .help = DEBUG_HELP, .draw = debug_draw, .key = debug_key,
                       .free = debug_free};
    dp->tg = *tg;
    dp->tg.cu_path = xstrdup(tg->cu_path);
    dp->tg.display = xstrdup(tg->display);
    dp->tg.source = xstrdup(tg->source ? tg->source : "");
    dp->tr = tr;
    dp->step = start >= 0 && start < tr->n_steps ? start : 0;
    split_source(dp);
    return &dp->base;
}

Panel *tui_debug_new(Tui *t, const ChapterMeta *ch, const ExerciseMeta *ex) {
    if (ex->program) {
        tui_notify(t, true, "%s", _("The debugger steps through kernels of kernel exercises; this one is a whole program."));
        return NULL;
    }
    char *path = workspace_exercise_path(t->ws, ch, ex);
    DebugTarget tg;
    Diag *d = debug_target_init(&tg, ch, ex, path);
    free(path);
    if (d) {
        tui_notify(t, true, "%s", d->message);
        diag_free(&d);
        return NULL;
    }
    unsigned b[3] = {0, 0, 0};
    EmuTrace *tr = debug_trace_run(&tg, b, 0, &d);
    if (!tr) {
        tui_notify(t, true, "%s", d ? d->message : "the run failed");
        diag_free(&d);
        debug_target_fini(&tg);
        return NULL;
    }
    Panel *p = panel_new(&tg, tr, 0);
    debug_target_fini(&tg);
    return p;
}

typedef struct OpenCtx {
    const DebugTarget *tg;
    EmuTrace *tr;
    int start;
} OpenCtx;

static Panel *open_debug(Tui *t, void *ctx) {
    (void)t;
    OpenCtx *o = ctx;
    return panel_new(o->tg, o->tr, o->start);
}

int tui_debug_open(Cli *cli, const DebugTarget *tg, EmuTrace *tr, int start) {
    OpenCtx o = {tg, tr, start};
    return tui_run_standalone(cli, open_debug, &o);
}
