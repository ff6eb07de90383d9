/* app/tui/tui_markdown.h: a lesson's CommonMark laid out for the terminal.
 *
 * cmark parses the text; we walk the tree and lay it out at a given width:
 * headings (underlined at levels 1 and 2), emphasis, bullet and numbered
 * lists, block quotes with a bar, fenced code blocks (CUDA/C highlighted,
 * never wrapped), links as their text followed by the URL, thematic breaks.
 * Pipe tables keep their line breaks (plain cmark has no table extension).
 * The result is re-made on every resize; it is cheap. */
#ifndef CUDOJO_APP_TUI_MARKDOWN_H
#define CUDOJO_APP_TUI_MARKDOWN_H

#include <stddef.h>

#include "app/tui/tui_text.h"

/* Lays `md` (len bytes of UTF-8) out at `width` columns; caller frees.
 * Heading lines carry tag = their level (1..6). */
TextDoc *md_render(const char *md, size_t len, int width);

#endif
