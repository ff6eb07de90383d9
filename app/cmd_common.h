/* app/cmd_common.h: argument parsing shared by run, watch and verify, and
 * how the authors' commands (verify, lint, new) name a pack's files. */
#ifndef CUDOJO_APP_CMD_COMMON_H
#define CUDOJO_APP_CMD_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "base/result.h"

typedef struct RunArgs {
    char **positional;
    int n_positional;
    char **keys, **values;  /* --param K=V */
    int n_params;
    const char *file;       /* --file F */
    const char *trace;      /* --trace FILE.json (run only) */
} RunArgs;

/* Parses argv[1..]; prints a usage error naming `cmd` and returns 2 on bad input. */
int run_args_parse(RunArgs *ra, int argc, char **argv, const char *cmd);
void run_args_fini(RunArgs *ra);
/* How messages name a file or folder of a course pack: its path relative to
 * the current directory when it lies inside it ("lessons/02-threads",
 * "mypack/01-intro"), else its absolute path. Caller frees. */
char *cmd_path_shown(const char *path);

/* cudojo run/watch, text: what a final result adds to its verdict, printed
 * when the verdict came (attempt_run_verdict): the part after the verdict
 * (run_result_print_after) and the warnings about it (code after-verdict). */
void cmd_print_after_verdict(const RunResult *res, FILE *out, bool color);

#endif
