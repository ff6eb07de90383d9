/* app/cmd_reset.c: `cudojo reset EXERCISE`: starter back, old file kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/cli.h"
#include "app/cmd_args.h"
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
    return diag_error("io", N_("cannot find a free backup name in %s"), dir);
}

int cmd_reset(Cli *cli, int argc, char **argv) {
    if (argc != 2) {
        fputs(_("cudojo reset: expects one EXERCISE\n"), stderr);
        return 2;
    }
    /* EXERCISE as run takes it (cmd_args.h); reset only ever writes the
     * learner's copy, so another file named is refused, not reset */
    CmdTarget t;
    Diag *d = cmd_target_open(&t, cli, "reset", argv[1], NULL);
    if (d) return cli_fail(d);
    if (t.file) {
        char *mine = workspace_exercise_path(t.ws, t.ch, t.ex), *shown = workspace_display_path(mine);
        fprintf(stderr, _("cudojo reset: %s is not your copy of %s (%s), and reset only puts the starter back in "
                          "your copy: cudojo reset %s\n"), argv[1], t.ex->id, shown, t.ex->id);
        free(shown);
        free(mine);
        cmd_target_close(&t);
        return 2;
    }
    Workspace *ws = t.ws;
    const ChapterMeta *ch = t.ch;
    const ExerciseMeta *ex = t.ex;
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
        if (backup) printf(_("%s is the starter again. Your version was saved as %s\n"), shown, backup);
        else printf(_("%s is the starter again.\n"), shown);
        free(shown);
    }
    free(mine);
    free(starter);
    free(backup);
    cmd_target_close(&t);
    return status;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_RESET = {"reset", "EXERCISE", N_("put the starter back (your file is kept as a backup)"),
    N_("Copies the starter over your file after saving your version under\n"
    ".cudojo/backups/. Your recorded attempts are kept.\n"),
    cmd_reset};
