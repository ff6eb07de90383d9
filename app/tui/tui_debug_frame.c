/* app/tui/tui_debug_frame.c: the warp debugger's frame, built off screen
 * (see tui_debug_frame.h). Rows, top to bottom: where we are; the source
 * with the current line; the 32 lanes (running / waiting on the other side
 * of a branch / exited); the named variables per lane; the block's shared
 * memory as a grid of 4-byte words (the words this step's line touched
 * marked); the step's memory instruction or the finding. */
#include "app/tui/tui_debug_frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/tui/tui_text.h"
#include "base/i18n.h"
#include "base/xalloc.h"

/* ---- the view ----------------------------------------------------------------------- */
static void split_source(DebugView *v, const char *s) {
    int cap = 64;
    v->src = xcalloc((size_t)cap, sizeof *v->src);
    while (s && *s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (v->n_src == cap) {
            cap *= 2;
            v->src = xrealloc(v->src, sizeof *v->src * (size_t)cap);
        }
        char *l = xstrndup(s, n);
        for (char *p = l; *p; p++)
            if (*p == '\t') *p = ' ';
        v->src[v->n_src++] = l;
        if (!e) break;
        s = e + 1;
    }
}

void debug_view_init(DebugView *v, const EmuTrace *tr, const char *source) {
    memset(v, 0, sizeof *v);
    v->tr = tr;
    split_source(v, source);
}

void debug_view_fini(DebugView *v) {
    for (int i = 0; i < v->n_src; i++) free(v->src[i]);
    free(v->src);
    memset(v, 0, sizeof *v);
}

void debug_view_retrace(DebugView *v, const EmuTrace *tr) {
    int line = v->tr && v->tr->n_steps ? v->tr->steps[v->step].line : 0;
    v->tr = tr;
    int s = tr->n_steps ? emu_trace_find_line(tr, line, 0) : 0;
    v->step = s >= 0 ? s : 0;
}

bool debug_view_move(DebugView *v, DebugMove m) {
    const EmuTrace *tr = v->tr;
    int last = tr->n_steps ? tr->n_steps - 1 : 0;
    switch (m) {
    case DEBUG_MOVE_NEXT:
        if (v->step >= last) return false;
        v->step++;
        return true;
    case DEBUG_MOVE_BACK:
        if (v->step > 0) v->step--;
        return true;
    case DEBUG_MOVE_BARRIER:
        if (tr->n_steps) v->step = emu_trace_next_barrier(tr, v->step);
        return true;
    case DEBUG_MOVE_END: v->step = last; return true;
    case DEBUG_MOVE_START: v->step = 0; return true;
    case DEBUG_MOVE_FINDING: {
        int s = emu_trace_find_finding(tr);
        if (s < 0) return false;
        v->step = s;
        return true;
    }
    case DEBUG_MOVE_LANES_LEFT: v->lane0 = v->lane0 >= 8 ? v->lane0 - 8 : 0; return true;
    case DEBUG_MOVE_LANES_RIGHT: if (v->lane0 < 24) v->lane0 += 8; return true;
    }
    return false;
}

/* ---- the frame's drawing primitives (tui_put's rules) ---------------------------------- */
void debug_frame_init(DebugFrame *f, int rows, int cols, bool utf8) {
    f->rows = rows > 0 ? rows : 0;
    f->cols = cols > 0 ? cols : 0;
    f->utf8 = utf8;
    f->cells = xcalloc((size_t)f->rows * (size_t)f->cols + 1, sizeof *f->cells);
}

void debug_frame_fini(DebugFrame *f) {
    free(f->cells);
    memset(f, 0, sizeof *f);
}

static DebugCell *cell_at(DebugFrame *f, int y, int x) {
    return &f->cells[(size_t)y * (size_t)f->cols + (size_t)x];
}

static const char *glyph(const DebugFrame *f, const char *utf8, const char *ascii) {
    return f->utf8 ? utf8 : ascii;
}

/* Blanks w columns at (y, x) in `role`. */
static void frame_fill(DebugFrame *f, int y, int x, int w, int role) {
    if (y < 0 || y >= f->rows) return;
    if (x < 0) { w += x; x = 0; }
    if (x + w > f->cols) w = f->cols - x;
    for (int i = 0; i < w; i++) {
        DebugCell *c = cell_at(f, y, x + i);
        c->g[0] = ' ';
        c->g[1] = 0;
        c->role = (unsigned char)role;
    }
}

