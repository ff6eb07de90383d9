/* app/tui/tui_exercise.c: the exercise view, where the learner works: the
 * learner's source (highlighted, with the heat column and the lines a
 * diagnostic points at) and the statement + results + hints, side by side or
 * stacked on narrow terminals. Every save of the file (inotify) re-runs it;
 * `r` runs by hand; a run never blocks (spinner, elapsed time, Esc cancels). */
#include "app/tui/tui_exercise.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "app/hint.h"
#include "app/trace.h"
#include "app/tui/tui_highlight.h"
#include "base/i18n.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "progress-db/store.h"

static const TuiKeyHelp EX_HELP[] = {
    {"r", N_("run now (saving the file runs it too)")},
    {"e", N_("edit the file in $VISUAL / $EDITOR")},
    {"Esc", N_("stop a run in progress; else back to the map")},
    {"H", N_("ask for a hint (it asks before revealing; the hint taken is recorded)")},
    {"m", N_("all the run's metrics / only the numbers the exercise is about")},
    {"s", N_("see the solution (after you passed)")},
    {"x", N_("reset the file to the starter (yours is backed up)")},
    {"] / [", N_("next / previous exercise")},
    {"←/→ < >", N_("scroll the source sideways (long lines end in › )")},
    {"Tab", N_("switch between the source and the results pane")},
    {"z", N_("zoom: the focused pane fills the screen (again: both)")},
    {"j/k ↑/↓ PgUp/PgDn g/G", N_("scroll the focused pane")},
    {"/ n N", N_("search in the focused pane")},
    {"l", N_("read the chapter's lesson")},
    {"o", N_("occupancy of the kernels the last run launched (try other block sizes and GPUs)")},
    {"t", N_("timeline of the last run: copies, kernels and host work per stream (zoom, pan, select)")},
    {"W", N_("debugger: step one warp of your kernel line by line (emulator)")},
    {"a", N_("access map of the worst line: one warp's lanes, sectors and banks (again: the next line)")},
    {"q", N_("back to the map")},
    {"", ""},
    {N_("heat column"), N_("░ ran, fine   ▒ worth a look   █ costly (emulator: coalescing, bank conflicts, divergence)")},
    {N_("▶ red line"), N_("a line a compile error or a finding points at")},
    {NULL, NULL},
};

static void ex_stop_watch(ExercisePanel *xp, Tui *t) {
    if (xp->ino_fd >= 0) {
        tui_unwatch_fd(t, xp->ino_fd);
        close(xp->ino_fd);
    }
    xp->ino_fd = xp->ino_wd = -1;
}

/* Reads the learner's file into the highlighted source doc. */
void exview_load_source(ExercisePanel *xp) {
    text_doc_free(&xp->src);
    xp->src = text_doc_new();
    xp->src_mtime = fs_mtime_ns(xp->path);
    char *text = NULL;
    Diag *d = fs_read_file(xp->path, &text, NULL);
    if (d) {
        text_doc_addf(xp->src, ROLE_FAIL, "%s", d->message);
        text_doc_add_text(xp->src, ROLE_DIM, _("x brings the starter back."));
        diag_free(&d);
        return;
    }
    HlState hs = {0};
    const char *p = text;
    int ln = 1;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *one = xstrndup(p, len);
        if (len && one[len - 1] == '\r') one[len - 1] = '\0';
        TextLine *l = text_doc_add_line(xp->src);
        l->tag = ln++;
        hl_line(l, one, &hs, ROLE_NORMAL);
        free(one);
        p += len + (nl ? 1 : 0);
    }
    free(text);
}

static void ex_load_status(ExercisePanel *xp, Tui *t) {
    exercise_status_fini(&xp->st);
    memset(&xp->st, 0, sizeof xp->st);
    Diag *d = store_exercise_status(t->ws->store, xp->ex->id, &xp->st);
    if (!d) d = store_hints_taken(t->ws->store, xp->ex->id, &xp->hints_taken);
    free(xp->hint_seen);
    xp->hint_seen = xcalloc((size_t)xp->ex->n_hints + 1, sizeof *xp->hint_seen);
    if (!d) d = store_hints_seen(t->ws->store, xp->ex->id, xp->hint_seen, xp->ex->n_hints);
    if (d) {
        tui_notify(t, true, _("progress: %s"), d->message);
        diag_free(&d);
    }
}


