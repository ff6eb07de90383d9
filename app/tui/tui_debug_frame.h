/* app/tui/tui_debug_frame.h: what the warp debugger's screen shows, free of
 * curses: the place in a recorded trace (DebugView: the step, the first lane
 * of the variables table, the source), the moves its keys make, and the
 * frame those build, an off-screen grid of cells with a role each.
 *
 * The screen (tui_debug.c) builds a frame on every key and paints it;
 * bench/bench_debug.c builds the same frames to time a key. */
#ifndef CUDOJO_APP_TUI_DEBUG_FRAME_H
#define CUDOJO_APP_TUI_DEBUG_FRAME_H

#include <stdbool.h>

#include "kernels/emu/emu_trace.h"

typedef struct DebugView {
    const EmuTrace *tr;      /* not owned */
    int step;
    int lane0;               /* first lane of the variables table */
    char **src;              /* the source's lines, tabs as blanks (src[0] is line 1; owned) */
    int n_src;
} DebugView;

/* A view of tr at its first step; source is copied (NULL: none). */
void debug_view_init(DebugView *v, const EmuTrace *tr, const char *source);
void debug_view_fini(DebugView *v);
/* Puts the view on another recording of the same source (another warp or
 * block) and keeps the place: the first step at the line shown before. */
void debug_view_retrace(DebugView *v, const EmuTrace *tr);

typedef enum DebugMove {
    DEBUG_MOVE_NEXT = 0,     /* the warp's next line */
    DEBUG_MOVE_BACK,
    DEBUG_MOVE_BARRIER,      /* to the next __syncthreads() (or the end) */
    DEBUG_MOVE_END,
    DEBUG_MOVE_START,
    DEBUG_MOVE_FINDING,      /* the line of the block's first finding */
    DEBUG_MOVE_LANES_LEFT,   /* the variables table shows other lanes */
    DEBUG_MOVE_LANES_RIGHT,
} DebugMove;

/* Makes move m; false when there is nowhere to go (NEXT at the last step,
 * FINDING with none), the view unchanged. */
bool debug_view_move(DebugView *v, DebugMove m);

/* One column of a frame: a character (UTF-8, "" for the right half of a
 * wide one) and its TextRole (app/tui/tui_text.h). */
typedef struct DebugCell {
    char g[7];
    unsigned char role;
} DebugCell;

typedef struct DebugFrame {
    int rows, cols;
    bool utf8;               /* draw ● ○ · ▶ …, else # o . > ~ */
    DebugCell *cells;        /* rows × cols */
} DebugFrame;

void debug_frame_init(DebugFrame *f, int rows, int cols, bool utf8);
void debug_frame_fini(DebugFrame *f);
/* Draws view v into all of f (the screen's body: between its title and
 * status bars). May pull v->lane0 back so that the table is full. */
void debug_frame_build(DebugFrame *f, DebugView *v);
static inline const DebugCell *debug_frame_cell(const DebugFrame *f, int y, int x) {
    return &f->cells[(size_t)y * (size_t)f->cols + (size_t)x];
}
/* Row y as text, trailing blanks kept (caller frees). */
char *debug_frame_row_text(const DebugFrame *f, int y);

#endif