/* UTF-8 text at (y, x), at most maxw columns (a control character shows as
 * '?', a character that does not fit whole is left out); the columns used. */
static int frame_put(DebugFrame *f, int y, int x, int maxw, int role, const char *s) {
    if (!s || y < 0 || y >= f->rows || x < 0) return 0;
    if (x + maxw > f->cols) maxw = f->cols - x;
    if (maxw <= 0) return 0;
    size_t n = strlen(s), i = 0;
    int used = 0;
    while (i < n) {
        int c;
        size_t k = text_char(s + i, n - i, &c);
        unsigned char b = (unsigned char)s[i];
        bool ctl = k == 1 && (b < 32 || b == 127 || b >= 0x80);
        if (ctl) c = 1;
        if (used + c > maxw) break;
        if (c == 0) {   /* combining: joins the character before it when it fits */
            if (used > 0) {
                DebugCell *p = cell_at(f, y, x + used - 1);
                if (!p->g[0] && used > 1) p = cell_at(f, y, x + used - 2);
                size_t have = strlen(p->g);
                if (have + k < sizeof p->g) memcpy(p->g + have, s + i, k), p->g[have + k] = 0;
            }
            i += k;
            continue;
        }
        DebugCell *cl = cell_at(f, y, x + used);
        if (ctl || k >= sizeof cl->g) {
            cl->g[0] = b == '\t' ? ' ' : '?';
            cl->g[1] = 0;
        } else {
            memcpy(cl->g, s + i, k);
            cl->g[k] = 0;
        }
        cl->role = (unsigned char)role;
        if (c == 2) {
            DebugCell *r = cell_at(f, y, x + used + 1);
            r->g[0] = 0;
            r->role = (unsigned char)role;
        }
        used += c;
        i += k;
    }
    return used;
}

/* The same, ending in "…" when the text is cut. */
static int frame_put_clip(DebugFrame *f, int y, int x, int maxw, int role, const char *s) {
    if (text_width(s) <= maxw || maxw < 2) return frame_put(f, y, x, maxw, role, s);
    int used = frame_put(f, y, x, maxw - 1, role, s);
    return used + frame_put(f, y, x + used, 1, role, glyph(f, "…", "~"));
}

char *debug_frame_row_text(const DebugFrame *f, int y) {
    size_t cap = (size_t)f->cols * 6 + 1, n = 0;
    char *s = xmalloc(cap);
    for (int x = 0; y >= 0 && y < f->rows && x < f->cols; x++) {
        const char *g = debug_frame_cell(f, y, x)->g;
        size_t k = strlen(g);
        memcpy(s + n, g, k);
        n += k;
    }
    s[n] = 0;
    return s;
}

/* ---- the parts ------------------------------------------------------------------------ */
/* A 4-byte word as a reader expects it: a float when its bits look like one, else an integer. */
static void format_word(uint32_t u, char *buf, size_t n) {
    float fl;
    memcpy(&fl, &u, 4);
    uint32_t ex = (u >> 23) & 0xff;
    if (u == 0) snprintf(buf, n, "0");
    else if (ex >= 103 && ex <= 157 && (u & 0x7f) == 0) snprintf(buf, n, "%.4g", fl);   /* ~1e-7 .. ~1e9, few bits */
    else snprintf(buf, n, "%d", (int32_t)u);
}

static void draw_source(DebugFrame *f, const DebugView *v, int y, int h, int w, int line) {
    int first = line - h / 2;
    if (first > v->n_src - h + 1) first = v->n_src - h + 1;
    if (first < 1) first = 1;
    for (int r = 0; r < h; r++) {
        int ln = first + r;
        if (ln > v->n_src) break;
        bool cur = ln == line;
        char num[16];
        snprintf(num, sizeof num, "%4d ", ln);
        frame_fill(f, y + r, 0, w, cur ? ROLE_SELECTED : ROLE_NORMAL);
        frame_put(f, y + r, 0, 2, cur ? ROLE_SELECTED : ROLE_NORMAL, cur ? glyph(f, "▶", ">") : " ");
        frame_put(f, y + r, 1, 5, cur ? ROLE_SELECTED : ROLE_DIM, num);
        frame_put_clip(f, y + r, 6, w - 7, cur ? ROLE_SELECTED : ROLE_CODEBLOCK, v->src[ln - 1]);
    }
}

