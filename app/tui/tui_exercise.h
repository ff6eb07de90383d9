/* app/tui/tui_exercise.h: the exercise view's state, shared by its three
 * files: tui_exercise.c (runs, watching the file, keys), tui_exercise_draw.c
 * (the panes) and tui_exercise_actions.c (reset, solution, editor, next).
 * Only tui_exercise.c calls the other two (they answer; it acts). */
#ifndef CUDOJO_APP_TUI_EXERCISE_H
#define CUDOJO_APP_TUI_EXERCISE_H

#include "app/tui/tui.h"
#include "progress-db/store.h"

/* Runs of one exercise whose timelines the timeline screen can step through. */
#define EXVIEW_TIMELINES 8

typedef struct AccessPane AccessPane;   /* the access map section (tui_access.c) */

typedef struct ExercisePanel {
    Panel base;
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    char *path;              /* the learner's file (absolute) */
    char *shown;             /* how to name it */
    TextDoc *src;            /* highlighted source, tag = line number */
    long long src_mtime;
    TextDoc *info;           /* statement, results, hints; laid out for info_width */
    int info_width;
    TextScroll src_scroll, info_scroll;
    bool focus_src;
    RunResult *result;       /* the last run (or the last stored attempt) */
    bool result_is_stored;
    int *heat;
    char **heat_notes;
    int heat_lines;
    bool *err_lines;         /* per source line: a diagnostic points here */
    int n_err_lines;
    char *statement;         /* the starter's opening comment, as paragraphs ('\n\n' between) */
    ExerciseStatus st;
    int hints_taken;
    bool *hint_seen;         /* per hint of ex: taken (from the store) */
    int confirm_hint;        /* the hint H offered, waiting for y/n; -1 when none */
    bool all_metrics;        /* m: every metric of the run, not only the exercise's numbers */
    int result_line, hints_line;  /* where the result and the hints start in info (last layout) */
    bool scroll_to_result, scroll_to_hints;  /* at the next layout, bring it into view */
    int src_text_w;          /* columns the source text had at the last draw */
    json_t *tl_runs[EXVIEW_TIMELINES];  /* this session's timelines of the exercise, oldest first */
    int n_tl_runs;
    bool running;
    bool profiling;          /* running, its verdict shown: what runs after it (a profiler, compute-sanitizer) goes on */
    double run_started;
    double pending_run_at;   /* a save was seen: run at this time (0 = none) */
    double next_mtime_check;
    bool confirm_reset;
    bool zoom;               /* the focused pane fills the screen */
    int src_y0, src_y1, src_x1;  /* the source pane's rows and right edge at the last draw (for clicks) */
    int ino_fd, ino_wd;
    AccessPane *access;      /* a: the access map shown at the end of the results pane; NULL none */
} ExercisePanel;

/* Shows exercise ex (loads its file, status, last attempt; watches the file). */
void exview_set(ExercisePanel *xp, Tui *t, const ChapterMeta *ch, const ExerciseMeta *ex);
/* Reads the learner's file into the highlighted source doc. */
void exview_load_source(ExercisePanel *xp);
/* Marks the source lines that diagnostics point at, and the heat per line. */
void exview_index_result(ExercisePanel *xp);
/* How many hints were taken, and whether hint i was. */
int exview_hints_shown(const ExercisePanel *xp);
bool exview_hint_seen(const ExercisePanel *xp, int i);
/* Lays out the statement, result and hints for the info pane. */
void exview_layout_info(ExercisePanel *xp, Tui *t, int width);
void exview_draw(Panel *p, Tui *t, int top, int h, int w);
/* Same as `cudojo reset`: the learner's file goes to .cudojo/backups, then
 * the starter is copied; true when it was (the caller reloads the source). */
bool exview_reset(ExercisePanel *xp, Tui *t);
/* Opens the solution, once the exercise has been passed. */
void exview_show_solution(ExercisePanel *xp, Tui *t);
/* The exercise before (dir = -1) or after (1) in course order; false at either end. */
bool exview_neighbour(const ExercisePanel *xp, const Course *c, int dir, const ChapterMeta **ch,
                      const ExerciseMeta **ex);
/* Opens the file in $VISUAL / $EDITOR (curses suspended meanwhile). */
void exview_edit(ExercisePanel *xp, Tui *t);
/* The access map (tui_access.c): a draws the worst line's, again the next
 * line's, after the last it hides; render appends it to the results pane. */
void exview_access_key(ExercisePanel *xp, Tui *t);
void exview_access_render(ExercisePanel *xp, TextDoc *doc, int width, bool utf8);
void exview_access_free(ExercisePanel *xp);

#endif
