/* app/cmd_progress.c: `cudojo progress`: attempts, passes, best times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/cli.h"
#include "app/workspace.h"
#include "base/bytes.h"
#include "progress-db/store.h"

static void format_when(long long unix_ms, char *buf, size_t n) {
    if (unix_ms <= 0) {
        snprintf(buf, n, "-");
        return;
    }
    time_t t = (time_t)(unix_ms / 1000);
    strftime(buf, n, "%Y-%m-%d %H:%M", localtime(&t));
}

int cmd_progress(Cli *cli, int argc, char **argv) {
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "cudojo progress: takes no arguments\n");
        return 2;
    }
    Workspace *ws = NULL;
    Diag *d = workspace_open(cli, &ws);
    if (d) return cli_fail(d);
    if (cli->json) {
        json_t *j = NULL;
        d = store_export_json(ws->store, &j);
        if (d) {
            workspace_close(&ws);
            return cli_fail(d);
        }
        json_object_set_new(j, "workspace_dir", bytes_to_json(ws->dir));
        cli_print_json(j);
        workspace_close(&ws);
        return 0;
    }
    int passed = 0, total = 0, attempts = 0;
    double spent = 0;
    for (int c = 0; c < ws->course->n_chapters; c++) {
        const ChapterMeta *ch = &ws->course->chapters[c];
        int ch_pass = 0;
        for (int e = 0; e < ch->n_exercises; e++) {
            ExerciseStatus st;
            memset(&st, 0, sizeof st);
            Diag *sd = store_exercise_status(ws->store, ch->exercises[e].id, &st);
            if (sd) diag_append(&d, sd);
            ch_pass += st.passed;
            exercise_status_fini(&st);
        }
        char *title = bytes_printable(ch->title);   /* a course pack's text: no control sequences */
        printf("%s%s%s  (%d/%d)\n", cli->color ? "\033[1m" : "", title, cli->color ? "\033[0m" : "", ch_pass,
               ch->n_exercises);
        free(title);
        printf("  %-22s %-12s %8s  %-16s %10s %6s\n", "exercise", "status", "attempts", "first pass", "best",
               "hints");
        for (int e = 0; e < ch->n_exercises; e++) {
            const ExerciseMeta *ex = &ch->exercises[e];
            ExerciseStatus st;
            memset(&st, 0, sizeof st);
            Diag *sd = store_exercise_status(ws->store, ex->id, &st);
            diag_free(&sd);
            char when[32], best[32];
            format_when(st.first_pass_unix_ms, when, sizeof when);
            if (st.best_kernel_ms >= 0) snprintf(best, sizeof best, "%.3f ms", st.best_kernel_ms);
            else snprintf(best, sizeof best, "-");
            const char *word = st.passed_fast ? "passed-fast" : st.passed ? "passed" : st.attempts ? "failing" : "not started";
            printf("  %-22s %-12s %8d  %-16s %10s %3d/%d\n", ex->id, word, st.attempts, when, best, st.hints_taken,
                   ex->n_hints);
            total++;
            passed += st.passed;
            attempts += st.attempts;
            spent += st.time_spent_ms;
            exercise_status_fini(&st);
        }
        printf("\n");
    }
    printf("%d of %d exercises passed, %d attempts, %.1f s spent running.\n", passed, total, attempts, spent / 1000.0);
    if (d) cli_print_diags(d);
    diag_free(&d);
    workspace_close(&ws);
    return 0;
}