static void draw_lanes(DebugFrame *f, int y, int w, const EmuTraceStep *st) {
    const char *run = glyph(f, "●", "#"), *wait = glyph(f, "○", "o"), *gone = glyph(f, "·", ".");
    int x = frame_put(f, y, 1, w - 2, ROLE_BOLD, _("lanes")) + 2;
    for (int l = 0; l < 32 && x < w - 1; l++) {
        bool a = st->active >> l & 1, live = st->live >> l & 1;
        frame_put(f, y, x++, 1, a ? ROLE_PASS : ROLE_DIM, a ? run : live ? wait : gone);
        if (l % 8 == 7) x++;
    }
    char buf[128];
    snprintf(buf, sizeof buf, _("%d running, %d waiting, %d exited"), __builtin_popcount(st->active),
             __builtin_popcount(st->live & ~st->active), 32 - __builtin_popcount(st->live));
    if (x + 2 < w) frame_put_clip(f, y, x + 1, w - x - 2, ROLE_DIM, buf);
}

static void draw_vars(DebugFrame *f, DebugView *v, int y, int h, int w, int s) {
    const EmuTrace *tr = v->tr;
    int per = (w - 11) / 9;
    if (per < 1) per = 1;
    if (per > 32) per = 32;
    if (v->lane0 > 32 - per) v->lane0 = 32 - per > 0 ? (32 - per) / per * per : 0;
    char buf[64];
    frame_put(f, y, 1, 10, ROLE_BOLD, _("lane"));
    for (int i = 0; i < per && v->lane0 + i < 32; i++) {
        snprintf(buf, sizeof buf, "%8d", v->lane0 + i);
        frame_put(f, y, 11 + i * 9, 9, ROLE_BOLD, buf);
    }
    if (tr->n_vars == 0) {
        frame_put_clip(f, y + 1, 1, w - 2, ROLE_DIM, _("(no named variables: no line of this kernel assigns one)"));
        return;
    }
    const EmuTraceVal *val = emu_trace_vals(tr, s);
    const EmuTraceStep *st = &tr->steps[s];
    int rows = tr->n_vars < h ? tr->n_vars : h;
    for (int r = 0; r < rows; r++) {
        frame_put_clip(f, y + 1 + r, 1, 10, ROLE_CODE, tr->var_names[r]);
        for (int i = 0; i < per && v->lane0 + i < 32; i++) {
            int l = v->lane0 + i;
            emu_trace_format(&val[r], l, buf, sizeof buf);
            char cell[16];
            snprintf(cell, sizeof cell, "%8.8s", buf);
            frame_put(f, y + 1 + r, 11 + i * 9, 9, st->active >> l & 1 ? ROLE_NORMAL : ROLE_DIM, cell);
        }
    }
    if (tr->n_vars > rows) {
        snprintf(buf, sizeof buf, _("+%d more"), tr->n_vars - rows);
        frame_put(f, y + rows, w - 12, 11, ROLE_DIM, buf);
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

static void draw_shared(DebugFrame *f, const DebugView *v, int y, int h, int w, int s) {
    const EmuTrace *tr = v->tr;
    char buf[160];
    if (!tr->shared_size) {
        frame_put_clip(f, y, 1, w - 2, ROLE_DIM, _("shared memory: none in this kernel"));
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
    frame_put_clip(f, y, 1, w - 2, ROLE_BOLD, buf);
    if (!sh) {
        frame_put_clip(f, y + 1, 1, w - 2, ROLE_DIM, _("(not recorded yet at this step)"));
        return;
    }
    for (int r = 0; r < h - 1; r++) {
        size_t base = first + (size_t)r * (size_t)per;
        if (base >= words) break;
        snprintf(buf, sizeof buf, "%6zu", base);
        frame_put(f, y + 1 + r, 0, 7, ROLE_DIM, buf);
        for (int i = 0; i < per && base + (size_t)i < words; i++) {
            uint32_t u;
            memcpy(&u, sh + (base + (size_t)i) * 4, 4);
            char val[32], cell[16];
            format_word(u, val, sizeof val);
            snprintf(cell, sizeof cell, "%8.8s", val);
            frame_put(f, y + 1 + r, 8 + i * 9, 9, touched(tr, s, base + (size_t)i) ? ROLE_SEARCH : ROLE_NORMAL, cell);
        }
    }
}

/* The bottom line: the finding the step's line makes, else its memory instruction, else the trace's note. */
static void draw_message(DebugFrame *f, const DebugView *v, int y, int w, int s) {
    const EmuTrace *tr = v->tr;
    char buf[512];
    if (s + 1 < tr->n_steps && tr->steps[s + 1].findings > tr->steps[s].findings) {
        const char *msg = "";
        for (int i = 0; i < tr->n_findings; i++)
            if (tr->findings[i].line == tr->steps[s].line) { msg = tr->findings[i].message; break; }
        char *shown = i18n_message(msg);   /* the emulator's English, in the language shown */
        snprintf(buf, sizeof buf, _("this line makes a finding: %s"), shown);
        free(shown);
        frame_put_clip(f, y, 1, w - 2, ROLE_FAIL, buf);
        return;
    }
    int a, b;
    emu_trace_mem_of(tr, s, &a, &b);
    if (a < b) {
        const EmuTraceMem *m = &tr->mem[a];
        static const char *const space[] = {N_("global"), N_("shared"), N_("local")},
                                 *const op[] = {N_("load"), N_("store"), N_("atomic")};
        int l = __builtin_ctz(m->mask);
        snprintf(buf, sizeof buf, _("%s %s of %d bytes by %d lanes; lane %d at %s%llx%s"), _(space[m->space % 3]),
                 _(op[m->op % 3]), m->width, __builtin_popcount(m->mask), l, m->space == EMU_MEM_GLOBAL ? "0x" : _("byte 0x"),
                 (unsigned long long)m->addr[l], b - a > 1 ? _(" (and more)") : "");
        frame_put_clip(f, y, 1, w - 2, ROLE_DIM, buf);
    } else if (tr->note) {
        char *note = i18n_message(tr->note);
        frame_put_clip(f, y, 1, w - 2, ROLE_WARN, note);
        free(note);
    }
}

void debug_frame_build(DebugFrame *f, DebugView *v) {
    const EmuTrace *tr = v->tr;
    int h = f->rows, w = f->cols;
    for (int y = 0; y < h; y++) frame_fill(f, y, 0, w, ROLE_NORMAL);
    if (tr->n_steps == 0) {
        frame_put_clip(f, 1, 1, w - 2, ROLE_WARN, tr->note ? tr->note : _("nothing was recorded"));
        return;
    }
    if (v->step >= tr->n_steps) v->step = tr->n_steps - 1;
    int s = v->step;
    const EmuTraceStep *st = &tr->steps[s];
    char buf[256];
    snprintf(buf, sizeof buf, _("step %d of %d · line %d%s · kernel %s"), s + 1, tr->n_steps, st->line,
             st->kind == EMU_STEP_BARRIER ? _(" · at __syncthreads()") : st->kind == EMU_STEP_END ? _(" · finished") : "",
             tr->kernel);
    frame_put_clip(f, 0, 1, w - 2, ROLE_BOLD, buf);
    int var_rows = tr->n_vars < 1 ? 1 : tr->n_vars;
    int sh_rows = h >= 30 ? 8 : 4;
    if (var_rows > (h >= 30 ? 10 : 5)) var_rows = h >= 30 ? 10 : 5;
    int src_h = h - 1 - 1 - 1 - var_rows - sh_rows - 1;
    if (src_h < 3) {
        sh_rows = 2;
        src_h = h - 5 - var_rows - sh_rows;
    }
    if (src_h < 1) src_h = 1;
    int y = 1;
    draw_source(f, v, y, src_h, w, st->line);
    y += src_h;
    draw_lanes(f, y++, w, st);
    draw_vars(f, v, y, var_rows, w, s);
    y += var_rows + 1;
    draw_shared(f, v, y, sh_rows, w, s);
    y += sh_rows;
    if (y < h) draw_message(f, v, h - 1, w, s);
}
