/* app/cmd_hint.c: `cudojo hint EXERCISE`: the hints seen so far plus the next,
 * chosen as the workbench chooses it (app/hint.h: the hint the exercise's
 * hint_for gives for the way the last attempt failed, else the first unseen). */
#include <stdio.h>
#include <stdlib.h>

#include "app/cli.h"
#include "app/cmd_args.h"
#include "app/hint.h"
#include "app/workspace.h"
#include "base/bytes.h"
#include "base/i18n.h"
#include "progress-db/store.h"

int cmd_hint(Cli *cli, int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "%s", _("cudojo hint: expects one EXERCISE\n"));
        return 2;
    }
    /* EXERCISE as run takes it (cmd_args.h): a file names its exercise */
    CmdTarget t;
    Diag *d = cmd_target_open(&t, cli, "hint", argv[1], NULL);
    if (d) return cli_fail(d);
    Workspace *ws = t.ws;
    const ExerciseMeta *ex = t.ex;
    bool *seen = calloc((size_t)ex->n_hints + 1, sizeof *seen);
    if (!seen || (d = store_hints_seen(ws->store, ex->id, seen, ex->n_hints))) {
        free(seen);
        cmd_target_close(&t);
        return d ? cli_fail(d) : 1;
    }
    RunResult *last = hint_last_result(ws, ex);
    int next = hint_pick(ex, seen, last);
    run_result_free(&last);
    bool all_seen_before = next < 0;
    /* Chinese hints when the locale asks and the author wrote all of them. */
    char **hints = cli_prefers_chinese() && ex->n_hints_zh == ex->n_hints ? ex->hints_zh : ex->hints;
    if (next >= 0 && (d = store_record_hint(ws->store, ex->id, next))) {
        free(seen);
        cmd_target_close(&t);
        return cli_fail(d);
    }
    if (next >= 0) seen[next] = true;
    int shown = 0;
    for (int i = 0; i < ex->n_hints; i++) shown += seen[i];
    if (cli->json) {
        json_t *list = json_array(), *numbers = json_array();
        for (int i = 0; i < ex->n_hints; i++)
            if (seen[i]) {
                json_array_append_new(list, bytes_to_json(hints[i]));
                json_array_append_new(numbers, json_integer(i + 1));
            }
        cli_print_json(json_pack("{s:o, s:o, s:o, s:i, s:i, s:i}", "exercise", bytes_to_json(ex->id), "hints", list,
                                 "numbers", numbers, "new", next + 1, "shown", shown, "total", ex->n_hints));
    } else if (ex->n_hints == 0) {
        printf(_("%s has no hints.\n"), ex->id);
    } else {
        for (int i = 0; i < ex->n_hints; i++) {
            if (!seen[i]) continue;
            char *text = bytes_printable(hints[i]);   /* a course pack's text: no control sequences */
            printf(_("%sHint %d/%d:%s %s\n"), cli->color ? "\033[1m" : "", i + 1, ex->n_hints,
                   cli->color ? "\033[0m" : "", text);
            free(text);
        }
        if (all_seen_before) printf("%s\n", _("(that was the last hint)"));
    }
    free(seen);
    cmd_target_close(&t);
    return 0;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_HINT = {"hint", "EXERCISE", N_("show the next hint (recorded)"),
    N_("Shows the hints you have already seen plus the next one.\n"), cmd_hint};
