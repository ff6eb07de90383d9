/* app/tui/tui_main.c: `cudojo` with no command: the workbench's screen
 * manager. It opens the workspace, owns curses and the panel stack, and is
 * the only place that reads input: one poll() over the terminal, the
 * worker's pipe and the fds screens ask it to watch, so a run in flight
 * never blocks a key. The terminal is restored on every way out: quit, a
 * fatal error (xalloc's hook), SIGTERM/SIGHUP, and a crash signal. It
 * alone builds screens (screen_new, for a screen's request or for the
 * screens that run on their own: `cudojo debug`'s debugger and `cudojo
 * class report --tui`), so no screen calls back into it. */
#include "app/tui/tui.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/tui/tui_class.h"
#include "app/tui/tui_debug.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"

static volatile sig_atomic_t got_term;   /* SIGTERM/SIGHUP: leave cleanly */
static volatile sig_atomic_t got_int;    /* Ctrl-C: cancel a run, else quit */
static bool curses_on;

/* Gives the terminal back; safe to call twice. */
static void tui_restore_terminal(void) {
    if (!curses_on) return;
    curses_on = false;
    endwin();
}

static void on_term(int sig) {
    (void)sig;
    got_term = 1;
}

static void on_int(int sig) {
    (void)sig;
    got_int = 1;
}

