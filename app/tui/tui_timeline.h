/* app/tui/tui_timeline.h: the timeline screen's model and layout math.
 *
 * The screen (tui_timeline.c) draws a run's metrics.timeline: one row per
 * stream plus the host, a bar per copy, kernel, memset or piece of host
 * work, against a time axis the learner zooms and pans. Everything that is
 * arithmetic rather than curses lives here (tui_timeline_layout.c), so it
 * is unit-tested without a terminal: building the rows and bars from the
 * JSON, the visible window, nice tick steps and their units, where a bar
 * falls in columns, and moving the cursor between bars. Times are µs. */
#ifndef CUDOJO_APP_TUI_TIMELINE_H
#define CUDOJO_APP_TUI_TIMELINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum TlvKind {
    TLV_H2D = 0, TLV_D2H, TLV_D2D, TLV_MEMSET, TLV_KERNEL, TLV_HOST, TLV_SYNC, TLV_EVENT, TLV_OTHER,
    TLV_KIND_COUNT
} TlvKind;

typedef struct TlvRow {
    int stream;              /* -1: the host */
    char *name;              /* "host", "0 default (legacy)", "1 s1" */
} TlvRow;

typedef struct TlvBar {
    TlvKind kind;
    const char *kind_name;   /* as the JSON said ("h2d"); points into the model's copy */
    int row;                 /* index into rows */
    char *name;
    double start_us, dur_us;
    double bytes;            /* 0 when none */
    int pinned;              /* 1 pinned, 0 pageable, -1 not said */
    int grid[3], block[3];   /* kernels; grid[0] == 0 when not said */
} TlvBar;

typedef struct TlvModel {
    bool modeled;
    char *source, *device;   /* may be NULL */
    TlvRow *rows;            /* the host first, then streams by id */
    int n_rows;
    TlvBar *bars;            /* by start time, then row */
    int n_bars;
    double end_us;           /* the latest end of any bar */
    long dropped;            /* entries the engine did not keep */
    json_t *json;            /* the timeline (a reference we hold) */
} TlvModel;

/* The part of the timeline on screen: [t0, t0 + span) µs. */
typedef struct TlvWindow {
    double t0, span;
} TlvWindow;

/* Reads a metrics.timeline object; NULL when it is not an object. */
TlvModel *tlview_model_new(const json_t *timeline);
void tlview_model_free(TlvModel **m);
TlvKind tlview_kind_parse(const char *s);
/* "H2D", "kernel"... as the legend names a kind. */
const char *tlview_kind_label(TlvKind k);

/* The whole run in the window. */
void tlview_fit(TlvWindow *w, const TlvModel *m);
/* Zooms in by `factor` (> 1 in, < 1 out) keeping `center_us` where it is on screen. */
void tlview_zoom(TlvWindow *w, const TlvModel *m, double factor, double center_us);
/* Moves the window by `by_us` (negative: earlier), staying inside the run. */
void tlview_pan(TlvWindow *w, const TlvModel *m, double by_us);
/* Pans (never zooms) so bar b is on screen, centred when it was not. */
void tlview_show(TlvWindow *w, const TlvModel *m, const TlvBar *b);
/* Zoom factor of the window against the whole run (1 = fit). */
double tlview_zoom_level(const TlvWindow *w, const TlvModel *m);

/* A step of 1, 2 or 5 × 10^k µs giving ticks at least `min_gap` of `cols` columns apart. */
double tlview_tick_step(double span_us, int cols, int min_gap);
/* The unit the axis labels use for a tick step: "s", "ms", "µs" or "ns"
 * ("us" when !utf8), and the factor from µs to it. */
const char *tlview_unit(double step_us, bool utf8, double *scale);
/* A tick's label in the step's unit without the unit ("0", "0.5", "250"). */
void tlview_format_tick(char *buf, size_t n, double t_us, double step_us);
/* A time with its unit, for details ("40.2 µs", "1.235 ms"). */
void tlview_format_time(char *buf, size_t n, double us, bool utf8);
/* Bytes for people ("4.00 MiB", "512 B"). */
void tlview_format_bytes(char *buf, size_t n, double bytes);

/* The column (0..cols-1 when inside) where time t falls. */
int tlview_col(const TlvWindow *w, int cols, double t_us);
/* Columns [*x0, *x1) a bar covers, clipped to the window, at least one
 * column wide however short it is; false when it is off screen. */
bool tlview_bar_cols(const TlvWindow *w, int cols, double start_us, double dur_us, int *x0, int *x1);

/* The bar after (dir = 1) or before (-1) sel on the same row; sel when none. */
int tlview_step_in_row(const TlvModel *m, int sel, int dir);
/* The bar on the nearest row below (dir = 1) or above (-1) that has bars,
 * closest in time to bar sel; sel when none. */
int tlview_row_jump(const TlvModel *m, int sel, int dir);
/* The bar of `row` nearest to time t (covering it when one does); -1 when the row is empty. */
int tlview_bar_at(const TlvModel *m, int row, double t_us);

#endif
