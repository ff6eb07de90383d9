/* app/cmd_watch.c: `cudojo watch [EXERCISE]`: the rustlings loop in a plain
 * terminal: run, wait for a save (inotify), run again; move on after a pass.
 * With --json it writes JSON Lines, one compact object per line with an
 * "event": "result" (a run: exercise, file, result), "verdict" (the same, before a
 * "result" that adds what ran after the verdict: a profiler), "watching" (waiting for
 * a save of file), "next" (moving on to exercise) or "done" (nothing left),
 * and never any plain text on stdout. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "app/attempt.h"
#include "app/cli.h"
#include "app/cmd_args.h"
#include "app/cmd_common.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"

static volatile sig_atomic_t watch_interrupts;

static void on_sigint(int sig) {
    (void)sig;
    watch_interrupts++;
}

/* Waits until `path` is written (editors write in place or rename over it).
 * Returns false when the user pressed Ctrl-C. */
static bool wait_for_save(const char *path) {
    int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (fd < 0) return false;
    char *dir = path_dirname(path);
    const char *name = path_basename(path);
    int wd = inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE);
    free(dir);
    bool saved = false;
    long long before = fs_mtime_ns(path);
    while (wd >= 0 && !saved && !watch_interrupts) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int n = poll(&p, 1, 500);
        if (n < 0 && errno != EINTR) break;
        /* Some editors and network filesystems are missed by inotify: the mtime catches them. */
        if (n <= 0) {
            if (fs_mtime_ns(path) != before && fs_exists(path)) saved = true;
            continue;
        }
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        ssize_t len = read(fd, buf, sizeof buf);
        for (char *p2 = buf; len > 0 && p2 < buf + len;) {
            struct inotify_event *ev = (struct inotify_event *)p2;
            if (ev->len && !strcmp(ev->name, name)) saved = true;
            p2 += sizeof *ev + ev->len;
        }
    }
    close(fd);
    if (saved) usleep(50 * 1000);   /* let the editor finish its rename dance */
    return saved;
}

/* One JSON Lines event: {"event": what, "exercise": id, "file": path, "result": result}
 * (exercise, file and result only when given; takes result). */
static void watch_event(const char *what, const char *id, const char *file, json_t *result) {
    json_t *j = json_pack("{s:s}", "event", what);
    if (id) json_object_set_new(j, "exercise", bytes_to_json(id));
    if (file) json_object_set_new(j, "file", bytes_to_json(file));
    if (result) json_object_set_new(j, "result", result);
    char *text = json_dumps(j, JSON_COMPACT);
    if (text) printf("%s\n", text);
    fflush(stdout);
    free(text);
    json_decref(j);
}

/* The verdict, shown when it comes before the run's end (a profile or
 * compute-sanitizer after the verdict): a "verdict" event, or the verdict
 * printed; the final result then adds what came after it. */
typedef struct EarlyVerdict {
    const Cli *cli;
    const char *id, *path;
    bool printed;
} EarlyVerdict;

static void on_early_verdict(void *ud, const RunResult *v) {
    EarlyVerdict *e = ud;
    if (e->cli->json) {
        watch_event("verdict", e->id, e->path, run_result_to_json(v));
    } else {
        run_result_print(v, stdout, e->cli->color);
        if (isatty(1)) printf("%s\n", _(run_result_after_doing(v)));
        fflush(stdout);
    }
    e->printed = true;
}