/* Marks the source lines that diagnostics point at, and the heat per line. */
void exview_index_result(ExercisePanel *xp) {
    results_heat_free(&xp->heat, &xp->heat_notes, xp->heat_lines);
    free(xp->err_lines);
    xp->err_lines = NULL;
    xp->heat_lines = 0;
    xp->n_err_lines = xp->src->n;
    if (!xp->result) return;
    xp->heat_lines = xp->src->n;
    if (!results_line_heat(xp->result, xp->heat_lines, &xp->heat, &xp->heat_notes)) xp->heat_lines = 0;
    xp->err_lines = xcalloc((size_t)xp->n_err_lines + 2, sizeof *xp->err_lines);
    const char *base = path_basename(xp->path);
    for (const Diag *d = xp->result->diags; d; d = d->next) {
        if (d->line < 1 || d->line > xp->n_err_lines || d->severity == DIAG_NOTE) continue;
        /* Only diagnostics about the learner's file mark its lines (not the lesson's .lua). */
        if (d->file && strcmp(path_basename(d->file), base) != 0) continue;
        xp->err_lines[d->line] = true;
    }
}

/* The exercise's statement: the comment the starter opens with (the
 * lesson's copy, so the learner's edits do not change it). Caller frees. */
static char *ex_statement(const ChapterMeta *ch, const ExerciseMeta *ex) {
    char *starter = path_join(ch->dir, ex->source);
    char *text = NULL;
    Diag *d = fs_read_file(starter, &text, NULL);
    free(starter);
    if (d) {
        diag_free(&d);
        return NULL;
    }
    StrBuf sb;
    strbuf_init(&sb);
    const char *p = text;
    bool first = true, keep_break = false;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "//", 2) != 0) break;
        p += 2;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        int indent = 0;
        while (len && (*p == ' ' || *p == '/')) {
            indent += *p == ' ';
            p++;
            len--;
        }
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\r')) len--;
        /* An indented comment line is a table or a formula: it keeps its own line. */
        bool own_line = indent >= 2;
        if (len == 0) {
            if (sb.len && !first) strbuf_append(&sb, "\n\n");
            first = true;
        } else {
            if (!first) strbuf_append(&sb, own_line || keep_break ? "\n" : " ");
            strbuf_append_n(&sb, p, len);
            first = false;
        }
        keep_break = own_line;
        p += len;
        p = strchr(p, '\n');
        if (!p) break;
        p++;
    }
    free(text);
    if (sb.len == 0) {
        strbuf_fini(&sb);
        return NULL;
    }
    return strbuf_steal(&sb);
}

/* The last recorded attempt, so a learner coming back sees where they were. */
static void ex_load_stored_result(ExercisePanel *xp, Tui *t) {
    xp->result = hint_last_result(t->ws, xp->ex);
    xp->result_is_stored = xp->result != NULL;
}

/* The source opens at the file's first TODO (with two lines above it). */
static void ex_scroll_to_todo(ExercisePanel *xp) {
    for (int i = 0; i < xp->src->n; i++) {
        char *plain = text_line_plain(&xp->src->lines[i]);
        bool hit = strstr(plain, "TODO") != NULL;
        free(plain);
        if (hit) {
            xp->src_scroll.top = i > 2 ? i - 2 : 0;
            return;
        }
    }
}

static void ex_inotify(Tui *t, void *ctx);

static void ex_forget_timelines(ExercisePanel *xp) {
    for (int i = 0; i < xp->n_tl_runs; i++) json_decref(xp->tl_runs[i]);
    xp->n_tl_runs = 0;
}

