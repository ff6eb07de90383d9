/* app/cmd_reset.c: `cudojo reset EXERCISE`: starter back, old file kept. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "app/cli.h"
#include "app/workspace.h"
#include "base/fs.h"
#include "base/xalloc.h"

int cmd_reset(Cli *cli, int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "cudojo reset: expects one EXERCISE\n");
        return 2;
    }
    Workspace *ws = NULL;
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    Diag *d = workspace_open_exercise(cli, argv[1], &ws, &ch, &ex);
    if (d) return cli_fail(d);
    char *mine = workspace_exercise_path(ws, ch, ex);
    char *starter = path_join(ch->dir, ex->source);
    char *backup = NULL;
    if (fs_exists(mine)) {
        char *dir = path_join(ws->state_dir, "backups");
        char stamp[32];
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
        char *name = xasprintf("%s.%s.cu", ex->id, stamp);
        backup = path_join(dir, name);
        d = fs_mkdir_p(dir);
        if (!d) d = fs_copy_file(mine, backup);
        free(name);
        free(dir);
    }
    if (!d) d = fs_copy_file(starter, mine);
    int status = 0;
    if (d) {
        status = cli_fail(d);
    } else if (cli->json) {
        cli_print_json(json_pack("{s:s, s:s, s:s?}", "exercise", ex->id, "file", mine, "backup", backup));
    } else {
        char *shown = workspace_display_path(mine);
        printf("%s is the starter again.", shown);
        if (backup) printf(" Your version was saved as %s", backup);
        printf("\n");
        free(shown);
    }
    free(mine);
    free(starter);
    free(backup);
    workspace_close(&ws);
    return status;
}
