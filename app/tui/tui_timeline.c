/* app/tui/tui_timeline.c: the timeline screen (t in the exercise view).
 *
 * What the device and the host did during the last run, in time: one row
 * per stream plus the host, a bar per copy, kernel, memset, host work or
 * wait, each kind with its colour and its own fill character (so it reads
 * in monochrome too), against a time axis with nice ticks and units. Work
 * that overlaps sits in the same columns of different rows, which is the
 * point of the streams chapter. The learner zooms (+/-), pans (←/→,
 * Home/End) and moves a cursor between bars (Tab, j/k, [/]); the detail
 * lines show the selected bar's name, start, duration, bytes and GB/s. A
 * modeled timeline (the emulator's cost model) says so in the title bar
 * and a banner. The numbers all come from metrics.timeline of the run's
 * result; the arithmetic lives in tui_timeline_layout.c. The latest run is
 * shown; `,` and `.` step to the session's earlier runs of the exercise and
 * back, the banner saying which run is on screen. `c` compares: the run
 * picked with `,`/`.` above the latest, each with its rows, under one time
 * axis (zoom and pan move both), and how their ends differ. */
#include "app/tui/tui.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/trace.h"
#include "app/tui/tui_timeline.h"
#include "base/i18n.h"
#include "base/xalloc.h"

typedef struct TimelinePanel {
    Panel base;
    char *exercise;
    TlvModel *m;             /* NULL: the run has no timeline */
    bool no_run;             /* there was no result at all */
    json_t **runs;           /* this session's timelines of the exercise, oldest first (references) */
    int n_runs, cur;         /* runs[cur] is shown; the latest (n_runs - 1) at first */
    TlvModel *latest;        /* compare mode: the latest run, drawn under runs[cur]; NULL otherwise */
    TlvWindow win;
    int sel;                 /* the selected bar */
    int row_top;             /* first row shown when they do not all fit */
    /* Geometry of the last draw, for clicks. */
    int rows_y0, rows_shown, row_h, bars_x, bars_w;
} TimelinePanel;

static const TuiKeyHelp TL_HELP[] = {
    {"+ / -", N_("zoom in / out (around the selected bar if it is on screen)")},
    {"0 f", N_("fit the whole run")},
    {"←/→ h/l", N_("pan earlier / later by a quarter of the screen")},
    {"Home/End g/G", N_("to the start / the end of the run")},
    {"Tab / S-Tab n/p", N_("select the next / previous bar in time")},
    {"j/k ↓/↑", N_("select the bar on the row below / above (nearest in time)")},
    {"] / [", N_("next / previous bar on the same row")},
    {N_("click"), N_("select the bar under the mouse")},
    {", / .", N_("an earlier / a later run of this session (the latest is shown first)")},
    {"c", N_("compare: the run picked with , / . above the latest, on one time axis")},
    {"q Esc", N_("back to the exercise (r there runs it again)")},
    {"", ""},
    {N_("rows"), N_("the host (CPU work, waits), then one row per stream")},
    {"", N_("bars in the same columns ran at the same time: overlap")},
    {N_("bars"), N_("» H2D copy   « D2H copy   ≈ D2D copy   ░ memset")},
    {"", N_("█ kernel   ▒ host work   ╌ host waits (sync)   │ event")},
    {N_("modeled"), N_("emulator: times from a cost model of the device, no GPU")},
    {"GB/s", N_("bytes copied / duration (10^9 bytes per second)")},
    {NULL, NULL},
};

static const struct {
    const char *utf8, *ascii;
    int role;
} LOOK[TLV_KIND_COUNT] = {
    [TLV_H2D] = {"»", ">", ROLE_TL_H2D},       [TLV_D2H] = {"«", "<", ROLE_TL_D2H},
    [TLV_D2D] = {"≈", "=", ROLE_TL_D2D},       [TLV_MEMSET] = {"░", ":", ROLE_TL_MEMSET},
    [TLV_KERNEL] = {"█", "#", ROLE_TL_KERNEL}, [TLV_HOST] = {"▒", "%", ROLE_TL_HOST},
    [TLV_SYNC] = {"╌", "-", ROLE_TL_SYNC},     [TLV_EVENT] = {"│", "|", ROLE_WARN},
    [TLV_OTHER] = {"?", "?", ROLE_DIM},
};

