/* base/result.c: RunResult lifecycle, JSON round trip and CLI rendering. */
#include "base/result.h"

#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

static const char *const verdict_names[] = {
    [VERDICT_PASS] = "pass",
    [VERDICT_FAIL] = "fail",
    [VERDICT_COMPILE_ERROR] = "compile-error",
    [VERDICT_RUNTIME_ERROR] = "runtime-error",
    [VERDICT_TIMEOUT] = "timeout",
    [VERDICT_CRASH] = "crash",
    [VERDICT_CANCELLED] = "cancelled",
    [VERDICT_EXERCISE_ERROR] = "exercise-error",
};
#define N_VERDICTS ((int)(sizeof verdict_names / sizeof verdict_names[0]))

const char *verdict_name(Verdict v) {
    if ((int)v < 0 || (int)v >= N_VERDICTS) return "fail";
    return verdict_names[v];
}

/* What a learner reads for each verdict; marked for the catalogue. */
static const char *const verdict_texts[] = {
    [VERDICT_PASS] = N_("pass"),
    [VERDICT_FAIL] = N_("fail"),
    [VERDICT_COMPILE_ERROR] = N_("compile error"),
    [VERDICT_RUNTIME_ERROR] = N_("runtime error"),
    [VERDICT_TIMEOUT] = N_("timed out"),
    [VERDICT_CRASH] = N_("crashed"),
    [VERDICT_CANCELLED] = N_("cancelled"),
    [VERDICT_EXERCISE_ERROR] = N_("the exercise itself is broken"),
};

const char *verdict_words(Verdict v) {
    if ((int)v < 0 || (int)v >= N_VERDICTS) v = VERDICT_FAIL;
    return _(verdict_texts[v]);
}

Verdict verdict_from_name(const char *s) {
    for (int i = 0; s && i < N_VERDICTS; i++)
        if (!strcmp(s, verdict_names[i])) return (Verdict)i;
    return VERDICT_FAIL;
}

static void check_result_fini(CheckResult *c);

double run_result_kernel_ms(const RunResult *r) {
    json_t *ms = r->metrics ? json_object_get(r->metrics, "time_ms") : NULL;
    return json_is_number(ms) ? json_number_value(ms) : -1;
}

RunResult *run_result_new(Verdict v) {
    RunResult *r = xcalloc(1, sizeof *r);
    r->verdict = v;
    return r;
}

void run_result_free(RunResult **rp) {
    RunResult *r = *rp;
    if (!r) return;
    for (int i = 0; i < r->n_checks; i++) check_result_fini(&r->checks[i]);
    free(r->checks);
    if (r->spill) check_result_fini(r->spill);
    free(r->spill);
    free(r->exercise_id);
    free(r->backend);
    free(r->summary);
    diag_free(&r->diags);
    if (r->metrics) json_decref(r->metrics);
    free(r->device_output);
    free(r->log);
    free(r->after_log);
    free(r);
    *rp = NULL;
}

static void check_result_fini(CheckResult *c) {
    free(c->name);
    free(c->message);
    for (int k = 0; k < c->n_mismatches; k++) {
        free(c->mismatches[k].got);
        free(c->mismatches[k].want);
    }
    free(c->mismatches);
    memset(c, 0, sizeof *c);
}

/* The last slot counts every check past the cap: n_total of them, n_wrong failed. */
static CheckResult *run_result_fold_check(RunResult *r, bool passed) {
    CheckResult *f = &r->checks[r->n_checks - 1];
    f->n_total++;
    f->n_wrong += !passed;
    f->passed = f->n_wrong == 0;
    free(f->message);
    f->message = xasprintf("%lld more checks, not kept one by one (a run keeps %d); %lld of them failed",
                           f->n_total, RESULT_MAX_CHECKS - 1, f->n_wrong);
    if (!r->spill) r->spill = xcalloc(1, sizeof *r->spill);
    check_result_fini(r->spill);
    return r->spill;
}

CheckResult *run_result_add_check(RunResult *r, const char *name, bool passed, const char *message) {
    if (!name) name = "check";
    if (!message) message = "";
    if (r->n_checks >= RESULT_MAX_CHECKS) return run_result_fold_check(r, passed);
    r->checks = xrealloc(r->checks, (size_t)(r->n_checks + 1) * sizeof *r->checks);
    CheckResult *c = &r->checks[r->n_checks++];
    memset(c, 0, sizeof *c);
    if (r->n_checks == RESULT_MAX_CHECKS) {
        c->name = xasprintf("checks past the %dth", RESULT_MAX_CHECKS - 1);
        return run_result_fold_check(r, passed);
    }
    c->name = str_cut(name, strlen(name), RESULT_MAX_NAME);
    c->passed = passed;
    c->message = str_cut(message, strlen(message), RESULT_MAX_TEXT);
    return c;
}

