/* app/tui/tui_occupancy.c: the occupancy screen (o in the exercise view),
 * like the CUDA Occupancy Calculator for the learner's own kernels.
 *
 * The numbers come from the last run's metrics (metrics.kernels[name]:
 * registers, static and dynamic shared memory, block size, arch, recorded
 * by every launch), so this screen never compiles or touches CUDA: it only
 * calls the pure occupancy_compute() of kernels/occupancy.h. The learner
 * moves the block size with ←/→ and sees the prediction and the limiter at
 * once; the chart (occupancy against block size, registers per thread or
 * shared memory per block) marks the current point. */
#include "app/tui/tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/xalloc.h"
#include "kernels/occupancy.h"
#include "kernels/profiles.h"

typedef struct OccKernel {
    char *name;
    int registers;          /* -1: not counted in that run */
    int shared_static;      /* bytes, -1 unknown */
    int shared_dynamic;
    int block;              /* what the run launched */
} OccKernel;

enum { CHART_BLOCK, CHART_REGS, CHART_SHARED, CHART_COUNT };

typedef struct OccPanel {
    Panel base;
    char *exercise;
    OccKernel *k;
    int n_k, sel;
    int prof;               /* index of the bundled profile shown */
    int block;              /* the block size being tried */
    int chart;
} OccPanel;

static const TuiKeyHelp OCC_HELP[] = {
    {"←/→ h/l", N_("block size one warp smaller / larger")},
    {"0", N_("back to the block size the run launched")},
    {"a / A", N_("next / previous GPU architecture")},
    {"c", N_("chart: occupancy against block size, registers per thread, shared memory per block")},
    {"Tab", N_("next kernel of the run")},
    {"q Esc", N_("back to the exercise (r there runs it and measures)")},
    {"", ""},
    {N_("occupancy"), N_("active warps per SM / the most an SM holds; the limiter is what ran out first")},
    {NULL, NULL},
};

/* An info line's heading ("Kernel   "), padded by display width so the
 * values line up in either language. Returns buf. */
static const char *head(char *buf, size_t n, const char *label) {
    static const char *const HEADS[] = {N_("Kernel"), N_("Uses"), N_("Block"), "GPU"};
    int w = 0;
    for (size_t i = 0; i < sizeof HEADS / sizeof HEADS[0]; i++)
        if (i18n_width(_(HEADS[i])) > w) w = i18n_width(_(HEADS[i]));
    return i18n_pad(buf, n, label, w + 3, false);
}

static int profile_index(const char *arch) {
    const DeviceProfile *p = profile_find(arch);
    if (!p) p = profile_find("sm_90");
    for (int i = 0; i < profile_count(); i++)
        if (profile_at(i) == p) return i;
    return 0;
}