static const TlvBar *sel_bar(const TimelinePanel *tp) {
    return tp->m && tp->sel >= 0 && tp->sel < tp->m->n_bars ? &tp->m->bars[tp->sel] : NULL;
}

/* The model the time axis spans: in compare mode the longer of the two runs. */
static const TlvModel *axis_model(const TimelinePanel *tp) {
    if (tp->latest && (!tp->m || tp->latest->end_us > tp->m->end_us)) return tp->latest;
    return tp->m;
}

/* Fills columns [x, x+n) with a glyph in a role. */
static void fill_glyph(int y, int x, int n, int role, const char *glyph) {
    if (n <= 0) return;
    size_t gl = strlen(glyph);
    char *s = xmalloc((size_t)n * gl + 1);
    for (int i = 0; i < n; i++) memcpy(s + (size_t)i * gl, glyph, gl);
    s[(size_t)n * gl] = '\0';
    tui_put(y, x, n, role, s);
    free(s);
}

static void draw_bar(Tui *t, const TimelinePanel *tp, const TlvBar *b, int y, bool selected, bool label) {
    int x0, x1;
    if (!tlview_bar_cols(&tp->win, tp->bars_w, b->start_us, b->dur_us, &x0, &x1)) return;
    int role = selected ? ROLE_SELECTED : LOOK[b->kind].role;
    fill_glyph(y, tp->bars_x + x0, x1 - x0, role, tui_glyph(t, LOOK[b->kind].utf8, LOOK[b->kind].ascii));
    /* The name inside the bar when it fits with a blank either side. */
    int nw = text_width(b->name);
    if (label && b->kind != TLV_EVENT && x1 - x0 >= nw + 2) {
        tui_put(y, tp->bars_x + x0 + 1, nw, selected ? ROLE_SELECTED : ROLE_BOLD, b->name);
    }
}

/* The legend: the kinds this run has, each in its look. */
static void draw_legend(Tui *t, const TlvModel *m, int y, int w) {
    bool has[TLV_KIND_COUNT] = {0};
    for (int i = 0; i < m->n_bars; i++) has[m->bars[i].kind] = true;
    int x = 1;
    for (int k = 0; k < TLV_KIND_COUNT && x < w - 2; k++) {
        if (!has[k]) continue;
        x += tui_put(y, x, w - x - 1, LOOK[k].role, tui_glyph(t, LOOK[k].utf8, LOOK[k].ascii));
        x += tui_put(y, x, w - x - 1, LOOK[k].role, tui_glyph(t, LOOK[k].utf8, LOOK[k].ascii));
        x += tui_put(y, x, w - x - 1, ROLE_NORMAL, " ");
        x += tui_put(y, x, w - x - 1, ROLE_NORMAL, tlview_kind_label((TlvKind)k));
        x += tui_put(y, x, w - x - 1, ROLE_NORMAL, "   ");
    }
}

/* Tick labels above an axis line; the unit at the left, over the row labels. */
static void draw_axis(Tui *t, const TimelinePanel *tp, int y, int label_w) {
    const TlvWindow *w = &tp->win;
    double step = tlview_tick_step(w->span, tp->bars_w, 10);
    double scale;
    const char *unit = tlview_unit(step, t->utf8, &scale);
    char buf[48];
    snprintf(buf, sizeof buf, label_w >= 9 ? _("time (%s)") : "%s", unit);
    int uw = text_width(buf);
    tui_put(y, 1 + (label_w > uw ? label_w - uw : 0), label_w, ROLE_DIM, buf);
    fill_glyph(y + 1, tp->bars_x, tp->bars_w, ROLE_DIM, tui_glyph(t, "─", "-"));
    int last_end = -1;
    for (double tt = ceil(w->t0 / step - 1e-9) * step; tt <= w->t0 + w->span + step * 1e-9; tt += step) {
        int c = tlview_col(w, tp->bars_w, tt);
        if (c < 0 || c >= tp->bars_w) continue;
        tui_put(y + 1, tp->bars_x + c, 1, ROLE_DIM, tui_glyph(t, "┬", "+"));
        tlview_format_tick(buf, sizeof buf, tt, step);
        int lw = (int)strlen(buf);
        int lx = c + lw <= tp->bars_w ? c : tp->bars_w - lw;
        if (lx <= last_end) continue;
        tui_put(y, tp->bars_x + lx, lw, ROLE_NORMAL, buf);
        last_end = lx + lw;
    }
}

