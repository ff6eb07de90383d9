/* app/exec_summary.h: how `cudojo exec` reports a program's run: the
 * exit status it passes on, the one-paragraph summary on stderr, and the
 * --json document. */
#ifndef CUDOJO_APP_EXEC_SUMMARY_H
#define CUDOJO_APP_EXEC_SUMMARY_H

#include <jansson.h>

#include "kernels/program.h"
#include "kernels/program_profile.h"

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

/* ---- under a tool (--profile, --sanitizer): app/exec_tool.c ---- */

typedef struct ExecToolReport {
    const char *name;               /* "ncu", "nsys", "memcheck", ...; NULL when none ran */
    NcuReport ncu;
    NsysSummary nsys;
    char *nsys_text;                /* what nsys stats printed */
    SanitizerReport sanitizer;
    char *why;                      /* why there is no report, or NULL */
} ExecToolReport;

/* Runs `exe` with `o` under ncu or nsys (`profile`) or compute-sanitizer
 * (`sanitizer`, when profile is NULL), found as program_find_tool finds
 * it; fills *r as program_run does and *out (freed with
 * exec_tool_report_fini, also after an error). Returns a Diag when it
 * could not try (no such tool here). */
Diag *exec_tool_run(const char *profile, const char *sanitizer, const char *exe, const ProgramRunOptions *o,
                    ProgramResult *r, ExecToolReport *out);
/* The tool's report on stderr after the program's output: ncu's launches
 * with their metrics, nsys's kernels and copies, the sanitizer's errors
 * (files under `cwd` shown relative to it); then how the program ended. */
void exec_tool_print(const char *prog, const ExecToolReport *t, const ProgramResult *r, const char *cwd);
/* The report for --json (new reference). */
json_t *exec_tool_json(const ExecToolReport *t, const ProgramResult *r);
void exec_tool_report_fini(ExecToolReport *t);

#endif