void check_result_add_mismatch(CheckResult *c, long long index, const char *got, const char *want) {
    c->mismatches = xrealloc(c->mismatches, (size_t)(c->n_mismatches + 1) * sizeof *c->mismatches);
    Mismatch *m = &c->mismatches[c->n_mismatches++];
    m->index = index;
    m->got = str_cut(got, strlen(got), RESULT_MAX_TEXT);
    m->want = str_cut(want, strlen(want), RESULT_MAX_TEXT);
}

bool run_result_fast(const RunResult *r) {
    if (r->verdict != VERDICT_PASS) return false;
    int goals = 0;
    for (int i = 0; i < r->n_checks; i++) {
        if (!r->checks[i].stretch) continue;
        if (!r->checks[i].passed) return false;
        goals++;
    }
    return goals > 0;
}

json_t *run_result_to_json(const RunResult *r) {
    json_t *checks = json_array();
    for (int i = 0; i < r->n_checks; i++) {
        const CheckResult *c = &r->checks[i];
        json_t *mm = json_array();
        for (int k = 0; k < c->n_mismatches; k++)
            json_array_append_new(mm, json_pack("{s:I, s:o, s:o}", "index", (json_int_t)c->mismatches[k].index,
                                                "got", bytes_to_json(c->mismatches[k].got), "want",
                                                bytes_to_json(c->mismatches[k].want)));
        json_t *cj = json_pack("{s:o, s:b, s:o, s:I, s:I, s:o}", "name", bytes_to_json(c->name), "passed", c->passed,
                               "message", bytes_to_json(c->message), "wrong", (json_int_t)c->n_wrong, "total", (json_int_t)c->n_total,
                               "mismatches", mm);
        if (c->stretch) json_object_set_new(cj, "stretch", json_true());
        json_array_append_new(checks, cj);
    }
    json_t *j = json_pack("{s:s, s:o?, s:s?, s:o?, s:o, s:o, s:f}", "verdict", verdict_name(r->verdict),
                          "exercise", bytes_to_json(r->exercise_id), "backend", r->backend, "summary",
                          bytes_to_json(r->summary),
                          "checks", checks, "diagnostics", diag_to_json(r->diags), "duration_ms",
                          r->duration_ms);
    json_object_set(j, "metrics", r->metrics ? r->metrics : json_null());
    json_object_set_new(j, "fast", json_boolean(run_result_fast(r)));
    if (r->device_output) json_object_set_new(j, "device_output", bytes_to_json(r->device_output));
    if (r->log) json_object_set_new(j, "log", bytes_to_json(r->log));
    if (r->after_log) json_object_set_new(j, "after_log", bytes_to_json(r->after_log));
    return j;
}

static const char *jstr(const json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* A field that may hold any bytes (bytes_to_json); caller frees. */
static char *jbytes(const json_t *o, const char *k) { return bytes_from_json(json_object_get(o, k)); }

RunResult *run_result_from_json(const json_t *j) {
    RunResult *r = run_result_new(verdict_from_name(jstr(j, "verdict")));
    r->exercise_id = jbytes(j, "exercise");
    r->backend = xstrdup(jstr(j, "backend"));
    r->summary = jbytes(j, "summary");
    r->duration_ms = json_number_value(json_object_get(j, "duration_ms"));
    r->device_output = jbytes(j, "device_output");
    r->log = jbytes(j, "log");
    r->after_log = jbytes(j, "after_log");
    json_t *m = json_object_get(j, "metrics");
    if (json_is_object(m)) r->metrics = json_incref(m);
    r->diags = diag_from_json(json_object_get(j, "diagnostics"));
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(j, "checks"), i, c) {
        char *name = jbytes(c, "name"), *message = jbytes(c, "message");
        CheckResult *cr = run_result_add_check(r, name, json_is_true(json_object_get(c, "passed")), message);
        free(name);
        free(message);
        cr->stretch = json_is_true(json_object_get(c, "stretch"));
        cr->n_wrong = json_integer_value(json_object_get(c, "wrong"));
        cr->n_total = json_integer_value(json_object_get(c, "total"));
        size_t k;
        json_t *mm;
        json_array_foreach(json_object_get(c, "mismatches"), k, mm) {
            char *got = jbytes(mm, "got"), *want = jbytes(mm, "want");
            check_result_add_mismatch(cr, json_integer_value(json_object_get(mm, "index")), got ? got : "",
                                      want ? want : "");
            free(got);
            free(want);
        }
    }
    return r;
}

/* Learner- and author-chosen text as the terminal should see it. */
static void print_text(FILE *out, const char *fmt, const char *text) {
    char *t = bytes_printable(text ? text : "");
    fprintf(out, fmt, t);
    free(t);
}

