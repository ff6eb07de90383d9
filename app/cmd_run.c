/* app/cmd_run.c: `cudojo run EXERCISE`: compile, run, check, record, verdict;
 * with --trace, the run's timeline as Chrome trace JSON. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/attempt.h"
#include "app/cli.h"
#include "app/cmd_common.h"
#include "app/trace.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"

static volatile sig_atomic_t run_cancelled;

static void on_sigint(int sig) {
    (void)sig;
    run_cancelled = 1;
}

int cmd_run(Cli *cli, int argc, char **argv) {
    RunArgs ra;
    if (run_args_parse(&ra, argc, argv, "run") != 0) return 2;
    if (ra.n_positional != 1) {
        fprintf(stderr, "cudojo run: expects one EXERCISE (see `cudojo list`)\n");
        run_args_fini(&ra);
        return 2;
    }
    struct stat tst;
    if (ra.trace && lstat(ra.trace, &tst) == 0 && !S_ISREG(tst.st_mode)) {
        fprintf(stderr, "cudojo run: --trace %s: it is %s; the trace replaces only a regular file\n", ra.trace,
                fs_kind_name(tst.st_mode));
        run_args_fini(&ra);
        return 2;
    }
    Workspace *ws = NULL;
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    Diag *d = workspace_open_exercise(cli, ra.positional[0], &ws, &ch, &ex);
    if (d) {
        run_args_fini(&ra);
        return cli_fail(d);
    }
    struct sigaction sa = {.sa_handler = on_sigint};
    sigaction(SIGINT, &sa, NULL);
    if (!cli->json && isatty(2)) fprintf(stderr, _("running %s…\n"), ex->id);
    Runner *runner = attempt_runner_new(cli);
    AttemptParams params = {(const char *const *)ra.keys, (const char *const *)ra.values, ra.n_params};
    RunResult *res = attempt_run(ws, runner, ch, ex, ra.file, &params, ra.file == NULL, &run_cancelled);
    int status = res->verdict == VERDICT_PASS ? 0 : 1;
    if (cli->json) {
        cli_print_json(run_result_to_json(res));
    } else {
        char *title = bytes_printable(cli_exercise_title(ex));   /* a course pack's text: no control sequences */
        printf("%s — %s\n", ex->id, title);
        free(title);
        run_result_print(res, stdout, cli->color);
        if (res->verdict == VERDICT_PASS) {
            const ChapterMeta *nch;
            const ExerciseMeta *next = attempt_next_exercise(ws, &nch);
            if (next && ra.file == NULL) printf(_("\nNext: cudojo run %s\n"), next->id);
        } else if (res->verdict == VERDICT_FAIL && ex->n_hints > 0) {
            printf(_("\nStuck? `cudojo hint %s`\n"), ex->id);
        }
    }
    /* The trace is written last: the attempt is recorded and the verdict
     * shown whatever happens to the file. */
    if (ra.trace) {
        Diag *td = trace_write(res, ra.trace);
        if (td && td->severity == DIAG_ERROR) {
            fprintf(stderr, "cudojo run: --trace: %s\n", td->message);
            status = 2;
        } else if (td) {
            fprintf(stderr, "cudojo run: --trace: %s\n", td->message);
        } else if (!cli->json) {
            const json_t *tl = trace_timeline_of(res);
            printf(_("\nTimeline%s written to %s (open it at https://ui.perfetto.dev or chrome://tracing)\n"),
                   json_is_true(json_object_get(tl, "modeled")) ? _(" (modeled)") : "", ra.trace);
        }
        diag_free(&td);
    }
    run_result_free(&res);
    runner_free(&runner);
    workspace_close(&ws);
    run_args_fini(&ra);
    return status;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_RUN = {"run", "EXERCISE", "compile, run and check one exercise; record the attempt",
    "Compiles your copy of EXERCISE, runs it on the GPU or the emulator, checks\n"
    "the results against the CPU reference and records the attempt.\n"
    "EXERCISE is an exercise id (vector-add) or your file (hello-gpu/vector-add.cu).\n"
    "Options:\n"
    "  --param K=V         override an exercise parameter (e.g. --param n=1000)\n"
    "  --file F            run F instead of your workspace copy (not recorded)\n"
    "  --trace FILE.json   write the run's timeline (copies, kernels, host work per\n"
    "                      stream) as Chrome trace JSON for Perfetto or\n"
    "                      chrome://tracing; a modeled timeline says so. On a GPU\n"
    "                      the times are CUPTI's (CUDOJO_TIMELINE=events: CUDA\n"
    "                      events around each call instead)\n"
    "Exit status: 0 pass, 1 fail, 2 usage or setup error (or the trace could not\n"
    "be written: the attempt is still recorded).\n",
    cmd_run};
