/* app/attempt.c: run an exercise in the worker and record the attempt. */
#include "app/attempt.h"

#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/i18n.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "progress-db/store.h"

Runner *attempt_runner_new(const Cli *cli) {
    RunnerConfig cfg = {.backend = cli->backend, .emu_threads = cli->emu_threads};
    return runner_new(&cfg);
}

static void record(Workspace *ws, const ExerciseMeta *ex, const char *cu_path, RunResult *res) {
    char *src = NULL;
    size_t len = 0;
    char hash[65] = "";
    Diag *d = fs_read_file(cu_path, &src, &len);
    if (!d) sha256_hex(src, len, hash);
    diag_free(&d);
    free(src);
    json_t *whole = run_result_to_json(res);
    char *checks_json = json_dumps(json_object_get(whole, "checks"), JSON_COMPACT);
    char *diags_json = json_dumps(json_object_get(whole, "diagnostics"), JSON_COMPACT);
    char *metrics_json = res->metrics ? json_dumps(res->metrics, JSON_COMPACT) : NULL;
    Attempt a = {.exercise_id = ex->id, .def_hash = ex->def_hash, .source_hash = hash,
                 .backend = res->backend ? res->backend : "?", .verdict = verdict_name(res->verdict),
                 .duration_ms = res->duration_ms, .kernel_ms = run_result_kernel_ms(res),
                 .checks_json = checks_json, .metrics_json = metrics_json, .diags_json = diags_json,
                 .fast = run_result_fast(res)};
    d = store_record_attempt(ws->store, &a, NULL);
    if (d) {
        char *why = xasprintf("this attempt was not recorded: %s", d->message);
        free(d->message);
        d->message = why;
        d->severity = DIAG_WARNING;
        diag_append(&res->diags, d);
    }
    free(checks_json);
    free(diags_json);
    free(metrics_json);
    json_decref(whole);
}

RunResult *attempt_run(Workspace *ws, Runner *runner, const ChapterMeta *ch, const ExerciseMeta *ex,
                       const char *cu_path, const AttemptParams *params, bool record_it,
                       volatile sig_atomic_t *cancel) {
    return attempt_run_verdict(ws, runner, ch, ex, cu_path, params, record_it, cancel, NULL, NULL);
}

RunResult *attempt_run_verdict(Workspace *ws, Runner *runner, const ChapterMeta *ch, const ExerciseMeta *ex,
                               const char *cu_path, const AttemptParams *params, bool record_it,
                               volatile sig_atomic_t *cancel, void (*on_verdict)(void *ud, const RunResult *v),
                               void *ud) {
    RunResult *res = attempt_start(ws, runner, ch, ex, cu_path, params);
    if (res) return res;
    res = runner_wait_verdict(runner, cancel, on_verdict, ud);
    if (record_it) attempt_record(ws, ch, ex, cu_path, res);
    return res;
}

RunResult *attempt_start(Workspace *ws, Runner *runner, const ChapterMeta *ch, const ExerciseMeta *ex,
                         const char *cu_path, const AttemptParams *params) {
    char *own = cu_path ? NULL : workspace_exercise_path(ws, ch, ex);
    char *abs = path_absolute(cu_path ? cu_path : own);
    char *display = workspace_display_path(abs);
    RunRequest req = {.exercise_id = ex->id, .chapter_dir = ch->dir, .cu_path = abs, .cu_display = display,
                      .timeout_s = ex->timeout_s};
    if (params) {
        req.param_keys = params->keys;
        req.param_values = params->values;
        req.n_params = params->n;
    }
    RunResult *res = NULL;
    if (!fs_exists(abs)) {
        res = run_result_new(VERDICT_EXERCISE_ERROR);
        res->exercise_id = xstrdup(ex->id);
        res->summary = xasprintf(N_("%s does not exist (`cudojo reset %s` brings the starter back)"), display, ex->id);
    } else {
        Diag *d = runner_start(runner, &req);
        if (d) {
            res = run_result_new(VERDICT_CRASH);
            res->exercise_id = xstrdup(ex->id);
            res->summary = xstrdup(d->message);
            res->diags = d;
        }
    }
    free(display);
    free(abs);
    free(own);
    return res;
}

void attempt_record(Workspace *ws, const ChapterMeta *ch, const ExerciseMeta *ex, const char *cu_path,
                    RunResult *res) {
    if (res->verdict == VERDICT_CANCELLED) return;
    char *own = cu_path ? NULL : workspace_exercise_path(ws, ch, ex);
    char *abs = path_absolute(cu_path ? cu_path : own);
    record(ws, ex, abs, res);
    free(abs);
    free(own);
}

const ExerciseMeta *attempt_next_exercise(Workspace *ws, const ChapterMeta **chp) {
    for (int c = 0; c < ws->course->n_chapters; c++) {
        const ChapterMeta *ch = &ws->course->chapters[c];
        for (int e = 0; e < ch->n_exercises; e++) {
            ExerciseStatus st;
            memset(&st, 0, sizeof st);
            Diag *d = store_exercise_status(ws->store, ch->exercises[e].id, &st);
            bool passed = !d && st.passed;
            diag_free(&d);
            exercise_status_fini(&st);
            if (!passed) {
                *chp = ch;
                return &ch->exercises[e];
            }
        }
    }
    *chp = NULL;
    return NULL;
}
