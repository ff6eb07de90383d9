/* app/cmd_list.c: `cudojo list`: chapters and exercises with status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/attempt.h"
#include "app/cli.h"
#include "app/workspace.h"
#include "base/bytes.h"
#include "base/i18n.h"
#include "progress-db/store.h"

/* A stored status as --json spells it (never translated). */
static const char *const STATUS_NAMES[] = {"passed-fast", "passed", "failing", "not started"};

static const char *status_word(const ExerciseStatus *st) {
    return STATUS_NAMES[st->passed_fast ? 0 : st->passed ? 1 : st->attempts > 0 ? 2 : 3];
}

int cmd_list(Cli *cli, int argc, char **argv) {
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "%s", _("cudojo list: takes no arguments\n"));
        return 2;
    }
    Workspace *ws = NULL;
    Diag *d = workspace_open(cli, &ws);
    if (d) return cli_fail(d);
    const ChapterMeta *next_ch = NULL;
    const ExerciseMeta *next = attempt_next_exercise(ws, &next_ch);
    json_t *chapters = json_array();
    int done = 0, total = 0, id_width = 8;
    for (int c = 0; c < ws->course->n_chapters; c++)
        for (int e = 0; e < ws->course->chapters[c].n_exercises; e++) {
            int w = (int)strlen(ws->course->chapters[c].exercises[e].id);
            if (w > id_width) id_width = w;
        }
    if (!cli->json) printf(_("Workspace %s (your files are here)\n\n"), ws->dir);
    for (int c = 0; c < ws->course->n_chapters; c++) {
        const ChapterMeta *ch = &ws->course->chapters[c];
        json_t *exs = json_array();
        char *ch_title = bytes_printable(cli_chapter_title(ch));   /* a course pack's text: no control sequences */
        if (!cli->json) printf("%s%s%s\n", cli->color ? "\033[1m" : "", ch_title, cli->color ? "\033[0m" : "");
        free(ch_title);
        for (int e = 0; e < ch->n_exercises; e++) {
            const ExerciseMeta *ex = &ch->exercises[e];
            ExerciseStatus st;
            memset(&st, 0, sizeof st);
            Diag *sd = store_exercise_status(ws->store, ex->id, &st);
            if (sd) diag_append(&d, sd);
            total++;
            done += st.passed;
            const char *word = status_word(&st);
            char *path = workspace_exercise_path(ws, ch, ex);
            char *shown = workspace_display_path(path);
            json_array_append_new(exs, json_pack("{s:o, s:o, s:s, s:i, s:b, s:o}", "id", bytes_to_json(ex->id), "title",
                                                 bytes_to_json(ex->title), "status", word, "attempts", st.attempts,
                                                 "next", ex == next, "file", bytes_to_json(path)));
            if (!cli->json) {
                const char *mark = st.passed_fast ? "★" : st.passed ? "✓" : st.attempts ? "✗" : "·";
                const char *col = !cli->color ? "" : st.passed ? "\033[32m" : st.attempts ? "\033[31m" : "\033[2m";
                char *title = bytes_printable(cli_exercise_title(ex));
                printf("  %s%s%s %-*s %s", col, mark, cli->color ? "\033[0m" : "", id_width, ex->id, title);
                if (st.attempts > 0 && !st.passed) printf(P_(st.attempts, "  (%d attempt)", "  (%d attempts)"), st.attempts);
                free(title);
                if (ex == next) printf(_("   %s← next: %s%s"), cli->color ? "\033[1m" : "", shown, cli->color ? "\033[0m" : "");
                printf("\n");
            }
            free(shown);
            free(path);
            exercise_status_fini(&st);
        }
        json_array_append_new(chapters, json_pack("{s:o, s:o, s:o}", "id", bytes_to_json(ch->id), "title",
                                                  bytes_to_json(ch->title), "exercises", exs));
        if (!cli->json) printf("\n");
    }
    if (cli->json) {
        cli_print_json(json_pack("{s:o, s:o, s:i, s:i, s:o?}", "workspace", bytes_to_json(ws->dir), "chapters",
                                 chapters, "passed", done, "total", total, "next", bytes_to_json(next ? next->id : NULL)));
    } else {
        json_decref(chapters);
        printf(_("%d of %d exercises passed."), done, total);
        if (next) printf(_(" Next: cudojo run %s"), next->id);
        printf("\n★ %s  ✓ %s  ✗ %s  · %s\n", _("passed fast"), _("passed"), _("failing"), _("not started"));
    }
    if (ws->course_diags) cli_print_diags(ws->course_diags);
    if (d) cli_print_diags(d);
    diag_free(&d);
    workspace_close(&ws);
    return 0;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_LIST = {"list", "", N_("chapters and exercises with your status"),
    N_("Lists every chapter and exercise with its status (not started, failing,\n"
       "passed) and the next exercise to do.\n"),
    cmd_list};