/* A crash must not leave the learner's terminal in raw mode: restore, then die as before. */
static void on_crash(int sig) {
    tui_restore_terminal();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_int;
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

void tui_push(Tui *t, Panel *p) {
    if (t->depth == (int)(sizeof t->stack / sizeof *t->stack)) {
        p->free(p, t);
        return;
    }
    t->stack[t->depth++] = p;
}

/* Builds the screen rq asks for (NULL when it cannot be opened here): the
 * only place that calls the screens' constructors. */
static Panel *screen_new(Tui *t, const TuiRequest *rq) {
    switch (rq->what) {
    case TUI_OPEN_LESSON: return tui_lesson_new(t, rq->ch);
    case TUI_OPEN_EXERCISE: return tui_exercise_new(t, rq->ch, rq->ex);
    case TUI_OPEN_OCCUPANCY: return tui_occupancy_new(t, rq->title, rq->res);
    case TUI_OPEN_TIMELINE:
        return rq->n_runs > 0 ? tui_timeline_new_runs(t, rq->title, rq->runs, rq->n_runs)
                              : tui_timeline_new(t, rq->title, rq->res);
    case TUI_OPEN_PROGRESS: return t->ws ? tui_progress_new(t) : NULL;
    case TUI_OPEN_DEVICE: return t->ws ? tui_device_new(t) : NULL;
    case TUI_OPEN_TEXT: return tui_textview_new(t, rq->title, rq->doc);
    case TUI_OPEN_DEBUG: return t->ws ? tui_debug_new(t, rq->ch, rq->ex) : NULL;
    case TUI_OPEN_DEBUG_TRACE: return tui_debug_new_trace(t, rq->tg, rq->trace, rq->start);
    case TUI_OPEN_CLASS: return tui_class_new(t, rq->report);
    }
    return NULL;
}

/* Builds the screen a panel asked for (tui_open queued it) and puts it on top. */
static void open_requested(Tui *t) {
    if (!t->has_request) return;
    t->has_request = false;
    TuiRequest req = t->request;
    Panel *p = screen_new(t, &req);
    if (p) tui_push(t, p);
    free(t->request_title);
    t->request_title = NULL;
}

static void tui_pop(Tui *t) {
    if (t->depth == 0) return;
    Panel *p = t->stack[--t->depth];
    p->free(p, t);
    if (t->depth > 0 && t->stack[t->depth - 1]->resume) t->stack[t->depth - 1]->resume(t->stack[t->depth - 1], t);
}

static void draw_too_small(Tui *t) {
    erase();
    const char *msg = _("terminal too small");
    char need[64];
    snprintf(need, sizeof need, _("need %dx%d, have %dx%d"), TUI_MIN_COLS, TUI_MIN_ROWS, t->cols, t->rows);
    int y = t->rows / 2 - 1;
    if (y < 0) y = 0;
    tui_put(y, (t->cols - text_width(msg)) / 2 > 0 ? (t->cols - text_width(msg)) / 2 : 0, t->cols, ROLE_WARN, msg);
    if (t->rows > 1)
        tui_put(y + 1, (t->cols - text_width(need)) / 2 > 0 ? (t->cols - text_width(need)) / 2 : 0, t->cols,
                ROLE_NORMAL, need);
    if (t->rows > 2) tui_put(y + 2, 0, t->cols, ROLE_DIM, _("q quits"));
}

static void tui_draw(Tui *t) {
    getmaxyx(stdscr, t->rows, t->cols);
    if (t->message && tui_now() > t->message_until) XFREE(t->message);
    if (t->rows < TUI_MIN_ROWS || t->cols < TUI_MIN_COLS) {
        draw_too_small(t);
        refresh();
        return;
    }
    erase();
    Panel *p = t->stack[t->depth - 1];
    p->draw(p, t, 1, t->rows - 2, t->cols);
    refresh();
}

/* Hands one key to the top panel, then the global keys. */
static void key_dispatch(Tui *t, int key) {
    if (t->rows < TUI_MIN_ROWS || t->cols < TUI_MIN_COLS) {
        if (key == 'q' || key == 'Q') t->quit = true;
        return;
    }
    Panel *p = t->stack[t->depth - 1];
    int flags = p->key(p, t, key);
    if (flags & TUI_QUIT) {
        t->quit = true;
        return;
    }
    if (flags & TUI_POP) {
        tui_pop(t);
        if (t->depth == 0) t->quit = true;
        return;
    }
    if (flags & TUI_HANDLED) return;
    switch (key) {
    case '?':
    case KEY_F(1): tui_push(t, tui_help_new(t, p)); break;
    case 'q':
    case 27:
        tui_pop(t);
        if (t->depth == 0) t->quit = true;
        break;
    case 'Q': t->quit = true; break;
    case 'L':
        t->zh = !t->zh;
        i18n_set_chinese(t->zh);   /* the workbench's own words follow the lessons */
        tui_notify(t, false, "%s", t->zh ? "中文" : "English");
        if (p->resume) p->resume(p, t);
        break;
    /* Screens of the learner's workspace; a standalone screen (class report) has none. */
    case 'P': tui_open(t, &(TuiRequest){.what = TUI_OPEN_PROGRESS}); break;
    case 'D': tui_open(t, &(TuiRequest){.what = TUI_OPEN_DEVICE}); break;
    case 12: clearok(curscr, TRUE); break;   /* Ctrl-L */
    default: break;
    }
}

/* A key, then the screen it asked for. */
static void tui_key(Tui *t, int key) {
    key_dispatch(t, key);
    open_requested(t);
}

static bool locale_is_utf8(void) {
    const char *cs = nl_langinfo(CODESET);
    return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

/* Reads what the run in flight sent: its verdict when it comes before the
 * end (on_run_verdict), its final result (on_run_done). */
static void tui_poll_run(Tui *t) {
    RunResult *res = NULL;
    if (runner_poll(t->runner, 0, &res) == RUNNER_DONE) {
        if (t->on_run_done) t->on_run_done(t, t->run_ctx, res);
        else run_result_free(&res);
        return;
    }
    RunResult *v = runner_take_verdict(t->runner);
    if (v && t->on_run_verdict) t->on_run_verdict(t, t->run_ctx, v);
    else run_result_free(&v);
}

/* One turn of the loop: wait for a key, the worker or a watched fd, then handle what came. */
static void tui_wait(Tui *t) {
    struct pollfd fds[6];
    int nfds = 0;
    fds[nfds++] = (struct pollfd){.fd = 0, .events = POLLIN};
    int rfd = t->runner ? runner_fd(t->runner) : -1;
    int runner_slot = -1;
    if (rfd >= 0) {
        runner_slot = nfds;
        fds[nfds++] = (struct pollfd){.fd = rfd, .events = POLLIN};
    }
    int first_watch = nfds;
    int slot_of[4];
    for (int i = 0; i < 4; i++) {
        slot_of[i] = -1;
        if (t->watch_fds[i] >= 0) {
            slot_of[i] = nfds;
            fds[nfds++] = (struct pollfd){.fd = t->watch_fds[i], .events = POLLIN};
        }
    }
    (void)first_watch;
    int timeout = -1;
    if (t->on_tick) timeout = t->on_tick(t, t->tick_ctx);
    if (t->message) {
        int left = (int)((t->message_until - tui_now()) * 1000) + 10;
        if (left < 10) left = 10;
        if (timeout < 0 || left < timeout) timeout = left;
    }
    int n = poll(fds, (nfds_t)nfds, timeout);
    if (n < 0 && errno != EINTR) return;
    if (got_term) {
        t->quit = true;
        return;
    }
    if (got_int) {
        got_int = 0;
        if (rfd >= 0) ungetch(27);   /* the exercise view cancels on Esc */
        else t->quit = true;
    }
    if (runner_slot >= 0 && n > 0 && (fds[runner_slot].revents & (POLLIN | POLLHUP | POLLERR))) tui_poll_run(t);
    for (int i = 0; i < 4; i++)
        if (slot_of[i] >= 0 && n > 0 && (fds[slot_of[i]].revents & (POLLIN | POLLHUP | POLLERR)) &&
            t->watch_fds[i] >= 0)
            t->watch_handlers[i](t, t->watch_ctx[i]);
    open_requested(t);
    /* Keys: drain everything typed (EINTR from SIGWINCH also lands here as KEY_RESIZE). */
    for (;;) {
        wint_t wk;
        int r = get_wch(&wk);
        if (r == ERR) break;
        int key = (int)wk;
        if (r == KEY_CODE_YES && wk == KEY_RESIZE) {
            getmaxyx(stdscr, t->rows, t->cols);
            clearok(curscr, TRUE);
            /* Screens re-lay their text when the width changes. */
            Panel *p = t->stack[t->depth - 1];
            if (p->resume) p->resume(p, t);
            continue;
        }
        if (r == KEY_CODE_YES && wk == KEY_MOUSE) {
            MEVENT ev;
            if (getmouse(&ev) == OK) {
                Panel *p = t->stack[t->depth - 1];
                bool small = t->rows < TUI_MIN_ROWS || t->cols < TUI_MIN_COLS;
                if (ev.bstate & BUTTON4_PRESSED) {
                    tui_key(t, KEY_UP);
                } else if (ev.bstate & BUTTON5_PRESSED) {
                    tui_key(t, KEY_DOWN);
                } else if ((ev.bstate & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)) && p->click && !small) {
                    int flags = p->click(p, t, ev.y, ev.x, (ev.bstate & BUTTON1_DOUBLE_CLICKED) != 0);
                    if (flags & TUI_QUIT) t->quit = true;
                    open_requested(t);
                }
            }
            continue;
        }
        tui_key(t, key);
        if (t->quit) break;
    }
    /* A run that finished inside runner_poll's read of the pipe is handled above; a
       run whose time ran out is noticed here, since a hung worker sends nothing. */
    if (t->runner && runner_fd(t->runner) >= 0 && runner_elapsed_s(t->runner) > 0) tui_poll_run(t);
}

/* Takes the terminal: signals, curses, colours. */
static void tui_start(Tui *t) {
    const char *no_color = getenv("NO_COLOR");
    install_signals();
    xalloc_set_fail_hook(tui_restore_terminal);
    if (!getenv("ESCDELAY")) set_escdelay(25);
    initscr();
    curses_on = true;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    t->color = !(no_color && *no_color) && has_colors();
    tui_colors_init(t->color);
    getmaxyx(stdscr, t->rows, t->cols);
}

/* Draws and waits until the last panel closes or the user quits; frees the
 * panels and gives the terminal back. */
static void tui_loop(Tui *t) {
    while (!t->quit && t->depth > 0) {
        tui_draw(t);
        tui_wait(t);
    }
    while (t->depth > 0) {
        Panel *p = t->stack[--t->depth];
        p->free(p, t);
    }
    tui_restore_terminal();
    xalloc_set_fail_hook(NULL);
}

/* The Tui fields every way in sets: the locale's UTF-8 and language. */
static void tui_init_fields(Tui *t, Cli *cli) {
    memset(t, 0, sizeof *t);
    t->cli = cli;
    for (int i = 0; i < 4; i++) t->watch_fds[i] = -1;
    t->zh = cli_prefers_chinese();
    t->utf8 = locale_is_utf8();
    /* LANG=zh_CN.UTF-8 on a machine without that locale leaves us in "C": keep
       UTF-8 (and so CJK widths) by falling back to C.UTF-8. */
    if (!t->utf8 && i18n_env_wants_utf8() && setlocale(LC_CTYPE, "C.UTF-8")) t->utf8 = locale_is_utf8();
}

/* Runs the screen manager over the one screen rq asks for, without a
 * workspace or a runner (the workspace's screens are not offered).
 * Returns the exit status for main. */
static int run_standalone(Cli *cli, const TuiRequest *rq) {
    if (!isatty(0) || !isatty(1)) {
        fprintf(stderr, "%s", _("cudojo: this screen needs a terminal\n"));
        return 2;
    }
    Tui tui;
    Tui *t = &tui;
    tui_init_fields(t, cli);
    tui_start(t);
    Panel *p = screen_new(t, rq);
    if (p) tui_push(t, p);
    tui_loop(t);
    free(t->message);
    return got_term ? 128 + SIGTERM : 0;
}

int tui_debug_open(Cli *cli, const DebugTarget *tg, EmuTrace *tr, int start) {
    TuiRequest rq = {.what = TUI_OPEN_DEBUG_TRACE, .tg = tg, .trace = tr, .start = start};
    return run_standalone(cli, &rq);
}

int tui_class_open(Cli *cli, json_t *report) {
    TuiRequest rq = {.what = TUI_OPEN_CLASS, .report = report};
    return run_standalone(cli, &rq);
}

int cmd_tui(Cli *cli, int argc, char **argv) {
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "%s", _("cudojo: unexpected argument\n"));
        return 2;
    }
    if (!isatty(0) || !isatty(1)) {
        fprintf(stderr, "%s", _("cudojo: the workbench needs a terminal; try `cudojo list` or `cudojo --help`\n"));
        return 2;
    }
    Workspace *ws = NULL;
    Diag *d = workspace_open(cli, &ws);
    if (d) return cli_fail(d);
    Tui tui;
    Tui *t = &tui;
    tui_init_fields(t, cli);
    t->ws = ws;
    /* The worker's stderr would scribble over the screen: it goes to a log in the workspace. */
    char *log = path_join(ws->state_dir, "worker.log");
    RunnerConfig rc = {.backend = cli->backend, .emu_threads = cli->emu_threads, .stderr_path = log};
    /* Emulator runs count registers too (a cubin build) for the occupancy screen. */
    setenv("CUDOJO_OCCUPANCY", "1", 0);
    t->runner = runner_new(&rc);
    free(log);

    tui_start(t);
    tui_push(t, tui_map_new(t));
    if (ws->course->n_chapters == 0) tui_notify(t, true, _("No chapters found in %s"), ws->lessons_root);
    else if (ws->course_diags)
        tui_notify(t, true,
                   P_(diag_count(ws->course_diags), "%d problem loading the course, e.g. %s:%d: %s (`cudojo list` shows it)",
                      "%d problems loading the course, e.g. %s:%d: %s (`cudojo list` shows all)"),
                   diag_count(ws->course_diags), ws->course_diags->file ? ws->course_diags->file : "?",
                   ws->course_diags->line, ws->course_diags->message);
    tui_loop(t);
    runner_free(&t->runner);
    free(t->message);
    free(t->request_title);
    workspace_close(&ws);
    return got_term ? 128 + SIGTERM : 0;
}