/* Keeps the run's timeline for the timeline screen (the oldest goes when full). */
static void ex_keep_timeline(ExercisePanel *xp, const RunResult *res) {
    json_t *tl = (json_t *)trace_timeline_of(res);
    if (!json_is_object(tl) || json_array_size(json_object_get(tl, "events")) == 0) return;
    if (xp->n_tl_runs == EXVIEW_TIMELINES) {
        json_decref(xp->tl_runs[0]);
        memmove(xp->tl_runs, xp->tl_runs + 1, (EXVIEW_TIMELINES - 1) * sizeof *xp->tl_runs);
        xp->n_tl_runs--;
    }
    xp->tl_runs[xp->n_tl_runs++] = json_incref(tl);
}

void exview_set(ExercisePanel *xp, Tui *t, const ChapterMeta *ch, const ExerciseMeta *ex) {
    ex_stop_watch(xp, t);
    run_result_free(&xp->result);
    ex_forget_timelines(xp);
    free(xp->path);
    free(xp->shown);
    xp->ch = ch;
    xp->ex = ex;
    xp->path = workspace_exercise_path(t->ws, ch, ex);
    xp->shown = workspace_display_path(xp->path);
    xp->src_scroll = (TextScroll){0};
    text_scroll_fini(&xp->info_scroll);
    xp->info_scroll = (TextScroll){0};
    xp->confirm_reset = false;
    xp->confirm_hint = -1;
    xp->pending_run_at = 0;
    exview_load_source(xp);
    ex_scroll_to_todo(xp);
    ex_load_status(xp, t);
    ex_load_stored_result(xp, t);
    free(xp->statement);
    xp->statement = ex_statement(ch, ex);
    exview_index_result(xp);
    xp->info_width = 0;
    /* Watch the directory, not the file: editors often save by renaming a new file over it. */
    xp->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (xp->ino_fd >= 0) {
        char *dir = path_dirname(xp->path);
        xp->ino_wd = inotify_add_watch(xp->ino_fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE);
        free(dir);
        tui_watch_fd(t, xp->ino_fd, ex_inotify, xp);
    }
}

static void ex_start_run(ExercisePanel *xp, Tui *t) {
    /* The latest save wins: a run still in flight (this view's or another's) is stopped. */
    if (runner_fd(t->runner) >= 0) runner_cancel(t->runner);
    xp->running = xp->profiling = false;
    xp->pending_run_at = 0;
    exview_load_source(xp);
    RunResult *res = attempt_start(t->ws, t->runner, xp->ch, xp->ex, NULL, NULL);
    if (res) {
        run_result_free(&xp->result);
        xp->result = res;
        xp->result_is_stored = false;
        exview_index_result(xp);
    } else {
        xp->running = true;
        xp->run_started = tui_now();
        /* The old result's line marks and heat describe a source that is gone. */
        run_result_free(&xp->result);
        exview_index_result(xp);
    }
    xp->info_width = 0;
}

static void ex_on_run_done(Tui *t, void *ctx, RunResult *res) {
    ExercisePanel *xp = ctx;
    bool told = xp->profiling;     /* the verdict was shown, and said */
    xp->running = xp->profiling = false;
    attempt_record(t->ws, xp->ch, xp->ex, NULL, res);
    ex_keep_timeline(xp, res);
    run_result_free(&xp->result);
    xp->result = res;
    xp->result_is_stored = false;
    exview_load_source(xp);
    ex_load_status(xp, t);
    exview_index_result(xp);
    /* The task stays where it was; when the result starts below the pane,
     * the pane scrolls down to it (the layout is made at the next draw). */
    xp->info_width = 0;
    xp->scroll_to_result = true;
    /* Bring the first line a diagnostic points at into view. */
    for (int l = 1; xp->err_lines && l <= xp->n_err_lines; l++)
        if (xp->err_lines[l]) {
            xp->src_scroll.top = l - 3 > 0 ? l - 3 : 0;
            break;
        }
    if (res->verdict == VERDICT_PASS && !told) tui_notify(t, false, _("Passed! ] goes to the next exercise."));
}

