/* app/tui/tui_timeline_layout.c: the timeline screen's model and layout
 * math (see tui_timeline.h); no curses here, so it is unit-tested alone. */
#include "app/tui/tui_timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/xalloc.h"

/* The narrowest window: below 0.1 µs nothing the engine records is resolved. */
#define MIN_SPAN_US 0.1

static const char *const KIND_NAMES[TLV_KIND_COUNT] = {"h2d", "d2h", "d2d", "memset", "kernel",
                                                       "host", "sync", "event", "other"};
static const char *const KIND_LABELS[TLV_KIND_COUNT] = {"H2D", "D2H", "D2D", "memset", N_("kernel"),
                                                        N_("host"), N_("sync"), N_("event"), N_("other")};

TlvKind tlview_kind_parse(const char *s) {
    for (int k = 0; s && k < TLV_OTHER; k++)
        if (!strcmp(s, KIND_NAMES[k])) return (TlvKind)k;
    return TLV_OTHER;
}

const char *tlview_kind_label(TlvKind k) { return k >= 0 && k < TLV_KIND_COUNT ? _(KIND_LABELS[k]) : "?"; }

static double num(const json_t *o, const char *k, double dflt) {
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

/* The row of stream `id`, added (unnamed) when new. */
static int row_of(TlvModel *m, int id) {
    for (int i = 0; i < m->n_rows; i++)
        if (m->rows[i].stream == id) return i;
    m->rows = xrealloc(m->rows, (size_t)(m->n_rows + 1) * sizeof *m->rows);
    m->rows[m->n_rows] = (TlvRow){id, id < 0 ? xstrdup(_("host")) : xasprintf(_("stream %d"), id)};
    return m->n_rows++;
}

static int cmp_rows(const void *a, const void *b) {
    const TlvRow *x = a, *y = b;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

static int cmp_bars(const void *a, const void *b) {
    const TlvBar *x = a, *y = b;
    if (x->start_us != y->start_us) return x->start_us < y->start_us ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static void read_dim3(const json_t *o, const char *k, int out[3]) {
    const json_t *a = json_object_get(o, k);
    for (int i = 0; i < 3; i++) out[i] = json_is_integer(json_array_get(a, (size_t)i))
                                             ? (int)json_integer_value(json_array_get(a, (size_t)i))
                                             : (i ? 1 : 0);
}

TlvModel *tlview_model_new(const json_t *tl) {
    if (!json_is_object(tl)) return NULL;
    TlvModel *m = xcalloc(1, sizeof *m);
    m->json = json_incref((json_t *)tl);
    m->modeled = json_is_true(json_object_get(tl, "modeled"));
    const char *s = json_string_value(json_object_get(tl, "source"));
    m->source = s ? xstrdup(s) : NULL;
    s = json_string_value(json_object_get(tl, "device"));
    m->device = s ? i18n_message(s) : NULL;   /* the trace's English ("sm_90 profile (…)"), in the language shown */
    m->dropped = (long)num(tl, "dropped", 0);
    row_of(m, -1);   /* the host row is always there */
    size_t i;
    const json_t *v;
    json_array_foreach(json_object_get(tl, "streams"), i, v) {
        const json_t *id = json_object_get(v, "id");
        if (!json_is_integer(id) || json_integer_value(id) < 0) continue;
        int r = row_of(m, (int)json_integer_value(id));
        const char *nm = json_string_value(json_object_get(v, "name"));
        if (nm && *nm) {
            free(m->rows[r].name);
            m->rows[r].name = xasprintf("%d %s", m->rows[r].stream, _(nm));   /* "default (legacy)" */
        }
    }
    /* Rows are final once every event's stream is known; bars find theirs after sorting. */
    const json_t *evs = json_object_get(tl, "events");
    json_array_foreach(evs, i, v) {
        if (json_is_object(v)) row_of(m, (int)num(v, "stream", 0));
    }
    qsort(m->rows, (size_t)m->n_rows, sizeof *m->rows, cmp_rows);
    m->bars = xcalloc(json_array_size(evs) + 1, sizeof *m->bars);
    json_array_foreach(evs, i, v) {
        if (!json_is_object(v)) continue;
        TlvBar *b = &m->bars[m->n_bars++];
        const char *kind = json_string_value(json_object_get(v, "kind"));
        b->kind = tlview_kind_parse(kind);
        b->kind_name = b->kind == TLV_OTHER && kind ? kind : KIND_NAMES[b->kind];
        b->row = row_of(m, (int)num(v, "stream", 0));
        const char *nm = json_string_value(json_object_get(v, "name"));
        /* a copy's name ("copy a -> device") in the language shown; a kernel's is its own */
        b->name = !nm || !*nm ? xstrdup(tlview_kind_label(b->kind)) : b->kind == TLV_KERNEL ? xstrdup(nm) : i18n_message(nm);
        b->start_us = num(v, "start_us", 0);
        b->dur_us = num(v, "dur_us", 0);
        if (b->dur_us < 0) b->dur_us = 0;
        b->bytes = num(v, "bytes", 0);
        const json_t *p = json_object_get(v, "pinned");
        b->pinned = json_is_boolean(p) ? json_is_true(p) : -1;
        read_dim3(v, "grid", b->grid);
        read_dim3(v, "block", b->block);
        if (b->start_us + b->dur_us > m->end_us) m->end_us = b->start_us + b->dur_us;
    }
    /* Streams with nothing on them are left out (the host and the default
     * stream stay: an empty default stream is news in the streams chapter):
     * a worker that ran the exercise before numbers its new streams after
     * the old ones, and rows of empty streams would push the learner's down. */
    int *remap = xcalloc((size_t)m->n_rows, sizeof *remap);
    bool *used = xcalloc((size_t)m->n_rows, sizeof *used);
    for (int b = 0; b < m->n_bars; b++) used[m->bars[b].row] = true;
    int k = 0;
    for (int r = 0; r < m->n_rows; r++) {
        if (m->rows[r].stream > 0 && !used[r]) {
            free(m->rows[r].name);
            continue;
        }
        remap[r] = k;
        m->rows[k++] = m->rows[r];
    }
    m->n_rows = k;
    for (int b = 0; b < m->n_bars; b++) m->bars[b].row = remap[m->bars[b].row];
    free(remap);
    free(used);
    qsort(m->bars, (size_t)m->n_bars, sizeof *m->bars, cmp_bars);
    return m;
}

void tlview_model_free(TlvModel **mp) {
    TlvModel *m = *mp;
    if (!m) return;
    for (int i = 0; i < m->n_rows; i++) free(m->rows[i].name);
    for (int i = 0; i < m->n_bars; i++) free(m->bars[i].name);
    free(m->rows);
    free(m->bars);
    free(m->source);
    free(m->device);
    json_decref(m->json);
    free(m);
    *mp = NULL;
}

/* ---- the window ---- */

static double full_span(const TlvModel *m) { return m && m->end_us > MIN_SPAN_US ? m->end_us : 1.0; }

static void clamp(TlvWindow *w, const TlvModel *m) {
    double full = full_span(m);
    if (w->span > full) w->span = full;
    if (w->span < MIN_SPAN_US) w->span = MIN_SPAN_US;
    if (w->t0 > full - w->span) w->t0 = full - w->span;
    if (w->t0 < 0) w->t0 = 0;
}

void tlview_fit(TlvWindow *w, const TlvModel *m) {
    w->t0 = 0;
    w->span = full_span(m);
}

void tlview_zoom(TlvWindow *w, const TlvModel *m, double factor, double center_us) {
    if (factor <= 0) return;
    double frac = w->span > 0 ? (center_us - w->t0) / w->span : 0.5;
    if (frac < 0 || frac > 1) frac = 0.5;
    double span = w->span / factor;
    double full = full_span(m);
    if (span > full) span = full;
    if (span < MIN_SPAN_US) span = MIN_SPAN_US;
    w->t0 = center_us - frac * span;
    w->span = span;
    clamp(w, m);
}

void tlview_pan(TlvWindow *w, const TlvModel *m, double by_us) {
    w->t0 += by_us;
    clamp(w, m);
}

void tlview_show(TlvWindow *w, const TlvModel *m, const TlvBar *b) {
    if (!b) return;
    double end = b->start_us + b->dur_us;
    if (b->start_us >= w->t0 && end <= w->t0 + w->span) return;
    if (b->dur_us >= w->span) w->t0 = b->start_us;
    else w->t0 = b->start_us + b->dur_us / 2 - w->span / 2;
    clamp(w, m);
}

double tlview_zoom_level(const TlvWindow *w, const TlvModel *m) {
    return w->span > 0 ? full_span(m) / w->span : 1;
}

/* ---- the axis ---- */

double tlview_tick_step(double span_us, int cols, int min_gap) {
    if (span_us <= 0 || cols <= 0) return 1;
    if (min_gap < 1) min_gap = 1;
    double raw = span_us * min_gap / cols;
    double mag = pow(10, floor(log10(raw)));
    static const double NICE[] = {1, 2, 5, 10};
    for (size_t i = 0; i < sizeof NICE / sizeof NICE[0]; i++)
        if (NICE[i] * mag >= raw * (1 - 1e-9)) return NICE[i] * mag;
    return 10 * mag;
}

/* Steps of 100 µs and more read better as 0.1 ms, 0.2 ms...; 0.1 s and more as seconds. */
const char *tlview_unit(double step_us, bool utf8, double *scale) {
    if (step_us >= 1e5) {
        *scale = 1e-6;
        return "s";
    }
    if (step_us >= 100) {
        *scale = 1e-3;
        return "ms";
    }
    if (step_us >= 0.1) {
        *scale = 1;
        return utf8 ? "µs" : "us";
    }
    *scale = 1e3;
    return "ns";
}

void tlview_format_tick(char *buf, size_t n, double t_us, double step_us) {
    double scale;
    tlview_unit(step_us, false, &scale);
    double step = step_us * scale, v = t_us * scale;
    int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (decimals > 6) decimals = 6;
    if (fabs(v) < step * 1e-6) {   /* the origin reads "0", never "0.0" or "-0" */
        snprintf(buf, n, "0");
        return;
    }
    snprintf(buf, n, "%.*f", decimals, v);
}

void tlview_format_time(char *buf, size_t n, double us, bool utf8) {
    double a = fabs(us);
    if (a >= 1e6) snprintf(buf, n, "%.3f s", us / 1e6);
    else if (a >= 1e3) snprintf(buf, n, "%.3f ms", us / 1e3);
    else if (a >= 1 || a == 0) snprintf(buf, n, "%.1f %s", us, utf8 ? "µs" : "us");
    else snprintf(buf, n, "%.0f ns", us * 1e3);
}

void tlview_format_bytes(char *buf, size_t n, double bytes) {
    if (bytes >= 1024.0 * 1024 * 1024) snprintf(buf, n, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024) snprintf(buf, n, "%.2f MiB", bytes / (1024.0 * 1024));
    else if (bytes >= 1024) snprintf(buf, n, "%.1f KiB", bytes / 1024);
    else snprintf(buf, n, "%.0f B", bytes);
}

/* ---- placing bars ---- */

static double pos(const TlvWindow *w, int cols, double t) { return (t - w->t0) / w->span * cols; }

int tlview_col(const TlvWindow *w, int cols, double t_us) {
    if (w->span <= 0) return 0;
    return (int)floor(pos(w, cols, t_us) + 1e-9);
}

bool tlview_bar_cols(const TlvWindow *w, int cols, double start_us, double dur_us, int *x0, int *x1) {
    if (w->span <= 0 || cols <= 0) return false;
    double a = pos(w, cols, start_us), b = pos(w, cols, start_us + (dur_us > 0 ? dur_us : 0));
    if (b < 0 || a >= cols) return false;
    int c0 = (int)floor(a + 1e-9), c1 = (int)ceil(b - 1e-9);
    if (c1 <= c0) c1 = c0 + 1;   /* a short bar still shows */
    if (c0 < 0) c0 = 0;
    if (c1 > cols) c1 = cols;
    if (c1 <= c0) return false;
    *x0 = c0;
    *x1 = c1;
    return true;
}

/* ---- the cursor ---- */

int tlview_step_in_row(const TlvModel *m, int sel, int dir) {
    if (sel < 0 || sel >= m->n_bars) return sel;
    for (int i = sel + dir; i >= 0 && i < m->n_bars; i += dir)
        if (m->bars[i].row == m->bars[sel].row) return i;
    return sel;
}

int tlview_bar_at(const TlvModel *m, int row, double t) {
    int best = -1;
    double best_d = 0;
    for (int i = 0; i < m->n_bars; i++) {
        const TlvBar *b = &m->bars[i];
        if (b->row != row) continue;
        double d = t < b->start_us ? b->start_us - t : t > b->start_us + b->dur_us ? t - b->start_us - b->dur_us : 0;
        if (best < 0 || d < best_d) {
            best = i;
            best_d = d;
        }
    }
    return best;
}

int tlview_row_jump(const TlvModel *m, int sel, int dir) {
    if (sel < 0 || sel >= m->n_bars) return sel;
    const TlvBar *cur = &m->bars[sel];
    double mid = cur->start_us + cur->dur_us / 2;
    for (int r = cur->row + dir; r >= 0 && r < m->n_rows; r += dir) {
        int i = tlview_bar_at(m, r, mid);
        if (i >= 0) return i;
    }
    return sel;
}
