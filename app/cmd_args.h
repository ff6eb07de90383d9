/* app/cmd_args.h: what the commands that take an EXERCISE (run, debug,
 * watch) share: which file an EXERCISE argument names, and the warp a
 * command looks at (--block X[,Y[,Z]] --warp W, as run --explain and debug
 * take them).
 *
 * EXERCISE is an exercise id (vector-add) or a file. A file that is the
 * learner's workspace copy is the exercise as usual (recorded); any other
 * file is run instead of that copy, as --file runs it (not recorded), and
 * the command says so; a file that does not exist is an error naming it. */
#ifndef CUDOJO_APP_CMD_ARGS_H
#define CUDOJO_APP_CMD_ARGS_H

#include <stdbool.h>

#include "app/workspace.h"

/* An EXERCISE argument resolved: the open workspace, the exercise, and the
 * file to use instead of the learner's copy. */
typedef struct CmdTarget {
    Workspace *ws;
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    char *file;     /* NULL: the learner's workspace copy; else --file's or EXERCISE's file (not recorded) */
    char *note;     /* NULL, or what to tell the user on stderr (in the language shown): the file that
                       runs is not the one the argument looked like (a path to another file) */
} CmdTarget;

/* Opens the workspace and resolves `arg` (and --file's `file_opt`, may be
 * NULL) for command `cmd`. On failure nothing stays open. */
Diag *cmd_target_open(CmdTarget *t, const Cli *cli, const char *cmd, const char *arg, const char *file_opt);
void cmd_target_close(CmdTarget *t);
/* Whether an EXERCISE argument is written as a file: it has a '/' or ends
 * in .cu or .lua. */
bool cmd_arg_is_path(const char *arg);

/* The warp a command looks at: --block X[,Y[,Z]] (missing coordinates 0)
 * and --warp W (0-31: a block has at most 1024 threads). */
typedef struct WarpPick {
    unsigned block[3];
    int warp;
    bool has_block, has_warp;
} WarpPick;

/* If argv[*i] is --block or --warp (or --block=V, --warp=V), takes it and
 * its value into wp (advancing *i past a separate value) and returns 1;
 * 0 when argv[*i] is another argument; 2 after printing a usage error that
 * names `cmd` when the value is missing or bad. */
int cmd_take_warp_option(WarpPick *wp, const char *cmd, int argc, char **argv, int *i);
/* A non-negative decimal number below 2^31, nothing else. */
bool cmd_parse_uint(const char *s, unsigned *out);

#endif
