/* app/tui/tui_class.h: the class report (app/class_report.h) laid out as
 * styled text: the summary, the score histogram in block characters, a
 * table of the exercises with their failure kinds, the similar groups and
 * the submissions' problems. `cudojo class report` prints it and the
 * workbench's class screen (tui_class.c) scrolls it. Free of curses, so
 * it is unit-tested. */
#ifndef CUDOJO_APP_TUI_CLASS_H
#define CUDOJO_APP_TUI_CLASS_H

#include <jansson.h>
#include <stdbool.h>

#include "app/cli.h"
#include "app/tui/tui_text.h"

/* Appends the report's lines to doc for a screen `width` columns wide;
 * block characters when utf8, ASCII otherwise. Names and other strings
 * of the submissions are shown printable (no control sequences). */
void class_report_render(TextDoc *doc, const json_t *report, int width, bool utf8);

/* Opens the class report screen on the terminal until q; for `cudojo class
 * report --tui` (app/cmd_class.c, which must not see curses). Returns the
 * exit status. Defined in tui_main.c, which builds every screen. */
int tui_class_open(Cli *cli, json_t *report);

#endif