/* Two lines about the selected bar, and one about the window. */
static void draw_detail(Tui *t, const TimelinePanel *tp, int y, int w, bool summary) {
    const TlvBar *b = sel_bar(tp);
    const TlvModel *m = tp->m;
    char line[640], a[48], d[48], e[48], by[48];
    if (b) {
        const char *row = m->rows[b->row].name;
        int x = 1;
        x += tui_put(y, x, w - x - 1, ROLE_KEY, tui_glyph(t, "▶", ">"));
        x += tui_put(y, x, w - x - 1, ROLE_NORMAL, " ");
        x += tui_put_clip(t, y, x, w - x - 1 > 40 ? 40 : w - x - 1, ROLE_BOLD, b->name);
        const char *by3 = tui_glyph(t, "×", "x");
        if (b->kind == TLV_KERNEL && b->grid[0] > 0)
            snprintf(line, sizeof line, _("  %s on %s  grid %d%s%d%s%d  block %d%s%d%s%d"), tlview_kind_label(b->kind), row,
                     b->grid[0], by3, b->grid[1], by3, b->grid[2], b->block[0], by3, b->block[1], by3, b->block[2]);
        else
            snprintf(line, sizeof line, _("  %s on %s%s"), b->kind == TLV_OTHER ? b->kind_name : tlview_kind_label(b->kind),
                     row, b->pinned == 1 ? _("  pinned") : b->pinned == 0 ? _("  pageable") : "");
        tui_put_clip(t, y, x, w - x - 1, ROLE_NORMAL, line);
        tlview_format_time(a, sizeof a, b->start_us, t->utf8);
        tlview_format_time(d, sizeof d, b->dur_us, t->utf8);
        tlview_format_time(e, sizeof e, b->start_us + b->dur_us, t->utf8);
        int n = snprintf(line, sizeof line, _("start %s   duration %s   end %s"), a, d, e);
        if (b->bytes > 0) {
            tlview_format_bytes(by, sizeof by, b->bytes);
            n += snprintf(line + n, sizeof line - (size_t)n, "   %s", by);
            double g = trace_gbps(b->bytes, b->dur_us);
            if (g >= 0) snprintf(line + n, sizeof line - (size_t)n, "   %.2f GB/s", g);
        }
        x = 3 + tui_put_clip(t, y + 1, 3, w - 4, ROLE_NORMAL, line);
        if (m->modeled && x + 10 < w) tui_put(y + 1, x, w - x - 1, ROLE_WARN, _("  (modeled)"));
    }
    if (!summary) return;
    tlview_format_time(a, sizeof a, tp->win.t0, t->utf8);
    tlview_format_time(d, sizeof d, tp->win.t0 + tp->win.span, t->utf8);
    tlview_format_time(e, sizeof e, m->end_us, t->utf8);
    int n = snprintf(line, sizeof line, _("bar %d of %d   showing %s %s %s of %s   zoom %s%.1f"), tp->sel + 1, m->n_bars, a,
                     tui_glyph(t, "–", "-"), d, e, tui_glyph(t, "×", "x"), tlview_zoom_level(&tp->win, m));
    if (m->dropped > 0)
        snprintf(line + n, sizeof line - (size_t)n, _("   (%ld more entries were not recorded)"), m->dropped);
    tui_put_clip(t, y + 2, 1, w - 2, ROLE_DIM, line);
}

/* Rows [row_top, row_top + shown) of model m from screen row y, rh lines
 * each; with_sel: the selected bar is m's (the run stepped with , and .).
 * Returns the screen row after them. */
