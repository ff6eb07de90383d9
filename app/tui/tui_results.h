/* app/tui/tui_results.h: a run's result laid out for the exercise view:
 * verdict, failed checks with a got/want table, diagnostics with file:line,
 * block/thread and the source excerpt, metrics, device printf output; and
 * the per-line heat (coalescing, bank conflicts, divergence) drawn next to
 * the source. Free of curses, so it is unit-tested. */
#ifndef CUDOJO_APP_TUI_RESULTS_H
#define CUDOJO_APP_TUI_RESULTS_H

#include <stdbool.h>

#include "app/tui/tui_text.h"
#include "base/result.h"

/* Appends the result's lines to doc, wrapped at width: the verdict, the
 * checks (failures first), the findings, the numbers the exercise is about
 * (what its Lua measured or reported, the emulator counts its checks talk
 * about), the lines worth a look and the exercise's log. The run's other
 * metrics (compile time, Lua instructions, timeline...) follow only when
 * all_metrics; else one line says how many there are. */
void results_render(TextDoc *doc, const RunResult *r, int width, bool utf8, bool all_metrics);

/* Per-line emulator metrics merged over every launch: heat[line] is 0 (no
 * data), 1 (ran, fine), 2 (worth a look), 3 (costly) for lines 1..n_lines
 * (heat[0] unused), notes[line] a short explanation or NULL. Returns the
 * number of lines with data; *heat and *notes are NULL when 0. Caller frees
 * with results_heat_free. */
int results_line_heat(const RunResult *r, int n_lines, int **heat, char ***notes);
void results_heat_free(int **heat, char ***notes, int n_lines);

/* One word for a verdict, for badges: "PASS", "FAIL", "COMPILE ERROR"... */
const char *results_verdict_label(Verdict v);

#endif
