/* app/debug.h: the warp debugger's session: run an exercise on a fresh
 * emulator with one warp traced (kernels/emu/emu_trace.h), for `cudojo
 * debug` (app/cmd_debug.c) and the workbench's debugger screen
 * (app/tui/tui_debug.c), which replays the trace. */
#ifndef CUDOJO_APP_DEBUG_H
#define CUDOJO_APP_DEBUG_H

#include <stdbool.h>

#include "base/diag.h"
#include "kernels/emu/emu_trace.h"
#include "lua/exercise.h"

typedef struct DebugTarget {
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    char *cu_path;           /* absolute path of the .cu debugged */
    char *display;           /* how messages name it */
    char *source;            /* its text (for the screen) */
    size_t cap_bytes;        /* the trace's bound; 0 = default */
} DebugTarget;

/* Fills *t for ex and cu_path (NULL: the learner's workspace copy is the
 * caller's to find: pass it). An error when the file cannot be read. */
Diag *debug_target_init(DebugTarget *t, const ChapterMeta *ch, const ExerciseMeta *ex, const char *cu_path);
void debug_target_fini(DebugTarget *t);
/* Runs the exercise on a fresh emulator (one host thread, checks on) with
 * warp `warp` of block `block` of the first launch traced. Returns the trace
 * (caller frees) or NULL with *err saying why (the run failed before any
 * launch: a compile error, a Lua error). */
EmuTrace *debug_trace_run(const DebugTarget *t, const unsigned block[3], int warp, Diag **err);
/* The block and warp of the launch's first finding with a thread, from a
 * trace of that launch; false when it has none. */
bool debug_first_finding_at(const EmuTrace *tr, unsigned block[3], int *warp);

#endif