static int draw_rows(Tui *t, const TimelinePanel *tp, const TlvModel *m, int y, int shown, int rh, int row_top,
                     bool with_sel) {
    const TlvBar *sb = with_sel ? sel_bar(tp) : NULL;
    int label_w = tp->bars_x - 2;
    double step = tlview_tick_step(tp->win.span, tp->bars_w, 10);
    for (int i = 0; i < shown * rh; i++, y++) {
        int r = row_top + i / rh;
        bool first = i % rh == 0;
        bool cur = sb && sb->row == r;
        if (cur && first) tui_put(y, 0, 1, ROLE_KEY, tui_glyph(t, "▶", ">"));
        if (first) tui_put_clip(t, y, 1, label_w, cur ? ROLE_BOLD : ROLE_NORMAL, m->rows[r].name);
        /* Faint tick marks through the rows make "at the same time" easy to read. */
        for (double tt = ceil(tp->win.t0 / step - 1e-9) * step; tt <= tp->win.t0 + tp->win.span; tt += step) {
            int c = tlview_col(&tp->win, tp->bars_w, tt);
            if (c >= 0 && c < tp->bars_w) tui_put(y, tp->bars_x + c, 1, ROLE_DIM, tui_glyph(t, "·", "."));
        }
        /* Kernels, then events, are drawn over copies: a 2 µs kernel between
         * two long copies still gets its column when zoomed out. */
        for (int pass = 0; pass < 3; pass++)
            for (int b = 0; b < m->n_bars; b++) {
                const TlvBar *bar = &m->bars[b];
                int want = bar->kind == TLV_KERNEL ? 1 : bar->kind == TLV_EVENT ? 2 : 0;
                if (bar->row == r && !(with_sel && b == tp->sel) && want == pass) draw_bar(t, tp, bar, y, false, first);
            }
        if (cur) draw_bar(t, tp, sb, y, true, first);
    }
    return y;
}

/* The label column: as wide as the longest row name of the models, within reason. */
static void set_columns(TimelinePanel *tp, const TlvModel *a, const TlvModel *b, int w) {
    int label_w = 4;
    for (int k = 0; k < 2; k++) {
        const TlvModel *m = k ? b : a;
        for (int r = 0; m && r < m->n_rows; r++)
            if (text_width(m->rows[r].name) > label_w) label_w = text_width(m->rows[r].name);
    }
    int cap = w / 4 < 18 ? w / 4 : 18;
    if (label_w > cap) label_w = cap;
    tp->bars_x = label_w + 2;
    tp->bars_w = w - tp->bars_x - 1;
}

/* A section's heading in compare mode: which run, and when it ended. */
static void draw_run_heading(Tui *t, int y, int w, const TlvModel *m, const char *which, bool latest) {
    char end[48], line[160];
    tlview_format_time(end, sizeof end, m->end_us, t->utf8);
    snprintf(line, sizeof line, _("%s: ends at %s"), which, end);
    int x = 1 + tui_put(y, 1, w - 2, ROLE_DIM, tui_glyph(t, "── ", "-- "));
    x += tui_put_clip(t, y, x, w - x - 1, latest ? ROLE_BOLD : ROLE_KEY, line);
    if (x < w - 2) fill_glyph(y, x + 1, w - x - 2, ROLE_DIM, tui_glyph(t, "─", "-"));
}

/* Compare mode: runs[cur] above the latest, one axis; each section gets
 * rows in proportion, at least one; the detail lines say the selected bar
 * (of the upper run) and how the two ends differ. */
static void draw_compare(Tui *t, TimelinePanel *tp, int top, int h, int w) {
    const TlvModel *a = tp->m, *b = tp->latest;
    int y = top;
    char which[96], line[256];
    snprintf(which, sizeof which, _("run %d of %d"), tp->cur + 1, tp->n_runs);
    char ea[48], eb[48];
    tlview_format_time(ea, sizeof ea, a->end_us, t->utf8);
    tlview_format_time(eb, sizeof eb, b->end_us, t->utf8);
    double change = a->end_us > 0 ? 100.0 * (b->end_us - a->end_us) / a->end_us : 0;
    snprintf(line, sizeof line, _("COMPARE %s with the latest: %s %s %s (%+.0f%%)%s"), which, ea,
             tui_glyph(t, "→", "->"), eb, change, a->modeled || b->modeled ? _(", modeled") : "");
    tui_put_clip(t, y++, 1, w - 2, ROLE_KEY, line);
    set_columns(tp, a, b, w);
    if (tp->bars_w < 1) return;
    draw_axis(t, tp, y, tp->bars_x - 2);
    y += 2;
    /* banner, axis (2), two headings, detail (2) */
    int rows_h = h - 1 - 2 - 2 - 2;
    if (rows_h < 2) rows_h = 2;
    int na = a->n_rows, nb = b->n_rows;
    int sa = na, sb = nb;
    if (sa + sb > rows_h) {
        sa = rows_h * na / (na + nb);
        if (sa < 1) sa = 1;
        if (sa > na) sa = na;
        sb = rows_h - sa;
        if (sb > nb) sb = nb;
        if (sb < 1) sb = 1;
    }
    const TlvBar *sel = sel_bar(tp);
    if (tp->row_top > na - sa) tp->row_top = na - sa;
    if (sel && sel->row < tp->row_top) tp->row_top = sel->row;
    if (sel && sel->row >= tp->row_top + sa) tp->row_top = sel->row - sa + 1;
    if (tp->row_top < 0) tp->row_top = 0;
    draw_run_heading(t, y++, w, a, which, false);
    tp->rows_y0 = y;
    tp->rows_shown = sa;
    tp->row_h = 1;
    y = draw_rows(t, tp, a, y, sa, 1, tp->row_top, true);
    snprintf(which, sizeof which, _("latest run (%d of %d)"), tp->n_runs, tp->n_runs);
    draw_run_heading(t, y++, w, b, which, true);
    y = draw_rows(t, tp, b, y, sb, 1, 0, false);
    if (sa < na || sb < nb) {
        snprintf(line, sizeof line, _("%d of %d rows"), sa + sb, na + nb);
        tui_put_clip(t, y - 1, w - 1 - text_width(line), text_width(line), ROLE_DIM, line);
    }
    draw_detail(t, tp, top + h - 2 > y ? top + h - 2 : y, w, false);
}

