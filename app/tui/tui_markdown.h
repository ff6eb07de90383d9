/* app/tui/tui_markdown.h: a lesson's CommonMark laid out for the terminal.
 *
 * cmark parses the text; we walk the tree and lay it out at a given width:
 * headings (underlined at levels 1 and 2), emphasis, bullet and numbered
 * lists, block quotes with a bar, fenced code blocks (CUDA/C highlighted,
 * never wrapped), links as their text followed by the URL, thematic breaks.
 * GitHub pipe tables (plain cmark has no table extension) are found in the
 * source and drawn with borders, columns sized in display cells.
 * The result is re-made on every resize; it is cheap. */
#ifndef CUDOJO_APP_TUI_MARKDOWN_H
#define CUDOJO_APP_TUI_MARKDOWN_H

#include <stdbool.h>
#include <stddef.h>

#include "app/tui/tui_text.h"

/* Lays `md` (len bytes of UTF-8) out at `width` columns; caller frees.
 * Heading lines carry tag = their level (1..6). Rules, bullets, quote bars
 * and table borders are line-drawing characters when `utf8`, else ASCII. */
TextDoc *md_render(const char *md, size_t len, int width, bool utf8);

#endif
