/* app/cmd_hint.c: `cudojo hint EXERCISE`: the hints seen so far plus the next. */
#include <stdio.h>
#include <stdlib.h>

#include "app/cli.h"
#include "app/workspace.h"
#include "base/bytes.h"
#include "base/i18n.h"
#include "progress-db/store.h"

int cmd_hint(Cli *cli, int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "cudojo hint: expects one EXERCISE\n");
        return 2;
    }
    Workspace *ws = NULL;
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    Diag *d = workspace_open_exercise(cli, argv[1], &ws, &ch, &ex);
    if (d) return cli_fail(d);
    int taken = 0;
    if ((d = store_hints_taken(ws->store, ex->id, &taken))) {
        workspace_close(&ws);
        return cli_fail(d);
    }
    int shown = taken < ex->n_hints ? taken + 1 : ex->n_hints;
    /* Chinese hints when the locale asks and the author wrote all of them. */
    char **hints = cli_prefers_chinese() && ex->n_hints_zh == ex->n_hints ? ex->hints_zh : ex->hints;
    if (taken < ex->n_hints && (d = store_record_hint(ws->store, ex->id, taken))) {
        workspace_close(&ws);
        return cli_fail(d);
    }
    if (cli->json) {
        json_t *list = json_array();
        for (int i = 0; i < shown; i++) json_array_append_new(list, bytes_to_json(hints[i]));
        cli_print_json(json_pack("{s:o, s:o, s:i, s:i}", "exercise", bytes_to_json(ex->id), "hints", list, "shown", shown,
                                 "total", ex->n_hints));
    } else if (ex->n_hints == 0) {
        printf(_("%s has no hints.\n"), ex->id);
    } else {
        for (int i = 0; i < shown; i++) {
            char *text = bytes_printable(hints[i]);   /* a course pack's text: no control sequences */
            printf(_("%sHint %d/%d:%s %s\n"), cli->color ? "\033[1m" : "", i + 1, ex->n_hints,
                   cli->color ? "\033[0m" : "", text);
            free(text);
        }
        if (shown == ex->n_hints && taken >= ex->n_hints) printf("%s\n", _("(that was the last hint)"));
    }
    workspace_close(&ws);
    return 0;
}
