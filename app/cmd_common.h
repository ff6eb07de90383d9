/* app/cmd_common.h: argument parsing shared by run, watch and verify. */
#ifndef CUDOJO_APP_CMD_COMMON_H
#define CUDOJO_APP_CMD_COMMON_H

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

#endif
