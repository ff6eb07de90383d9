/* app/hint.h: which hint to offer next, the same for `cudojo hint` and the
 * workbench: the hint the exercise's hint_for names for the way the last
 * run failed (grade_failure_kind: race, out-of-bounds...), when it has not
 * been seen; else the first one not seen yet. */
#ifndef CUDOJO_APP_HINT_H
#define CUDOJO_APP_HINT_H

#include <stdbool.h>

#include "app/workspace.h"
#include "base/result.h"

/* The hint (0-based) to offer after `last` (may be NULL), given which were
 * seen (seen[0..n_hints-1]); -1 when every hint has been seen. */
int hint_pick(const ExerciseMeta *ex, const bool *seen, const RunResult *last);
/* The exercise's last recorded attempt as a result, NULL when none (caller frees). */
RunResult *hint_last_result(Workspace *ws, const ExerciseMeta *ex);

#endif