static int jint(const json_t *o, const char *k, int dflt) {
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static OccKernel *cur(OccPanel *op) { return op->n_k ? &op->k[op->sel] : NULL; }

static OccupancyInput input_of(const OccPanel *op, const OccKernel *k) {
    return (OccupancyInput){op->block, k->registers > 0 ? k->registers : 0,
                            k->shared_static > 0 ? (size_t)k->shared_static : 0,
                            k->shared_dynamic > 0 ? (size_t)k->shared_dynamic : 0};
}

/* Word-wraps s into at most max_lines rows of w display columns from
 * (y, x): at the last space that fits, or where the row is full next to a
 * CJK character (Chinese has no spaces to break at); returns rows used. */
static int put_wrapped(int y, int x, int w, int max_lines, int role, const char *s) {
    int rows = 0;
    while (*s && rows < max_lines && w > 8) {
        size_t i = 0, space = 0, n = strlen(s);
        int col = 0, cols = 0;
        bool wide = false;
        while (i < n) {
            size_t len = text_char(s + i, n - i, &cols);
            if (col + cols > w) break;
            if (s[i] == ' ') space = i;
            wide = cols == 2;
            col += cols;
            i += len;
        }
        size_t cut = i ? i : text_char(s, n, &cols);
        if (i < n) {
            text_char(s + i, n - i, &cols);
            if (!wide && cols < 2 && space > 0) cut = space;
        }
        char *line = xstrndup(s, cut);
        tui_put(y + rows, x, w, role, line);
        free(line);
        s += cut;
        while (*s == ' ') s++;
        rows++;
    }
    return rows;
}

/* An x value as the chart labels it (shared memory in KiB). */
static void fmt_x(char *buf, size_t n, int chart, int x) {
    if (chart == CHART_SHARED) snprintf(buf, n, "%dK", x / 1024);
    else snprintf(buf, n, "%d", x);
}

/* The chart: bars of occupancy per point, the current one marked. */
static void draw_chart(OccPanel *op, Tui *t, const OccKernel *k, const DeviceProfile *p, int y, int h, int w) {
    OccupancyPoint pts[OCCUPANCY_CURVE_MAX];
    OccupancyInput in = input_of(op, k);
    int n = 0, here = 0;
    const char *what = "";
    if (op->chart == CHART_BLOCK) {
        n = occupancy_curve_block(p, &in, pts, OCCUPANCY_CURVE_MAX);
        here = in.block;
        what = _("block size (threads)");
    } else if (op->chart == CHART_REGS) {
        n = occupancy_curve_registers(p, &in, pts, OCCUPANCY_CURVE_MAX);
        here = in.registers;
        what = _("registers per thread");
    } else {
        n = occupancy_curve_shared(p, &in, 1024, pts, OCCUPANCY_CURVE_MAX);
        here = (int)in.shared_dynamic;
        what = _("dynamic shared memory per block (KiB)");
    }
    char title[128];
    snprintf(title, sizeof title, _("Occupancy against %s on %s"), what, p->arch);
    tui_put(y, 1, w - 2, ROLE_H2, title);
    int ch = h - 3;   /* title, axis, labels */
    if (ch > 12) ch = 12;
    int cw = w - 8;
    if (n == 0 || ch < 3 || cw < 16) return;
    if (cw > n * 3) cw = n * 3;   /* at most 3 columns per point */
    /* The marked point: the first at or past the current value. */
    int mark = n - 1;
    for (int j = 0; j < n; j++)
        if (pts[j].x >= here) {
            mark = j;
            break;
        }
    const char *full = tui_glyph(t, "█", "#");
    const char *cur_glyph = tui_glyph(t, "█", "@");
    for (int r = 0; r < ch; r++) {
        int yy = y + 1 + r;
        double level = (double)(ch - r) / ch;   /* this row is lit when occupancy >= level - half a row */
        if (r == 0) tui_put(yy, 0, 6, ROLE_DIM, "100% ");
        else if (r == ch / 2) tui_put(yy, 0, 6, ROLE_DIM, " 50% ");
        tui_put(yy, 5, 1, ROLE_DIM, tui_glyph(t, "│", "|"));
        for (int c = 0; c < cw; c++) {
            int j = c * n / cw;
            if (pts[j].occupancy + 0.5 / ch >= level)
                tui_put(yy, 6 + c, 1, j == mark ? ROLE_WARN : ROLE_NOTE, j == mark ? cur_glyph : full);
        }
    }
    int ay = y + 1 + ch;
    tui_put(ay, 0, 6, ROLE_DIM, "  0% ");
    for (int c = 0; c < cw; c++) tui_put(ay, 5 + 1 + c, 1, ROLE_DIM, tui_glyph(t, "─", "-"));
    tui_put(ay, 5, 1, ROLE_DIM, tui_glyph(t, "└", "+"));
    /* x labels: first, middle, last, and the mark (▲ value) under its column. */
    int ly = ay + 1;
    char lab[32];
    int cols[3] = {0, cw / 2, cw - 1};
    for (int i = 0; i < 3; i++) {
        int j = cols[i] * n / cw;
        fmt_x(lab, sizeof lab, op->chart, pts[j].x);
        int lx = 6 + cols[i] - (i == 2 ? (int)strlen(lab) - 1 : 0);
        tui_put(ly, lx, (int)strlen(lab), ROLE_DIM, lab);
    }
    int mc = 0;
    while (mc < cw && mc * n / cw != mark) mc++;
    char xs[24];
    fmt_x(xs, sizeof xs, op->chart, pts[mark].x);
    snprintf(lab, sizeof lab, "%s%s (%.0f%%)", tui_glyph(t, "▲", "^"), xs, pts[mark].occupancy * 100);
    int mx = 6 + mc;
    if (mx + text_width(lab) > w) mx = w - text_width(lab);
    tui_put(ly, mx, w - mx, ROLE_WARN, lab);
}

static void occ_draw(Panel *pn, Tui *t, int top, int h, int w) {
    OccPanel *op = (OccPanel *)pn;
    char *ttl = xasprintf(_("cudojo — Occupancy: %s"), op->exercise);
    tui_draw_title(t, ttl, _("theoretical"));
    free(ttl);
    tui_draw_status(t, _("←/→ block  a arch  c chart  Tab kernel  ? help  q back"));
    OccKernel *k = cur(op);
    int y = top + 1;
    if (!k) {
        put_wrapped(y, 2, w - 4, 4, ROLE_NORMAL,
                    _("No kernel launches in the last run. Run the exercise (r in the exercise view): the occupancy "
                      "comes from the registers and shared memory of the kernels it launched."));
        return;
    }
    const DeviceProfile *p = profile_at(op->prof);
    char line[512], hb[64];
    snprintf(line, sizeof line, "%s%s", head(hb, sizeof hb, _("Kernel")), k->name);
    int kw = tui_put(y, 1, w - 2, ROLE_BOLD, line);
    if (op->n_k > 1) {
        snprintf(line, sizeof line, _("  (%d of %d, Tab: next)"), op->sel + 1, op->n_k);
        tui_put(y, 1 + kw, w - 2 - kw, ROLE_DIM, line);
    }
    y++;
    snprintf(line, sizeof line, _("%s%s, like %s: %d SMs, %d warps, %d blocks, %dK registers, %zu KiB shared per SM"),
             head(hb, sizeof hb, "GPU"), p->arch, p->part, p->sm_count, p->max_warps_per_sm, p->max_blocks_per_sm, p->regs_per_sm / 1024,
             p->shared_per_sm / 1024);
    tui_put_clip(t, y++, 1, w - 2, ROLE_NORMAL, line);
    if (k->registers >= 0)
        snprintf(line, sizeof line, _("%s%d registers per thread, %d B static + %d B dynamic shared memory per block"),
                 head(hb, sizeof hb, _("Uses")), k->registers, k->shared_static > 0 ? k->shared_static : 0, k->shared_dynamic);
    else
        snprintf(line, sizeof line,
                 _("%sregisters not counted in this run (run it again from here to count them); %d B dynamic shared "
                   "memory"), head(hb, sizeof hb, _("Uses")), k->shared_dynamic);
    tui_put_clip(t, y++, 1, w - 2, k->registers >= 0 ? ROLE_NORMAL : ROLE_WARN, line);
    snprintf(line, sizeof line, _("%s%s %d %s threads   (the run launched %d; ←/→ change, 0 back)"),
             head(hb, sizeof hb, _("Block")), tui_glyph(t, "◀", "<"), op->block, tui_glyph(t, "▶", ">"), k->block);
    tui_put_clip(t, y++, 1, w - 2, ROLE_BOLD, line);
    y++;
    OccupancyInput in = input_of(op, k);
    Occupancy o;
    Diag *d = occupancy_compute(p, &in, &o);
    if (d) {
        tui_put_clip(t, y, 1, w - 2, ROLE_FAIL, d->message);
        diag_free(&d);
        return;
    }
    snprintf(line, sizeof line, _("Occupancy %5.1f%%"), o.occupancy * 100);
    int role = o.blocks_per_sm == 0 ? ROLE_FAIL : o.occupancy >= 0.5 ? ROLE_PASS : ROLE_WARN;
    tui_put(y, 1, 18, role, line);
    int bw = w / 3 > 10 ? w / 3 : 10;
    if (19 + bw < w) tui_draw_bar(t, y, 19, bw, o.occupancy);
    snprintf(line, sizeof line, _("%d blocks/SM, %d of %d warps"), o.blocks_per_sm, o.warps_per_sm, o.max_warps_per_sm);
    if (20 + bw < w) tui_put_clip(t, y, 20 + bw, w - 21 - bw, ROLE_NORMAL, line);
    y++;
    snprintf(line, sizeof line, _("Limited by %s"), _(occupancy_limiter_name(o.limiter)));
    tui_put(y++, 1, w - 2, ROLE_BOLD, line);
    int rest = top + h - y;
    char *why = i18n_message(o.explanation);   /* built in English from N_() formats (kernels/occupancy.c) */
    y += put_wrapped(y, 1, w - 2, rest > 12 ? 3 : 2, ROLE_NORMAL, why);
    free(why);
    y++;
    if (top + h - y >= 6) draw_chart(op, t, k, p, y, top + h - y, w);
}

static void set_kernel(OccPanel *op, int i) {
    op->sel = i;
    op->block = op->k[i].block > 0 ? op->k[i].block : 256;
}

static int occ_key(Panel *pn, Tui *t, int key) {
    OccPanel *op = (OccPanel *)pn;
    (void)t;
    OccKernel *k = cur(op);
    const DeviceProfile *p = profile_at(op->prof);
    switch (key) {
    case 'q':
    case 27: return TUI_POP;
    case KEY_LEFT:
    case 'h':
        if (k) op->block = op->block > p->warp_size ? ((op->block - 1) / p->warp_size) * p->warp_size : 1;
        return TUI_HANDLED;
    case KEY_RIGHT:
    case 'l':
        if (k && op->block < p->max_threads_per_block) op->block = (op->block / p->warp_size + 1) * p->warp_size;
        return TUI_HANDLED;
    case '0':
        if (k) set_kernel(op, op->sel);
        return TUI_HANDLED;
    case 'a': op->prof = (op->prof + 1) % profile_count(); return TUI_HANDLED;
    case 'A': op->prof = (op->prof + profile_count() - 1) % profile_count(); return TUI_HANDLED;
    case 'c': op->chart = (op->chart + 1) % CHART_COUNT; return TUI_HANDLED;
    case '\t':
        if (op->n_k > 1) set_kernel(op, (op->sel + 1) % op->n_k);
        return TUI_HANDLED;
    default: return TUI_UNHANDLED;
    }
}

static void occ_free(Panel *pn, Tui *t) {
    (void)t;
    OccPanel *op = (OccPanel *)pn;
    for (int i = 0; i < op->n_k; i++) free(op->k[i].name);
    free(op->k);
    free(op->exercise);
    free(op);
}

Panel *tui_occupancy_new(Tui *t, const char *exercise, const RunResult *res) {
    (void)t;
    OccPanel *op = xcalloc(1, sizeof *op);
    op->base = (Panel){.title = N_("Occupancy"), .help = OCC_HELP, .draw = occ_draw, .key = occ_key, .free = occ_free};
    op->exercise = xstrdup(exercise);
    op->prof = profile_index("sm_90");
    json_t *ks = res && res->metrics ? json_object_get(res->metrics, "kernels") : NULL;
    const char *name;
    json_t *v;
    const char *arch = NULL;
    json_object_foreach(ks, name, v) {
        if (jint(v, "block", 0) <= 0) continue;   /* only kernels that were launched */
        op->k = xrealloc(op->k, (size_t)(op->n_k + 1) * sizeof *op->k);
        op->k[op->n_k++] = (OccKernel){xstrdup(name), jint(v, "registers", -1), jint(v, "shared_static", -1),
                                       jint(v, "shared_dynamic", 0), jint(v, "block", 256)};
        if (!arch) arch = json_string_value(json_object_get(v, "arch"));
    }
    if (arch) op->prof = profile_index(arch);
    if (op->n_k) set_kernel(op, 0);
    return &op->base;
}
