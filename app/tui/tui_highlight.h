/* app/tui/tui_highlight.h: a small CUDA/C syntax highlighter for the source
 * pane, code blocks in lessons and the solution viewer. It colours lexical
 * classes only (keywords, types, CUDA built-ins, comments, strings, numbers,
 * preprocessor lines); it never needs to understand the program. */
#ifndef CUDOJO_APP_TUI_HIGHLIGHT_H
#define CUDOJO_APP_TUI_HIGHLIGHT_H

#include <stdbool.h>

#include "app/tui/tui_text.h"

/* What carries over from one line to the next. */
typedef struct HlState {
    bool in_comment;   /* inside a block comment */
} HlState;

/* Appends `line` (one source line, no '\n') to out as highlighted spans;
 * `plain` is the role of text that is none of the classes. Tabs become
 * four spaces. */
void hl_line(TextLine *out, const char *line, HlState *st, int plain);
/* True for fence info strings that name C-like code ("c", "cu", "cuda", "cpp", "c++", "ptx" is not). */
bool hl_is_c_like(const char *info);

#endif