/* The verdict before the run's end: shown at once; the run goes on (a
 * profiler or compute-sanitizer after the verdict) until ex_on_run_done
 * replaces it with the final result, the same verdict and what came after
 * it. */
static void ex_on_run_verdict(Tui *t, void *ctx, RunResult *res) {
    ExercisePanel *xp = ctx;
    if (!xp->running) {
        run_result_free(&res);
        return;
    }
    xp->profiling = true;
    run_result_free(&xp->result);
    xp->result = res;
    xp->result_is_stored = false;
    exview_index_result(xp);
    xp->info_width = 0;
    xp->scroll_to_result = true;
    if (res->verdict == VERDICT_PASS) tui_notify(t, false, _("Passed! ] goes to the next exercise."));
}

static void ex_inotify(Tui *t, void *ctx) {
    ExercisePanel *xp = ctx;
    (void)t;
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    const char *name = path_basename(xp->path);
    for (;;) {
        ssize_t len = read(xp->ino_fd, buf, sizeof buf);
        if (len <= 0) break;
        for (char *p = buf; p < buf + len;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            if (ev->len && !strcmp(ev->name, name)) xp->pending_run_at = tui_now() + 0.08;
            p += sizeof *ev + ev->len;
        }
    }
}

/* Timers: the spinner while running, the debounced re-run after a save, and
 * an mtime check for file systems inotify misses. */
static int ex_tick(Tui *t, void *ctx) {
    ExercisePanel *xp = ctx;
    double now = tui_now();
    if (now >= xp->next_mtime_check) {
        xp->next_mtime_check = now + 1.0;
        long long m = fs_mtime_ns(xp->path);
        if (m != xp->src_mtime && !xp->pending_run_at) xp->pending_run_at = now;
    }
    if (xp->pending_run_at && now >= xp->pending_run_at) {
        ex_start_run(xp, t);
        return 100;
    }
    if (xp->running) return 100;
    if (xp->pending_run_at) {
        int ms = (int)((xp->pending_run_at - now) * 1000) + 1;
        return ms < 1 ? 1 : ms;
    }
    return (int)((xp->next_mtime_check - now) * 1000) + 1;
}

/* Records hint h as taken and shows it (the hints are at the end of the info pane). */
static void ex_reveal_hint(ExercisePanel *xp, Tui *t, int h) {
    Diag *d = store_record_hint(t->ws->store, xp->ex->id, h);
    if (d) {
        tui_notify(t, true, "%s", d->message);
        diag_free(&d);
        return;
    }
    xp->hint_seen[h] = true;
    xp->hints_taken++;
    xp->info_width = 0;
    xp->focus_src = false;
    xp->scroll_to_hints = true;
}

/* Moves to the exercise before/after this one; false at either end. */
static bool ex_step(ExercisePanel *xp, Tui *t, int dir) {
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    if (!exview_neighbour(xp, t->ws->course, dir, &ch, &ex)) return false;
    if (xp->running) {
        runner_cancel(t->runner);
        xp->running = xp->profiling = false;
    }
    exview_set(xp, t, ch, ex);
    return true;
}