void run_result_print(const RunResult *r, FILE *out, bool color) {
    const char *green = color ? "\033[1;32m" : "", *red = color ? "\033[1;31m" : "";
    const char *dim = color ? "\033[2m" : "", *off = color ? "\033[0m" : "";
    bool ok = r->verdict == VERDICT_PASS;
    /* One word for the outcome, and what kind of failure only when it is not a plain one. */
    fprintf(out, "%s%s%s", ok ? green : red, ok ? (run_result_fast(r) ? _("PASS (fast)") : _("PASS")) : _("FAIL"), off);
    if (!ok && r->verdict != VERDICT_FAIL) fprintf(out, _(": %s"), verdict_words(r->verdict));
    if (r->summary && *r->summary) {
        char *summary = i18n_message(r->summary);   /* the worker builds it in English */
        print_text(out, "  %s", summary);
        free(summary);
    }
    fprintf(out, "  %s[%s, %.0f ms]%s\n", dim, r->backend ? r->backend : "?", r->duration_ms, off);
    if (r->diags) {
        char *s = diag_format_all(r->diags, color);
        fputs(s, out);
        free(s);
    }
    for (int i = 0; i < r->n_checks; i++) {
        const CheckResult *c = &r->checks[i];
        const char *miss = color ? "\033[33m" : "";   /* a missed stretch goal is not a failure */
        fprintf(out, "  %s%s%s ", c->passed ? green : c->stretch ? miss : red,
                c->passed ? "✓" : c->stretch ? "○" : "✗", off);
        print_text(out, "%s: ", c->name);
        char *msg = i18n_message(c->message);
        print_text(out, "%s\n", msg);
        free(msg);
        if (c->n_mismatches > 0) {
            char h[3][64];
            fprintf(out, "      %s  %s  %s\n", i18n_pad(h[0], sizeof h[0], _("index"), 12, true),
                    i18n_pad(h[1], sizeof h[1], _("got"), 16, true), i18n_pad(h[2], sizeof h[2], _("want"), 16, true));
            for (int k = 0; k < c->n_mismatches; k++) {
                fprintf(out, "      %12lld", c->mismatches[k].index);
                print_text(out, "  %16s", c->mismatches[k].got);
                print_text(out, "  %16s\n", c->mismatches[k].want);
            }
        }
    }
    if (r->device_output && *r->device_output) {
        /* a program exercise's output is its whole stdout, not kernel printf */
        bool program = r->metrics && json_object_get(r->metrics, "program");
        fprintf(out, "  %s%s:%s\n", dim, program ? _("program output") : _("device printf"), off);
        char *text = bytes_printable(r->device_output);
        const char *p = text;
        while (*p) {
            size_t len = strcspn(p, "\n");
            fprintf(out, "    %.*s\n", (int)len, p);
            p += len;
            if (*p) p++;
        }
        free(text);
    }
    if (r->log && *r->log) print_text(out, "%s", r->log);
    run_result_print_after(r, out, color);
}

const char *run_result_after_title(const RunResult *r) {
    const json_t *tools = json_object_get(json_object_get(r->metrics, "after"), "tools");
    bool ncu = false, nsys = false, san = false;
    size_t i;
    const json_t *t;
    json_array_foreach(tools, i, t) {
        const char *s = json_string_value(t);
        ncu |= s && !strcmp(s, "ncu");
        nsys |= s && !strcmp(s, "nsys");
        san |= s && !strcmp(s, "compute-sanitizer");
    }
    return ncu && !nsys && !san   ? N_("What Nsight Compute measured (after the verdict)")
           : nsys && !ncu && !san ? N_("What Nsight Systems measured (after the verdict)")
           : san && !ncu && !nsys ? N_("What compute-sanitizer found (after the verdict)")
                                  : N_("What the profiler measured (after the verdict)");
}

RunAfterKind run_result_after_kind(const RunResult *r) {
    const json_t *kept = json_object_get(json_object_get(r->metrics, "after"), "kept");
    bool profiler = false, san = false;
    size_t i;
    const json_t *t;
    json_array_foreach(kept, i, t) {
        const char *s = json_string_value(t);
        if (s && !strcmp(s, "compute-sanitizer")) san = true;
        else profiler = true;
    }
    return san && profiler ? RUN_AFTER_BOTH : san ? RUN_AFTER_SANITIZER : RUN_AFTER_PROFILE;
}

const char *run_result_after_doing(const RunResult *r) {
    switch (run_result_after_kind(r)) {
    case RUN_AFTER_SANITIZER: return N_("checking with compute-sanitizer after the verdict…");
    case RUN_AFTER_BOTH: return N_("profiling and checking with compute-sanitizer after the verdict…");
    case RUN_AFTER_PROFILE: break;
    }
    return N_("profiling after the verdict…");
}

void run_result_print_after(const RunResult *r, FILE *out, bool color) {
    if (!r->after_log || !*r->after_log) return;
    const char *dim = color ? "\033[2m" : "", *off = color ? "\033[0m" : "";
    fprintf(out, "  %s%s:%s\n", dim, _(run_result_after_title(r)), off);
    print_text(out, "%s", r->after_log);
}
