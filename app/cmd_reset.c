/* app/cmd_reset.c: `cudojo reset EXERCISE`: starter back, old file kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/cli.h"
#include "app/workspace.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"

/* Copies the learner's file to backups/ID.YYYYmmdd-HHMMSS.NNNNNNNNN.cu under a
 * name nobody has: two resets in the same instant (or two processes) each
 * keep their own backup, since a taken name gets a -2, -3... suffix and the
 * copy never replaces a file. *backup is the name used (caller frees). */
static Diag *backup_save(const char *mine, const char *dir, const char *id, char **backup) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    *backup = NULL;
    for (int n = 1; n < 1000; n++) {
        char *name = n == 1 ? xasprintf("%s.%s.%09ld.cu", id, stamp, ts.tv_nsec)
                            : xasprintf("%s.%s.%09ld-%d.cu", id, stamp, ts.tv_nsec, n);
        char *path = path_join(dir, name);
        free(name);
        Diag *d = fs_copy_file_new(mine, path);
        if (!d) {
            *backup = path;
            return NULL;
        }
        free(path);
        if (strcmp(d->code, "exists") != 0) return d;
        diag_free(&d);
    }
    return diag_error("io", "cannot find a free backup name in %s", dir);
}

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
        d = fs_mkdir_p(dir);
        if (!d) d = backup_save(mine, dir, ex->id, &backup);
        free(dir);
    }
    if (!d) d = fs_copy_file(starter, mine);
    int status = 0;
    if (d) {
        status = cli_fail(d);
    } else if (cli->json) {
        cli_print_json(json_pack("{s:o, s:o, s:o?}", "exercise", bytes_to_json(ex->id), "file", bytes_to_json(mine),
                                 "backup", bytes_to_json(backup)));
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

/* The command's entry in the table app/cli.c lists. */
const Command CMD_RESET = {"reset", "EXERCISE", N_("put the starter back (your file is kept as a backup)"),
    N_("Copies the starter over your file after saving your version under\n"
    ".cudojo/backups/. Your recorded attempts are kept.\n"),
    cmd_reset};