static int ex_key(Panel *p, Tui *t, int key) {
    ExercisePanel *xp = (ExercisePanel *)p;
    if (xp->confirm_reset) {
        xp->confirm_reset = false;
        if ((key == 'y' || key == 'Y') && exview_reset(xp, t)) exview_load_source(xp);
        else tui_notify(t, false, _("reset cancelled"));
        return TUI_HANDLED;
    }
    if (xp->confirm_hint >= 0) {
        int h = xp->confirm_hint;
        xp->confirm_hint = -1;
        if (key == 'y' || key == 'Y') ex_reveal_hint(xp, t, h);
        else tui_notify(t, false, _("no hint taken"));
        return TUI_HANDLED;
    }
    /* Sideways in the source, whichever pane has the focus (the other one wraps). */
    if (key == KEY_LEFT || key == KEY_RIGHT || key == '<' || key == '>') {
        if (!xp->src_scroll.typing && !xp->info_scroll.typing) {
            xp->src_scroll.hscroll += key == KEY_LEFT || key == '<' ? -8 : 8;
            if (xp->src_scroll.hscroll < 0) xp->src_scroll.hscroll = 0;
            int widest = 0;
            for (int i = 0; i < xp->src->n; i++)
                if (text_line_width(&xp->src->lines[i]) > widest) widest = text_line_width(&xp->src->lines[i]);
            int room = xp->src_text_w > 1 ? xp->src_text_w - 1 : 1;
            int max = widest - room > 0 ? widest - room : 0;
            if (xp->src_scroll.hscroll > max) xp->src_scroll.hscroll = max;
            return TUI_HANDLED;
        }
    }
    TextScroll *fs = xp->focus_src ? &xp->src_scroll : &xp->info_scroll;
    if (fs->typing || (key != 27 && key != 'q')) {
        int r = text_scroll_key(fs, xp->focus_src ? xp->src : xp->info, t, key);
        if (r != TUI_UNHANDLED) return r;
    }
    switch (key) {
    case 27:
        if (xp->profiling) {
            /* the verdict stands: only what runs after it is stopped */
            RunResult *res = runner_cancel_result(t->runner);
            if (res) ex_on_run_done(t, xp, res);
            tui_notify(t, false, run_result_after_kind(xp->result) == RUN_AFTER_SANITIZER
                                     ? _("compute-sanitizer stopped; the verdict stands")
                                     : _("profile stopped; the verdict stands"));
            return TUI_HANDLED;
        }
        if (xp->running) {
            runner_cancel(t->runner);
            xp->running = false;
            xp->info_width = 0;
            run_result_free(&xp->result);
            xp->result = run_result_new(VERDICT_CANCELLED);
            xp->result->summary = xasprintf(N_("stopped by you after %.1f s (r runs it again)"), tui_now() - xp->run_started);
            xp->result_is_stored = false;
            exview_index_result(xp);
            tui_notify(t, false, _("run stopped"));
            return TUI_HANDLED;
        }
        return TUI_POP;
    case 'q': return TUI_POP;
    case 'r':
    case KEY_F(5): ex_start_run(xp, t); return TUI_HANDLED;
    case 'e': exview_edit(xp, t); return TUI_HANDLED;
    case '\t':
    case KEY_BTAB: xp->focus_src = !xp->focus_src; return TUI_HANDLED;
    case 'z': xp->zoom = !xp->zoom; return TUI_HANDLED;
    case 'H':
        if (xp->ex->n_hints == 0) {
            tui_notify(t, false, _("This exercise has no hints."));
        } else {
            int h = hint_pick(xp->ex, xp->hint_seen, xp->result);
            if (h < 0) tui_notify(t, false, _("You have seen every hint (they are at the end of the results pane)."));
            else xp->confirm_hint = h;
        }
        return TUI_HANDLED;
    case 'h': tui_notify(t, false, _("Hints are on H (it asks first); ← → scroll the source sideways.")); return TUI_HANDLED;
    case 'm':
        xp->all_metrics = !xp->all_metrics;
        xp->info_width = 0;
        return TUI_HANDLED;
    case 's': exview_show_solution(xp, t); return TUI_HANDLED;
    case 'x':
    case KEY_DC: xp->confirm_reset = true; return TUI_HANDLED;
    case ']':
        if (!ex_step(xp, t, 1)) tui_notify(t, false, _("This is the last exercise."));
        return TUI_HANDLED;
    case '[':
        if (!ex_step(xp, t, -1)) tui_notify(t, false, _("This is the first exercise."));
        return TUI_HANDLED;
    case 'l': tui_open(t, &(TuiRequest){.what = TUI_OPEN_LESSON, .ch = xp->ch}); return TUI_HANDLED;
    case 'a': exview_access_key(xp, t); return TUI_HANDLED;
    case 'W': tui_open(t, &(TuiRequest){.what = TUI_OPEN_DEBUG, .ch = xp->ch, .ex = xp->ex}); return TUI_HANDLED;
    case 'o':
        tui_open(t, &(TuiRequest){.what = TUI_OPEN_OCCUPANCY, .title = tui_exercise_title(t, xp->ex), .res = xp->result});
        return TUI_HANDLED;
    case 't':
        /* This session's runs when there are some (the latest shown); else the last one recorded. */
        if (xp->n_tl_runs > 0 && xp->result && trace_timeline_of(xp->result) == xp->tl_runs[xp->n_tl_runs - 1])
            tui_open(t, &(TuiRequest){.what = TUI_OPEN_TIMELINE, .title = tui_exercise_title(t, xp->ex),
                                      .runs = xp->tl_runs, .n_runs = xp->n_tl_runs});
        else tui_open(t, &(TuiRequest){.what = TUI_OPEN_TIMELINE, .title = tui_exercise_title(t, xp->ex), .res = xp->result});
        return TUI_HANDLED;
    default: return TUI_UNHANDLED;
    }
}

