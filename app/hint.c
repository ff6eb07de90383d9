/* app/hint.c: the next hint to offer (see app/hint.h). */
#include "app/hint.h"

#include <string.h>

#include "app/grade.h"
#include "progress-db/store.h"

int hint_pick(const ExerciseMeta *ex, const bool *seen, const RunResult *last) {
    const char *kind = last ? grade_failure_kind(last, !ex->program) : NULL;
    for (int i = 0; kind && i < ex->n_hint_for; i++) {
        int h = ex->hint_for_index[i];
        if (!strcmp(ex->hint_for_kind[i], kind) && h >= 0 && h < ex->n_hints && !seen[h]) return h;
    }
    for (int i = 0; i < ex->n_hints; i++)
        if (!seen[i]) return i;
    return -1;
}

RunResult *hint_last_result(Workspace *ws, const ExerciseMeta *ex) {
    json_t *arr = NULL;
    RunResult *r = NULL;
    Diag *d = store_attempts_json(ws->store, ex->id, 1, &arr);
    if (!d && json_array_size(arr) == 1) {
        json_t *a = json_array_get(arr, 0);
        json_t *j = json_pack("{s:O, s:O?, s:O?, s:O?, s:O?, s:O?}", "verdict", json_object_get(a, "verdict"),
                              "backend", json_object_get(a, "backend"), "checks", json_object_get(a, "checks"),
                              "diagnostics", json_object_get(a, "diags"), "metrics", json_object_get(a, "metrics"),
                              "duration_ms", json_object_get(a, "duration_ms"));
        if (j) {
            r = run_result_from_json(j);
            json_decref(j);
        }
    }
    diag_free(&d);
    json_decref(arr);
    return r;
}
