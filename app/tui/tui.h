/* app/tui/tui.h: the workbench's screen manager and what every screen shares.
 *
 * Modelled on htop: the manager (tui_main.c) owns a stack of panels; the
 * top one is drawn and gets the keys. A panel draws itself into the screen
 * rows it is given and answers a key with flags (TUI_HANDLED, TUI_QUIT,
 * TUI_POP...). Only the manager reads input: keys through get_wch, the
 * worker's pipe, an inotify fd and a helper pipe through one poll(), and it
 * alone handles KEY_RESIZE. Drawing goes through tui_draw.c (semantic
 * roles, wide characters). */
#ifndef CUDOJO_APP_TUI_H
#define CUDOJO_APP_TUI_H

#define _XOPEN_SOURCE_EXTENDED 1
#include <curses.h>
#include <stdbool.h>

#include "app/attempt.h"
#include "app/cli.h"
#include "app/debug.h"
#include "app/runner.h"
#include "app/tui/tui_results.h"
#include "app/tui/tui_text.h"
#include "app/workspace.h"

enum {
    TUI_UNHANDLED = 0,
    TUI_HANDLED = 1 << 0,
    TUI_QUIT = 1 << 1,    /* leave the program */
    TUI_POP = 1 << 2,     /* close this panel (the manager frees it) */
};

/* Smallest terminal we draw into; below it we say so. */
#define TUI_MIN_COLS 40
#define TUI_MIN_ROWS 12

typedef struct Tui Tui;
typedef struct Panel Panel;

typedef struct TuiKeyHelp {
    const char *keys;    /* "j/k ↑/↓" */
    const char *what;
} TuiKeyHelp;

struct Panel {
    const char *title;                              /* for the help screen ("Course map") */
    const TuiKeyHelp *help;                         /* NULL-terminated; the screen's keys */
    /* Draws into rows [top, top+h) of a screen `w` columns wide. */
    void (*draw)(Panel *p, Tui *t, int top, int h, int w);
    int (*key)(Panel *p, Tui *t, int key);
    /* Called when the panel comes back on top (a pushed panel closed). */
    void (*resume)(Panel *p, Tui *t);
    /* A mouse click at screen (y, x); may be NULL. */
    int (*click)(Panel *p, Tui *t, int y, int x, bool double_click);
    /* Frees the panel and stops what it started (runs, watched fds). */
    void (*free)(Panel *p, Tui *t);
};

/* Something the manager must wake for besides keys: called when fd is readable. */
typedef void (*TuiFdHandler)(Tui *t, void *ctx);

/* ---- opening a screen ---- */
/* A screen never builds another: it asks for one, and tui_main.c (the only
 * caller of the constructors below, like htop's ScreenManager) builds it
 * and puts it on top. */
typedef enum TuiOpen {
    TUI_OPEN_LESSON,        /* ch */
    TUI_OPEN_EXERCISE,      /* ch, ex */
    TUI_OPEN_OCCUPANCY,     /* title (the exercise's), res */
    TUI_OPEN_TIMELINE,      /* title, res; or runs/n_runs (this session's timelines, oldest first) */
    TUI_OPEN_PROGRESS,
    TUI_OPEN_DEVICE,
    TUI_OPEN_TEXT,          /* title, doc (taken) */
    TUI_OPEN_DEBUG,         /* ch, ex: the warp debugger on the learner's copy */
    TUI_OPEN_DEBUG_TRACE,   /* tg, trace (taken), start: the debugger on a recorded run (cudojo debug) */
    TUI_OPEN_CLASS,         /* report (a reference taken): the class report (cudojo class report --tui) */
} TuiOpen;

typedef struct TuiRequest {
    TuiOpen what;
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    const char *title;
    const RunResult *res;
    json_t *const *runs;
    int n_runs;
    TextDoc *doc;
    json_t *report;
    const DebugTarget *tg;
    EmuTrace *trace;
    int start;
} TuiRequest;

struct Tui {
    Cli *cli;
    Workspace *ws;
    Runner *runner;
    Panel *stack[16];
    int depth;
    bool color;          /* colours in use (terminal has them, NO_COLOR unset) */
    bool utf8;           /* the locale is UTF-8: box drawing and ✓ marks */
    bool zh;             /* show Chinese lesson text when there is some */
    int rows, cols;
    char *message;       /* a one-line notice in the status bar (owned) */
    bool message_error;
    double message_until;
    bool quit;
    /* An extra fd to wake for (the exercise view's inotify fd, the device screen's pipe). */
    int watch_fds[4];
    TuiFdHandler watch_handlers[4];
    void *watch_ctx[4];
    /* Run events go to whoever started the run. */
    void (*on_run_done)(Tui *t, void *ctx, RunResult *res);
    /* The verdict, when the run sends it before its end (a profile after the
     * verdict: runner_take_verdict); takes res. The run goes on until
     * on_run_done gets the final result. May be NULL. */
    void (*on_run_verdict)(Tui *t, void *ctx, RunResult *res);
    void *run_ctx;
    /* Called on every wake-up (spinner, debounce timers); returns ms until it wants the next, or -1. */
    int (*on_tick)(Tui *t, void *ctx);
    void *tick_ctx;
    /* The screen a handler asked for (tui_open); tui_main.c builds it next. */
    struct TuiRequest request;
    char *request_title;     /* owned copy of request.title */
    bool has_request;
};