/* A click in a pane gives it the focus (the wheel then scrolls it). */
static int ex_click(Panel *p, Tui *t, int y, int x, bool dbl) {
    ExercisePanel *xp = (ExercisePanel *)p;
    (void)t;
    (void)dbl;
    xp->focus_src = y >= xp->src_y0 && y < xp->src_y1 && x < xp->src_x1;
    return TUI_HANDLED;
}

static void ex_resume(Panel *p, Tui *t) {
    ExercisePanel *xp = (ExercisePanel *)p;
    ex_load_status(xp, t);
    xp->info_width = 0;
    /* Another exercise view may have been opened on top (from a lesson) and taken the hooks. */
    if (xp->running && runner_fd(t->runner) < 0) xp->running = xp->profiling = false;
    t->on_run_done = ex_on_run_done;
    t->on_run_verdict = ex_on_run_verdict;
    t->run_ctx = xp;
    t->on_tick = ex_tick;
    t->tick_ctx = xp;
    if (xp->ino_fd >= 0) tui_watch_fd(t, xp->ino_fd, ex_inotify, xp);
}

/* Stops what the view started (its run, its watch, its hooks), then frees it. */
static void ex_free(Panel *p, Tui *t) {
    ExercisePanel *xp = (ExercisePanel *)p;
    ex_stop_watch(xp, t);
    if (xp->running) runner_cancel(t->runner);
    if (t->run_ctx == xp) {
        t->on_run_done = NULL;
        t->on_run_verdict = NULL;
        t->run_ctx = NULL;
    }
    if (t->tick_ctx == xp) {
        t->on_tick = NULL;
        t->tick_ctx = NULL;
    }
    free(xp->path);
    free(xp->shown);
    free(xp->statement);
    free(xp->hint_seen);
    ex_forget_timelines(xp);
    text_doc_free(&xp->src);
    text_doc_free(&xp->info);
    text_scroll_fini(&xp->src_scroll);
    text_scroll_fini(&xp->info_scroll);
    run_result_free(&xp->result);
    results_heat_free(&xp->heat, &xp->heat_notes, xp->heat_lines);
    free(xp->err_lines);
    exercise_status_fini(&xp->st);
    exview_access_free(xp);
    free(xp);
}

Panel *tui_exercise_new(Tui *t, const ChapterMeta *ch, const ExerciseMeta *ex) {
    ExercisePanel *xp = xcalloc(1, sizeof *xp);
    xp->base = (Panel){.title = N_("Exercise"), .help = EX_HELP, .draw = exview_draw, .key = ex_key, .resume = ex_resume,
                       .free = ex_free, .click = ex_click};
    xp->ino_fd = xp->ino_wd = -1;
    xp->confirm_hint = -1;
    exview_set(xp, t, ch, ex);
    xp->next_mtime_check = tui_now() + 1.0;
    t->on_run_done = ex_on_run_done;
    t->on_run_verdict = ex_on_run_verdict;
    t->run_ctx = xp;
    t->on_tick = ex_tick;
    t->tick_ctx = xp;
    return &xp->base;
}
