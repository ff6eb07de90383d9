/* app/cmd_init.c: `cudojo init [DIR]`. */
#include <stdio.h>

#include "app/cli.h"
#include "app/workspace.h"
#include "base/bytes.h"
#include "base/i18n.h"

int cmd_init(Cli *cli, int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "cudojo init: at most one directory\n");
        return 2;
    }
    const char *dir = argc == 2 ? argv[1] : ".";
    Workspace *ws = NULL;
    int copied = 0;
    Diag *d = workspace_init(cli, dir, &ws, &copied);
    if (d) return cli_fail(d);
    int total = 0;
    for (int c = 0; c < ws->course->n_chapters; c++) total += ws->course->chapters[c].n_exercises;
    if (cli->json) {
        cli_print_json(json_pack("{s:o, s:o, s:o, s:i, s:i}", "workspace", bytes_to_json(ws->dir), "lessons",
                                 bytes_to_json(ws->lessons_root), "database", bytes_to_json(ws->db_path), "exercises", total, "copied", copied));
    } else {
        printf("Workspace ready in %s\n", ws->dir);
        printf("  %d exercises in %d chapters (%d starter files copied, existing files untouched)\n", total,
               ws->course->n_chapters, copied);
        printf("  progress is kept in %s\n\n", ws->db_path);
        printf("Next: `cd %s && cudojo` for the workbench, or `cudojo watch` to work in your own editor.\n", dir);
    }
    if (ws->course_diags) cli_print_diags(ws->course_diags);
    workspace_close(&ws);
    return 0;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_INIT = {"init", "[DIR]", N_("make a workspace: editable copies of every exercise + progress db"),
    N_("Makes DIR (default: the current directory) a workspace: one folder per chapter\n"
    "with the starter of every exercise, and .cudojo/progress.db. Running it again\n"
    "adds exercises that are new in the course and never overwrites your files.\n"),
    cmd_init};