static void tl_draw(Panel *pn, Tui *t, int top, int h, int w) {
    TimelinePanel *tp = (TimelinePanel *)pn;
    const TlvModel *m = tp->m;
    char *ttl = xasprintf(_("cudojo %s Timeline: %s"), tui_glyph(t, "—", "-"), tp->exercise);
    tui_draw_title(t, ttl, m ? (m->modeled ? _("MODELED") : _("measured")) : NULL);
    free(ttl);
    tui_draw_status(t, tp->latest ? _("+/- zoom  ←/→ pan  Tab bar  , . earlier/later run  c one run  ? help  q back")
                       : tp->n_runs > 1 ? _("+/- zoom  ←/→ pan  Tab bar  j/k row  0 fit  , . run  c compare  ? help  q back")
                                        : _("+/- zoom  ←/→ pan  Tab bar  j/k row  0 fit  ? help  q back"));
    if (!m || m->n_bars == 0) {
        const char *why =
            tp->no_run ? _("No run yet. Run the exercise (r in the exercise view): its copies, kernels and host work "
                           "appear here, one row per stream.")
            : !m ? _("The last run recorded no timeline (it stopped before anything ran, or this backend records none). "
                     "Run it again with r in the exercise view.")
                 : _("The last run's timeline is empty: it made no copies, kernel launches or host work.");
        tui_put_clip(t, top + 1, 2, w - 4, ROLE_NORMAL, why);
        return;
    }
    if (tp->latest) {
        draw_compare(t, tp, top, h, w);
        return;
    }
    int y = top;
    char line[512];
    if (m->modeled) {
        if (m->device)
            snprintf(line, sizeof line,
                     _("MODELED, not measured: the emulator's cost model of %s; order and overlap follow CUDA's "
                       "stream rules"), m->device);
        else
            snprintf(line, sizeof line,
                     "%s", _("MODELED, not measured: the emulator's cost model; order and overlap follow CUDA's stream rules"));
        if (text_width(line) > w - 2) {
            if (m->device) snprintf(line, sizeof line, _("MODELED, not measured: the emulator's cost model of %s"), m->device);
            else snprintf(line, sizeof line, "%s", _("MODELED, not measured: the emulator's cost model"));
        }
    } else if (m->device)
        snprintf(line, sizeof line, _("Measured on %s (%s)"), m->device, m->source ? m->source : "GPU");
    else
        snprintf(line, sizeof line, _("Measured (%s)"), m->source ? m->source : "GPU");
    int used = 0;
    if (tp->n_runs > 1) {
        /* Which run this is, first on the banner line: the comparison is the point. */
        char which[96];
        if (tp->cur == tp->n_runs - 1) snprintf(which, sizeof which, _("latest run (%d of %d)  "), tp->cur + 1, tp->n_runs);
        else snprintf(which, sizeof which, _("run %d of %d (%d before the latest)  "), tp->cur + 1, tp->n_runs,
                      tp->n_runs - 1 - tp->cur);
        used = tui_put(y, 1, w - 2, tp->cur == tp->n_runs - 1 ? ROLE_BOLD : ROLE_KEY, which);
    }
    tui_put_clip(t, y++, 1 + used, w - 2 - used, m->modeled ? ROLE_WARN : ROLE_PASS, line);
    /* Rows get what is left after the fixed lines; the legend, the window
     * line and a blank go first when the terminal is short. */
    int fixed = 1 + 2 + 2;   /* banner, axis (labels + line), detail */
    int spare = h - fixed - m->n_rows;
    bool legend = spare-- > 0, summary = spare-- > 0, blank = spare-- > 0;
    int rows_h = h - fixed - legend - summary - blank;
    if (rows_h < 1) rows_h = 1;
    /* With room to spare, rows are two lines tall: thicker bars read better. */
    int rh = rows_h >= 2 * m->n_rows ? 2 : 1;
    if (legend) draw_legend(t, m, y++, w);
    set_columns(tp, m, NULL, w);
    int label_w = tp->bars_x - 2;
    if (tp->bars_w < 1) return;
    draw_axis(t, tp, y, label_w);
    y += 2;
    /* Keep the selected bar's row on screen. */
    const TlvBar *sb = sel_bar(tp);
    int shown = m->n_rows < rows_h / rh ? m->n_rows : rows_h / rh;
    if (tp->row_top > m->n_rows - shown) tp->row_top = m->n_rows - shown;
    if (sb && sb->row < tp->row_top) tp->row_top = sb->row;
    if (sb && sb->row >= tp->row_top + shown) tp->row_top = sb->row - shown + 1;
    if (tp->row_top < 0) tp->row_top = 0;
    tp->rows_y0 = y;
    tp->rows_shown = shown;
    tp->row_h = rh;
    y = draw_rows(t, tp, m, y, shown, rh, tp->row_top, true);
    if (m->n_rows > shown) {
        snprintf(line, sizeof line, _("%d of %d rows (j/k)"), shown, m->n_rows);
        tui_put_clip(t, y - 1, w - 1 - text_width(line), text_width(line), ROLE_DIM, line);
    }
    y += blank;
    draw_detail(t, tp, y, w, summary);
}