int cmd_watch(Cli *cli, int argc, char **argv) {
    RunArgs ra;
    if (run_args_parse(&ra, argc, argv, "watch") != 0) return 2;
    if (ra.n_positional > 1 || (ra.file && ra.n_positional == 0)) {
        fputs(ra.file ? _("cudojo watch: --file goes with an EXERCISE\n")
                      : _("cudojo watch: expects at most one EXERCISE\n"), stderr);
        run_args_fini(&ra);
        return 2;
    }
    /* EXERCISE: as run takes it (cmd_args.h); a file other than the
     * learner's copy is watched and run instead, unrecorded */
    CmdTarget t = {0};
    bool fixed = ra.n_positional == 1;
    Diag *d = fixed ? cmd_target_open(&t, cli, "watch", ra.positional[0], ra.file) : workspace_open(cli, &t.ws);
    if (d) {
        run_args_fini(&ra);
        return cli_fail(d);
    }
    Workspace *ws = t.ws;
    const ChapterMeta *ch = t.ch;
    const ExerciseMeta *ex = t.ex;
    if (!fixed) ex = attempt_next_exercise(ws, &ch);
    if (t.note) fputs(t.note, stderr);
    if (!ex) {
        if (cli->json) watch_event("done", NULL, NULL, NULL);
        else printf("%s\n", _("Every exercise passed. Well done! (`cudojo watch EXERCISE` to redo one)"));
        cmd_target_close(&t);
        run_args_fini(&ra);
        return 0;
    }
    struct sigaction sa = {.sa_handler = on_sigint};
    sigaction(SIGINT, &sa, NULL);
    Runner *runner = attempt_runner_new(cli);
    AttemptParams params = {(const char *const *)ra.keys, (const char *const *)ra.values, ra.n_params};
    int status = 0;
    while (ex) {
        char *path = t.file ? path_absolute(t.file) : workspace_exercise_path(ws, ch, ex);
        char *shown = workspace_display_path(path);
        if (!cli->json) {
            if (isatty(1)) printf("\033[H\033[2J");
            char *title = bytes_printable(cli_exercise_title(ex));   /* a course pack's text: no control sequences */
            printf("%s — %s   (%s)\n", ex->id, title, shown);
            free(title);
            fflush(stdout);
        }
        watch_interrupts = 0;
        EarlyVerdict early = {cli, ex->id, path, false};
        RunResult *res = attempt_run_verdict(ws, runner, ch, ex, t.file, &params, t.file == NULL, &watch_interrupts,
                                             on_early_verdict, &early);
        if (cli->json) watch_event("result", ex->id, path, run_result_to_json(res));
        else if (early.printed) cmd_print_after_verdict(res, stdout, cli->color);
        else run_result_print(res, stdout, cli->color);
        fflush(stdout);
        bool passed = res->verdict == VERDICT_PASS;
        run_result_free(&res);
        if (passed && !fixed) {
            const ChapterMeta *nch;
            const ExerciseMeta *next = attempt_next_exercise(ws, &nch);
            if (!next) {
                if (cli->json) watch_event("done", NULL, NULL, NULL);
                else printf("\n%s\n", _("That was the last exercise. Well done!"));
                free(path);
                free(shown);
                break;
            }
            if (cli->json) {
                watch_event("next", next->id, NULL, NULL);
            } else {
                printf(_("\nPassed! Next up: %s\n"), next->id);
                sleep(2);
            }
            free(path);
            free(shown);
            ex = next;
            ch = nch;
            continue;
        }
        if (cli->json) watch_event("watching", ex->id, path, NULL);
        else printf(_("\nWatching %s — save to re-run, Ctrl-C to quit.\n"), shown);
        fflush(stdout);
        watch_interrupts = 0;
        bool again = wait_for_save(path);
        free(path);
        free(shown);
        if (!again) break;
    }
    runner_free(&runner);
    cmd_target_close(&t);
    run_args_fini(&ra);
    return status;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_WATCH = {"watch", "[EXERCISE]", N_("re-run an exercise on every save of your file"),
    N_("Runs EXERCISE (default: the first one you have not passed) and again every\n"
    "time you save its file; after a pass it moves on to the next exercise.\n"
    "Ctrl-C stops a run in progress; a second Ctrl-C quits.\n"
    "EXERCISE may be a file (see cudojo run --help): a file other than your copy,\n"
    "or --file F, is run and watched instead, and not recorded.\n"
    "With --json: JSON Lines, one object per line: {\"event\": \"result\", \"exercise\",\n"
    "\"file\", \"result\"} after each run, \"watching\" while it waits for a save,\n"
    "\"next\" when it moves on, \"done\" when nothing is left.\n"),
    cmd_watch};
