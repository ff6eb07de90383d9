/* app/tui/tui_services.c: what the screens may ask of the workbench while
 * they handle a key: a notice in the status bar, an fd to wake for, the
 * terminal for an editor, another screen (queued here; tui_main.c builds it
 * once the handler has returned, as htop's ScreenManager acts on a panel's
 * HandlerResult), the titles and hints in the language shown. It calls no
 * screen, so no screen calls back into the manager. */
#include "app/tui/tui.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "base/xalloc.h"

double tui_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}


void tui_open(Tui *t, const TuiRequest *rq) {
    /* One request per handler: a second replaces the first. */
    if (t->has_request && t->request.doc && t->request.doc != rq->doc) text_doc_free(&t->request.doc);
    free(t->request_title);
    t->request = *rq;
    t->request_title = rq->title ? xstrdup(rq->title) : NULL;
    t->request.title = t->request_title;
    t->has_request = true;
}

void tui_notify(Tui *t, bool error, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    free(t->message);
    t->message = xvasprintf(fmt, ap);
    va_end(ap);
    t->message_error = error;
    t->message_until = tui_now() + (error ? 6.0 : 3.0);
}

void tui_watch_fd(Tui *t, int fd, TuiFdHandler h, void *ctx) {
    for (int i = 0; i < 4; i++)
        if (t->watch_fds[i] < 0 || t->watch_fds[i] == fd) {
            t->watch_fds[i] = fd;
            t->watch_handlers[i] = h;
            t->watch_ctx[i] = ctx;
            return;
        }
}

void tui_unwatch_fd(Tui *t, int fd) {
    for (int i = 0; i < 4; i++)
        if (t->watch_fds[i] == fd) t->watch_fds[i] = -1;
}

int tui_run_foreground(Tui *t, const char *shell_cmd) {
    def_prog_mode();
    endwin();
    /* The child gets a normal terminal: default Ctrl-C, and we ignore ours meanwhile. */
    struct sigaction ign, old;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old);
    int rc = system(shell_cmd);
    sigaction(SIGINT, &old, NULL);
    reset_prog_mode();
    /* The terminal may have been resized while the editor had it; curses missed the signal. */
    struct winsize wsz;
    if (ioctl(1, TIOCGWINSZ, &wsz) == 0 && wsz.ws_row > 0 && wsz.ws_col > 0 &&
        (wsz.ws_row != LINES || wsz.ws_col != COLS))
        resize_term(wsz.ws_row, wsz.ws_col);
    getmaxyx(stdscr, t->rows, t->cols);
    clearok(curscr, TRUE);
    refresh();
    return rc;
}

const char *tui_chapter_title(const Tui *t, const ChapterMeta *ch) {
    return t->zh && ch->title_zh && *ch->title_zh ? ch->title_zh : ch->title;
}

const char *tui_exercise_title(const Tui *t, const ExerciseMeta *ex) {
    return t->zh && ex->title_zh && *ex->title_zh ? ex->title_zh : ex->title;
}

const char *tui_hint(const Tui *t, const ExerciseMeta *ex, int i) {
    if (t->zh && i < ex->n_hints_zh && ex->hints_zh[i] && *ex->hints_zh[i]) return ex->hints_zh[i];
    return ex->hints[i];
}