static double window_center(const TimelinePanel *tp) {
    const TlvBar *b = sel_bar(tp);
    if (b) {
        double mid = b->start_us + b->dur_us / 2;
        if (mid >= tp->win.t0 && mid <= tp->win.t0 + tp->win.span) return mid;
    }
    return tp->win.t0 + tp->win.span / 2;
}

static void select_bar(TimelinePanel *tp, int i) {
    if (!tp->m || i < 0 || i >= tp->m->n_bars) return;
    tp->sel = i;
    tlview_show(&tp->win, axis_model(tp), &tp->m->bars[i]);
}

/* Shows run i of the session (its own model, the whole run in the window). */
static void show_run(TimelinePanel *tp, int i) {
    tlview_model_free(&tp->m);
    tp->cur = i;
    tp->m = tlview_model_new(tp->runs[i]);
    tp->sel = 0;
    tp->row_top = 0;
    tlview_fit(&tp->win, axis_model(tp));
}

/* c: compare runs[cur] (an earlier run when the latest is on screen) with
 * the latest, or back to one run. */
static void toggle_compare(TimelinePanel *tp, Tui *t) {
    if (tp->latest) {
        tlview_model_free(&tp->latest);
        tlview_fit(&tp->win, tp->m);
        return;
    }
    if (tp->n_runs < 2) {
        tui_notify(t, false, "%s", _("Compare needs two runs: run the exercise again (r in the exercise view)."));
        return;
    }
    tp->latest = tlview_model_new(tp->runs[tp->n_runs - 1]);
    show_run(tp, tp->cur == tp->n_runs - 1 ? tp->n_runs - 2 : tp->cur);
}

