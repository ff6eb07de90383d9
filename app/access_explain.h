/* app/access_explain.h: the access map's session, for `cudojo run
 * EXERCISE --explain LINE|worst` (app/cmd_run.c) and the workbench's
 * results pane (app/tui/tui_access.c): run the exercise on a fresh
 * emulator with one warp recorded (kernels/emu/emu_trace.h), find the
 * memory instructions of the line asked for (or of the worst line by
 * sectors per request or bank conflicts), and hand them to the renderer
 * (app/access_map.h). */
#ifndef CUDOJO_APP_ACCESS_EXPLAIN_H
#define CUDOJO_APP_ACCESS_EXPLAIN_H

#include <stdbool.h>

#include "app/access_map.h"
#include "app/debug.h"

typedef struct AccessExplainRequest {
    int line;                /* the source line; 0: the worst (ranked[rank]) */
    int rank;                /* with line 0: which line by cost (0 the worst), taken modulo their number */
    bool has_warp;           /* block and warp given; else the first warp that ran the line */
    unsigned block[3];
    int warp;
    const char *const *param_keys;   /* --param overrides */
    const char *const *param_values;
    int n_params;
} AccessExplainRequest;

typedef struct AccessExplain {
    EmuTrace *trace;         /* the recorded warp (owned) */
    int line;                /* the line explained */
    int first, end;          /* its accesses: trace->mem[first, end), the first time the warp ran the line */
    int times;               /* how many times the warp ran them */
    int *ranked;             /* lines with global or shared accesses, worst first (from the run's metrics) */
    int n_ranked;
    int rank;                /* the line's place in ranked; -1 when not ranked */
    char *verdict;           /* the emulator run's verdict word ("PASS") */
} AccessExplain;

/* Runs (or, when x already holds a recording with the line, reuses) and
 * fills x. An error the learner can act on when the line has no global
 * or shared access, never ran, or the run failed before any launch; x
 * keeps what it had then. Call access_explain_fini once done. */
Diag *access_explain_run(const DebugTarget *tg, const AccessExplainRequest *rq, AccessExplain *x);
void access_explain_fini(AccessExplain *x);
/* Every access of x's line drawn into out (see access_map_render). */
void access_explain_render(AccessMapText *out, const AccessExplain *x, const char *source, int width, bool utf8);

#endif
