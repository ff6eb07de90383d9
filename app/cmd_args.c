/* app/cmd_args.c: which file an EXERCISE argument names, and --block/--warp,
 * for run, debug and watch (app/cmd_args.h). */
#include "app/cmd_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/i18n.h"
#include "base/number.h"
#include "base/xalloc.h"

bool cmd_arg_is_path(const char *arg) {
    size_t n = strlen(arg);
    return strchr(arg, '/') || (n > 3 && !strcmp(arg + n - 3, ".cu")) || (n > 4 && !strcmp(arg + n - 4, ".lua"));
}

static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The file `arg` names: relative to the current directory, else to the
 * workspace's folder (hello-gpu/vector-add.cu from anywhere). NULL with *err
 * set when neither exists. Caller frees. */
static char *target_locate(const Workspace *ws, const char *arg, Diag **err) {
    *err = NULL;
    struct stat st;
    if (stat(arg, &st) == 0) return xstrdup(arg);
    int why = errno;
    if (arg[0] != '/') {
        char *in_ws = path_join(ws->dir, arg);
        if (stat(in_ws, &st) == 0) return in_ws;
        free(in_ws);
    }
    if (why != ENOENT) {
        *err = diag_error("usage", "%s: %s", arg, strerror(why));
        return NULL;
    }
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    Diag *d = workspace_find(ws, arg, &ch, &ex);
    if (d) {
        diag_free(&d);
        *err = diag_error("usage", N_("%s: no such file (EXERCISE is an exercise id such as vector-add, or a file)"),
                          arg);
        return NULL;
    }
    char *mine = workspace_exercise_path(ws, ch, ex);
    char *shown = workspace_display_path(mine);
    *err = diag_error("usage", N_("%s: no such file (your copy of exercise %s is %s)"), arg, ex->id, shown);
    free(shown);
    free(mine);
    return NULL;
}

/* Resolves a path argument in an open workspace: the exercise its name is
 * for, and whether it is the learner's copy. */
static Diag *target_resolve_path(CmdTarget *t, const char *cmd, const char *arg, const char *file_opt) {
    Diag *d = NULL;
    char *path = target_locate(t->ws, arg, &d);
    if (!path) return d;
    d = workspace_find(t->ws, arg, &t->ch, &t->ex);
    if (d) {
        diag_free(&d);
        d = diag_error("usage", N_("%s is no exercise's file (its name is no exercise's id); name both: "
                                   "cudojo %s EXERCISE --file %s"), arg, cmd, arg);
        free(path);
        return d;
    }
    char *mine = workspace_exercise_path(t->ws, t->ch, t->ex);
    char *mine_shown = workspace_display_path(mine);
    bool debug = !strcmp(cmd, "debug");
    if (same_file(path, mine)) {
        /* the learner's copy: the exercise as usual */
    } else if (file_opt) {
        d = diag_error("usage", N_("%s is not your copy of %s and --file names another file; give one of them"),
                       arg, t->ex->id);
    } else if (same_file(path, t->ex->lua_path)) {
        t->note = xasprintf(_("cudojo %s: %s defines exercise %s; using your copy %s\n"), cmd, arg, t->ex->id,
                            mine_shown);
    } else {
        t->file = xstrdup(path);
        t->note = debug ? xasprintf(_("cudojo %s: %s is not your copy of %s (%s): stepping through it instead\n"),
                                    cmd, arg, t->ex->id, mine_shown)
                        : xasprintf(_("cudojo %s: %s is not your copy of %s (%s): running it instead, not "
                                      "recorded (as --file does)\n"), cmd, arg, t->ex->id, mine_shown);
    }
    free(mine_shown);
    free(mine);
    free(path);
    return d;
}

Diag *cmd_target_open(CmdTarget *t, const Cli *cli, const char *cmd, const char *arg, const char *file_opt) {
    memset(t, 0, sizeof *t);
    Diag *d = workspace_open(cli, &t->ws);
    if (d) return d;
    if (cmd_arg_is_path(arg)) d = target_resolve_path(t, cmd, arg, file_opt);
    else d = workspace_find(t->ws, arg, &t->ch, &t->ex);
    if (!d && file_opt && !t->file) t->file = xstrdup(file_opt);
    if (d) cmd_target_close(t);
    return d;
}

void cmd_target_close(CmdTarget *t) {
    free(t->file);
    free(t->note);
    workspace_close(&t->ws);
    memset(t, 0, sizeof *t);
}

/* ---- --block and --warp ---------------------------------------------------------------- */
bool cmd_parse_uint(const char *s, unsigned *out) {
    long long v;
    if (!number_whole(s, 0, 2147483647, &v)) return false;
    *out = (unsigned)v;
    return true;
}

/* "3", "3,1" or "3,1,0" into b (missing coordinates 0). */
static bool parse_block(const char *s, unsigned b[3]) {
    b[0] = b[1] = b[2] = 0;
    for (int i = 0; i < 3; i++) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        char num[16];
        if (n == 0 || n >= sizeof num) return false;
        memcpy(num, s, n);
        num[n] = '\0';
        if (!cmd_parse_uint(num, &b[i])) return false;
        if (!comma) return true;
        s = comma + 1;
    }
    return false;
}

int cmd_take_warp_option(WarpPick *wp, const char *cmd, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    bool block = !strncmp(a, "--block", 7), warp = !strncmp(a, "--warp", 6);
    size_t len = block ? 7 : 6;
    if ((!block && !warp) || (a[len] && a[len] != '=')) return 0;
    const char *v = a[len] == '=' ? a + len + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    const char *opt = block ? "--block" : "--warp";
    if (!v || !*v) {
        fprintf(stderr, _("cudojo %s: %s needs a value (see cudojo %s --help)\n"), cmd, opt, cmd);
        return 2;
    }
    unsigned w;
    if (block) {
        if (!parse_block(v, wp->block)) {
            fprintf(stderr, _("cudojo %s: --block %s: expects X or X,Y or X,Y,Z\n"), cmd, v);
            return 2;
        }
        wp->has_block = true;
    } else {
        if (!cmd_parse_uint(v, &w) || w > 31) {
            fprintf(stderr, _("cudojo %s: --warp %s: expects a warp 0-31\n"), cmd, v);
            return 2;
        }
        wp->warp = (int)w;
        wp->has_warp = true;
    }
    return 1;
}
