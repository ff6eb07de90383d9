/* base/diag.h: what went wrong, where (in the user's file) and why.
 *
 * Everything a learner or an author can cause is reported as a Diag: a
 * compile error in their .cu, an out-of-bounds access found by the emulator,
 * a Lua error in an exercise script. Library functions return a Diag chain
 * (NULL means success) and never print; only app/ decides how to show it.
 * The `file` is always the user's file as they know it (the workspace's
 * vector-add.cu, lessons/01-hello-gpu/vector-add.lua), never one of ours. */
#ifndef CUDOJO_BASE_DIAG_H
#define CUDOJO_BASE_DIAG_H

#include <jansson.h>
#include <stdbool.h>

#include "base/strbuf.h"

typedef enum DiagSeverity {
    DIAG_ERROR = 0,
    DIAG_WARNING = 1,
    DIAG_NOTE = 2,
} DiagSeverity;

typedef struct Diag {
    DiagSeverity severity;
    char *code;         /* short stable id: "compile", "oob-global", "race-shared", "lua", "io" ... */
    char *file;         /* user's file, NULL when the problem has no place */
    int line, col;      /* 1-based; 0 = unknown */
    char *message;      /* one or two sentences: what happened and what to do */
    char *excerpt;      /* optional: the offending source line and a caret line */
    /* Optional GPU coordinates (emulator/GPU findings); has_thread = false when absent. */
    bool has_thread;
    unsigned block[3], thread[3];
    struct Diag *next;
} Diag;

/* Makes one Diag (caller frees with diag_free). file may be NULL. */
Diag *diag_new(DiagSeverity sev, const char *code, const char *file, int line, int col,
               const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Shorthand for an error with no place. */
Diag *diag_error(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees the whole chain and NULLs *d. */
void diag_free(Diag **d);
/* Appends chain `d` at the end of *list; returns d for chaining. */
Diag *diag_append(Diag **list, Diag *d);
/* Appends the findings of one more launch to *list. A finding the list
 * already has from an earlier launch (same severity, code, file and line;
 * with no line, the same message) is not repeated: the earlier entry's
 * message ends "(in N launches)" instead, so 78 launches of one kernel say
 * "uncoalesced ... (in 78 launches)" once. Takes the chain. */
void diag_append_launch(Diag **list, Diag *launch);
/* Number of entries in a chain, and of those with severity DIAG_ERROR. */
int diag_count(const Diag *d);
int diag_count_errors(const Diag *d);
/* Fills d->excerpt with line d->line of `source` and a caret under d->col;
 * of a line longer than DIAG_EXCERPT_MAX bytes, a window around the column. */
#define DIAG_EXCERPT_MAX 400
void diag_set_excerpt(Diag *d, const char *source);
/* Sets the block/thread coordinates. */
void diag_set_thread(Diag *d, const unsigned block[3], const unsigned thread[3]);
/* Writes "file:line:col: error: message" plus the excerpt, one Diag. */
void diag_format(const Diag *d, StrBuf *out, bool color);
/* Formats the whole chain; caller frees. */
char *diag_format_all(const Diag *d, bool color);
/* JSON array of objects {severity, code, file, line, col, message, excerpt, block, thread}. */
json_t *diag_to_json(const Diag *d);
/* Inverse of diag_to_json (tolerant: missing fields are left empty). */
Diag *diag_from_json(const json_t *arr);
const char *diag_severity_name(DiagSeverity sev);
/* The kind of bug a finding's code names, as a class report counts them:
 * "out-of-bounds", "race", "barrier", "uninitialised", "misaligned"; NULL
 * for any other code. */
const char *diag_finding_kind(const char *code);
/* Whether a code is the kernel's own bug: a finding kind above, a device
 * assert or trap, a warp-synchronous call misused (not the emulator's own
 * limits, a launch refused or a host-side failure). */
bool diag_code_is_kernel_bug(const char *code);

#endif