/* ---- tui_main.c: the manager (screens do not call it) ---- */
void tui_push(Tui *t, Panel *p);
/* tui_main.c also runs one screen on its own, without a workspace or a
 * runner: tui_debug_open (tui_debug.h) and tui_class_open (tui_class.h). */

/* ---- tui_services.c: what a screen may ask for ---- */
/* Queues the screen to open once the handler returns (tui_main.c builds it). */
void tui_open(Tui *t, const TuiRequest *rq);
/* A notice in the status bar for a few seconds. */
void tui_notify(Tui *t, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Leaves curses for a child program in the terminal (an editor) and comes back. */
int tui_run_foreground(Tui *t, const char *shell_cmd);
void tui_watch_fd(Tui *t, int fd, TuiFdHandler h, void *ctx);
void tui_unwatch_fd(Tui *t, int fd);
double tui_now(void);
/* The chapter's / exercise's title and an exercise's hint i in the language shown. */
const char *tui_chapter_title(const Tui *t, const ChapterMeta *ch);
const char *tui_exercise_title(const Tui *t, const ExerciseMeta *ex);
const char *tui_hint(const Tui *t, const ExerciseMeta *ex, int i);

/* ---- tui_draw.c ---- */
void tui_colors_init(bool color);
attr_t tui_attr(int role, short *pair);
void tui_set_role(int role);
/* Draws UTF-8 text at (y, x), at most maxw columns; returns the columns used. */
int tui_put(int y, int x, int maxw, int role, const char *s);
/* The same, ending in "…" when the text is cut. */
int tui_put_clip(const Tui *t, int y, int x, int maxw, int role, const char *s);
/* Fills w columns at (y, x) with blanks in `role`. */
void tui_fill(int y, int x, int w, int role);
/* Draws a styled line (skipping `hscroll` columns), padding with `fill_role`.
 * Matches of `search` (case-insensitive) are shown in ROLE_SEARCH. When
 * `override` >= 0 every span is drawn in that role instead. */
void tui_put_line(int y, int x, int w, const TextLine *line, int hscroll, const char *search, int override,
                  int fill_role);
/* The title bar (row 0) and the status bar (last row). */
void tui_draw_title(Tui *t, const char *left, const char *right);
void tui_draw_status(Tui *t, const char *keys);
/* A yes/no question on the last row: the question clipped (…) so that the
 * answer keys (y/N) after it always show, however narrow the terminal. */
void tui_draw_confirm(Tui *t, const char *question);
/* A proportion bar of w columns. */
void tui_draw_bar(Tui *t, int y, int x, int w, double frac);
/* "✓"/"v" depending on the locale. */
const char *tui_glyph(const Tui *t, const char *utf8, const char *ascii);

/* ---- the screens (one file each) ---- */
Panel *tui_map_new(Tui *t);
Panel *tui_lesson_new(Tui *t, const ChapterMeta *ch);
Panel *tui_exercise_new(Tui *t, const ChapterMeta *ch, const ExerciseMeta *ex);
Panel *tui_help_new(Tui *t, const Panel *about);
Panel *tui_progress_new(Tui *t);
Panel *tui_device_new(Tui *t);
/* Occupancy of the kernels `res` launched (its metrics), for the exercise titled `exercise`. */
Panel *tui_occupancy_new(Tui *t, const char *exercise, const RunResult *res);
/* The timeline (metrics.timeline) of `res`, the last run of the exercise titled `exercise`. */
Panel *tui_timeline_new(Tui *t, const char *exercise, const RunResult *res);
/* The same over this session's runs (timelines, oldest first, n >= 1; the
 * panel takes references): the latest first, `,`/`.` step between them. */
Panel *tui_timeline_new_runs(Tui *t, const char *exercise, json_t *const *timelines, int n);
/* A read-only scrollable document (solution, a long message); takes doc. */
Panel *tui_textview_new(Tui *t, const char *title, TextDoc *doc);
/* The class report (app/class_report.h) of `cudojo class report --tui`; takes a reference to report. */
Panel *tui_class_new(Tui *t, json_t *report);
/* The warp debugger (tui_debug.c) on the learner's copy of ex: records warp 0 of
 * block 0 first; NULL (with a notice) when the run cannot be recorded. */
Panel *tui_debug_new(Tui *t, const ChapterMeta *ch, const ExerciseMeta *ex);
/* The same on a recorded run: trace tr (taken) of target tg (copied), at step start. */
Panel *tui_debug_new_trace(Tui *t, const DebugTarget *tg, EmuTrace *tr, int start);

/* ---- tui_textview.c: the scrolling/search behaviour the text screens share ---- */
typedef struct TextScroll {
    int top;             /* first line shown */
    int hscroll;
    int height;          /* rows shown at the last draw */
    char *search;        /* the last search term (owned), NULL if none */
    int match;           /* line of the last match; n/N go on from there */
    bool typing;         /* the search prompt is open */
    char input[256];
    int input_len;
} TextScroll;

/* Draws doc in rows [top, top+h) with the scroll state. */
void text_scroll_draw(TextScroll *s, const TextDoc *doc, int top, int h, int x, int w);
/* Handles movement and search keys for a doc; TUI_UNHANDLED for others. */
int text_scroll_key(TextScroll *s, const TextDoc *doc, Tui *t, int key);
void text_scroll_fini(TextScroll *s);
/* Draws the search prompt on the status row when typing; true if it did. */
bool text_scroll_draw_prompt(const TextScroll *s, Tui *t);

#endif