static int tl_key(Panel *pn, Tui *t, int key) {
    TimelinePanel *tp = (TimelinePanel *)pn;
    if (key == 'q' || key == 27) return TUI_POP;
    if (key == 'c') {
        toggle_compare(tp, t);
        return TUI_HANDLED;
    }
    if (key == ',' || key == '.') {
        int to = tp->cur + (key == ',' ? -1 : 1);
        if (tp->latest && to >= tp->n_runs - 1) to = tp->n_runs;   /* the latest is already below */
        if (tp->n_runs <= 1) tui_notify(t, false, "%s", _("Only one run of this exercise so far (r in the exercise view runs it)."));
        else if (to < 0) tui_notify(t, false, "%s", _("This is the earliest run of the session."));
        else if (to >= tp->n_runs) tui_notify(t, false, "%s", _("This is the latest run."));
        else show_run(tp, to);
        return TUI_HANDLED;
    }
    TlvModel *m = tp->m;
    if (!m || m->n_bars == 0) return TUI_UNHANDLED;
    const TlvModel *ax = axis_model(tp);
    double full = ax->end_us + 1;
    switch (key) {
    case '+':
    case '=': tlview_zoom(&tp->win, ax, 2, window_center(tp)); return TUI_HANDLED;
    case '-':
    case '_': tlview_zoom(&tp->win, ax, 0.5, window_center(tp)); return TUI_HANDLED;
    case '0':
    case 'f': tlview_fit(&tp->win, ax); return TUI_HANDLED;
    case KEY_LEFT:
    case 'h': tlview_pan(&tp->win, ax, -tp->win.span / 4); return TUI_HANDLED;
    case KEY_RIGHT:
    case 'l': tlview_pan(&tp->win, ax, tp->win.span / 4); return TUI_HANDLED;
    case KEY_HOME:
    case 'g': tlview_pan(&tp->win, ax, -full); return TUI_HANDLED;
    case KEY_END:
    case 'G': tlview_pan(&tp->win, ax, full); return TUI_HANDLED;
    case '\t':
    case 'n': select_bar(tp, tp->sel + 1 < m->n_bars ? tp->sel + 1 : 0); return TUI_HANDLED;
    case KEY_BTAB:
    case 'p': select_bar(tp, tp->sel > 0 ? tp->sel - 1 : m->n_bars - 1); return TUI_HANDLED;
    case KEY_DOWN:
    case 'j': select_bar(tp, tlview_row_jump(m, tp->sel, 1)); return TUI_HANDLED;
    case KEY_UP:
    case 'k': select_bar(tp, tlview_row_jump(m, tp->sel, -1)); return TUI_HANDLED;
    case ']': select_bar(tp, tlview_step_in_row(m, tp->sel, 1)); return TUI_HANDLED;
    case '[': select_bar(tp, tlview_step_in_row(m, tp->sel, -1)); return TUI_HANDLED;
    default: return TUI_UNHANDLED;
    }
}

static int tl_click(Panel *pn, Tui *t, int y, int x, bool dbl) {
    TimelinePanel *tp = (TimelinePanel *)pn;
    (void)t;
    (void)dbl;
    if (!tp->m || tp->row_h < 1 || y < tp->rows_y0 || y >= tp->rows_y0 + tp->rows_shown * tp->row_h ||
        x < tp->bars_x || tp->bars_w <= 0)
        return TUI_UNHANDLED;
    double at = tp->win.t0 + (x - tp->bars_x + 0.5) / tp->bars_w * tp->win.span;
    int i = tlview_bar_at(tp->m, tp->row_top + (y - tp->rows_y0) / tp->row_h, at);
    if (i >= 0) tp->sel = i;
    return TUI_HANDLED;
}

static void tl_free(Panel *pn, Tui *t) {
    (void)t;
    TimelinePanel *tp = (TimelinePanel *)pn;
    tlview_model_free(&tp->m);
    tlview_model_free(&tp->latest);
    for (int i = 0; i < tp->n_runs; i++) json_decref(tp->runs[i]);
    free(tp->runs);
    free(tp->exercise);
    free(tp);
}

Panel *tui_timeline_new(Tui *t, const char *exercise, const RunResult *res) {
    (void)t;
    TimelinePanel *tp = xcalloc(1, sizeof *tp);
    tp->base = (Panel){.title = N_("Timeline"), .help = TL_HELP, .draw = tl_draw, .key = tl_key, .click = tl_click,
                       .free = tl_free};
    tp->exercise = xstrdup(exercise);
    tp->no_run = res == NULL;
    tp->m = tlview_model_new(trace_timeline_of(res));
    tlview_fit(&tp->win, tp->m);
    return &tp->base;
}

Panel *tui_timeline_new_runs(Tui *t, const char *exercise, json_t *const *timelines, int n) {
    if (n <= 0) return tui_timeline_new(t, exercise, NULL);
    TimelinePanel *tp = (TimelinePanel *)tui_timeline_new(t, exercise, NULL);
    tp->no_run = false;
    tp->runs = xcalloc((size_t)n, sizeof *tp->runs);
    for (int i = 0; i < n; i++) tp->runs[i] = json_incref(timelines[i]);
    tp->n_runs = n;
    show_run(tp, n - 1);
    return &tp->base;
}
