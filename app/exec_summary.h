/* app/exec_summary.h: how `cudojo exec` reports a program's run: the
 * exit status it passes on, the one-paragraph summary on stderr, and the
 * --json document. */
#ifndef CUDOJO_APP_EXEC_SUMMARY_H
#define CUDOJO_APP_EXEC_SUMMARY_H

#include <jansson.h>

#include "kernels/program.h"

/* Statuses of cudojo's own, as GNU timeout and env use them. */
#define EXIT_TIMEOUT 124
#define EXIT_SETUP 125          /* cudojo could not run it here */
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

/* The exit status (the program's own; 128+signal; 124 timeout; 130
 * cancelled; 126 not started). */
int exec_exit_status(const ProgramResult *r);
/* "cudojo exec: ./a ran on ...: 5 CUDA calls (...); 1 kernel launch: ...
 * It exited with status 0." on stderr. */
void exec_print_summary(const char *prog, const ProgramResult *r, ProgramRuntime rt);
/* The --json document (new reference); args are the program's argv[1..]. */
json_t *exec_result_json(const char *exe, char *const *args, int n_args, const ProgramResult *r, ProgramRuntime rt);

#endif
