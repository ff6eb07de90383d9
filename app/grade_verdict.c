/* app/grade_verdict.c: a graded run's verdict. The failure kind of a run
 * (grade_failure_kind: what the gradebook, the class report and hint_for
 * call the way it failed), and the emulator's second opinion on a run that
 * passed on a GPU: a race, a stray or misaligned read, a read of memory
 * never written is undefined behaviour that real hardware often lets pass,
 * and the emulator (adversarial warp order, poisoned shared memory, every
 * access checked) finds it. A pass the emulator finds such a bug in is a
 * fail of that kind ("passed on the GPU by luck"); a failure of speed on
 * the emulator, or of one of its own measurements, is not: the GPU's time
 * is the truth. Pure functions of the results; grade_run.c makes the runs. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/grade.h"
#include "base/bytes.h"
#include "base/i18n.h"
#include "base/xalloc.h"

const char *grade_finding_kind(const char *code) { return diag_finding_kind(code); }

bool grade_check_is_speed(const CheckResult *c) {
    static const char *const words[] = {"slower", "as fast as", "faster", " ms", "GB/s", "bandwidth", "speedup"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (c->message && strstr(c->message, words[i])) return true;
    return false;
}

static long long launches(const RunResult *r) {
    json_t *l = r->metrics ? json_object_get(r->metrics, "launches") : NULL;
    return json_is_integer(l) ? json_integer_value(l) : 0;
}

const char *grade_failure_kind(const RunResult *r, bool kernel_exercise) {
    switch (r->verdict) {
    case VERDICT_PASS:
        return kernel_exercise && launches(r) == 0 ? "no-launch" : NULL;
    case VERDICT_COMPILE_ERROR: return "compile-error";
    case VERDICT_TIMEOUT: return "timeout";
    case VERDICT_CRASH: return "crash";
    case VERDICT_EXERCISE_ERROR: return "exercise-error";
    default: break;
    }
    for (const Diag *d = r->diags; d; d = d->next) {
        const char *k = d->severity == DIAG_ERROR ? grade_finding_kind(d->code) : NULL;
        if (k) return k;
    }
    if (r->verdict == VERDICT_RUNTIME_ERROR) return "runtime-error";
    if (kernel_exercise && launches(r) == 0) return "no-launch";
    int failed = 0, speed = 0;
    for (int i = 0; i < r->n_checks; i++) {
        if (r->checks[i].passed || r->checks[i].stretch) continue;
        failed++;
        if (grade_check_is_speed(&r->checks[i])) speed++;
    }
    if (failed && speed == failed) return "too-slow";
    if (failed) return "wrong-result";
    return "other";
}

bool grade_emu_check_planned(bool check_on, const ExerciseMeta *ex) {
    return check_on && !ex->needs_gpu && ex->gpus <= GRADE_EMU_MAX_GPUS;
}

bool grade_emu_check_wanted(bool check_on, const ExerciseMeta *ex, const RunResult *gpu) {
    if (!grade_emu_check_planned(check_on, ex) || !gpu->backend || strcmp(gpu->backend, "cuda")) return false;
    return gpu->verdict == VERDICT_PASS && !grade_failure_kind(gpu, !ex->program);
}

/* Codes of errors that are the emulator's own limits, not the kernel's
 * bugs: its memory, a runtime function or instruction it lacks, a launch
 * it refuses that the GPU took, a compile or link of its own. */
static bool code_is_emulator_limit(const char *code) {
    static const char *const codes[] = {"emu", "unimplemented", "host-crash", "launch", "link", "worker", "crash"};
    if (!code) return false;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (!strcmp(code, codes[i])) return true;
    return !strncmp(code, "compile", 7) || !strncmp(code, "include", 7);
}


/* A check's name and message without its numbers: the same check made
 * with other values (the GPU's larger inputs) reads the same. Caller frees. */
static char *check_shape(const CheckResult *c) {
    const char *name = c->name ? c->name : "", *msg = c->message ? c->message : "";
    /* t:expect without a message says "ok" or "expectation failed" */
    if (!strcmp(msg, "ok") || !strcmp(msg, "expectation failed")) msg = "";
    size_t n = strlen(name) + strlen(msg) + 2;
    char *s = xmalloc(n), *o = s;
    for (const char *p = name; *p; p++) *o++ = *p;
    *o++ = '\n';
    for (const char *p = msg; *p; p++) {
        bool digit_next = isdigit((unsigned char)p[1]) || ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2]));
        if (isdigit((unsigned char)*p)) continue;
        if ((*p == '.' || *p == '-' || *p == '+') && isdigit((unsigned char)p[1])) continue;
        if ((*p == 'e' || *p == 'E') && p > msg && isdigit((unsigned char)p[-1]) && digit_next) continue;
        *o++ = *p;
    }
    *o = '\0';
    return s;
}

/* Whether the GPU run made this check (by name and message, numbers aside). */
static bool gpu_made_check(const RunResult *gpu, const CheckResult *c) {
    char *want = check_shape(c);
    bool found = false;
    for (int i = 0; gpu && i < gpu->n_checks && !found; i++) {
        char *have = check_shape(&gpu->checks[i]);
        found = !strcmp(have, want);
        free(have);
    }
    free(want);
    return found;
}

/* Whether a failed check on the emulator is about the answer. Comparisons
 * of values (t:expect_equal, expect_close), a program's exit status and
 * output, and t:fail are; speed targets and the performance checks
 * (occupancy, overlap, the default stream) are not; a plain t:expect is
 * when the GPU run made the same one, else it is a measurement of the
 * emulator's own (sectors per request, bank conflicts, requests...). */
static bool check_is_about_answer(const CheckResult *c, const RunResult *gpu) {
    const char *name = c->name ? c->name : "";
    if (grade_check_is_speed(c)) return false;
    if (!strcmp(name, "occupancy") || !strcmp(name, "overlap") || !strcmp(name, "default-stream")) return false;
    if (c->n_total > 0 || c->n_mismatches > 0) return true;
    if (!strcmp(name, "exit") || !strcmp(name, "output") || !strcmp(name, "fail")) return true;
    if (!strcmp(name, "expect")) return gpu_made_check(gpu, c);
    return true;   /* a check of the course's own naming (t:expect_* of a lib) */
}

/* The first error diagnostic with a place, else the first error. */
static const Diag *first_error(const RunResult *r, bool (*want)(const char *code)) {
    const Diag *any = NULL;
    for (const Diag *d = r->diags; d; d = d->next) {
        if (d->severity != DIAG_ERROR || (want && !want(d->code))) continue;
        if (d->file && d->line > 0) return d;
        if (!any) any = d;
    }
    return any;
}

static bool code_is_finding(const char *code) { return grade_finding_kind(code) != NULL; }

GradeEmuFinding grade_emu_finding(const RunResult *emu, const RunResult *gpu, bool kernel_exercise) {
    GradeEmuFinding f = {0};
    (void)kernel_exercise;
    switch (emu->verdict) {
    case VERDICT_PASS: return f;
    case VERDICT_COMPILE_ERROR:
    case VERDICT_CRASH:
    case VERDICT_EXERCISE_ERROR:
    case VERDICT_CANCELLED:
        f.inconclusive = true;
        return f;
    case VERDICT_TIMEOUT:
        f.kind = "timeout";
        return f;
    default: break;
    }
    /* A finding of a bug: the first one with a place, its kind. */
    f.diag = first_error(emu, code_is_finding);
    if (f.diag) {
        f.kind = grade_finding_kind(f.diag->code);
        return f;
    }
    if (emu->verdict == VERDICT_RUNTIME_ERROR) {
        f.diag = first_error(emu, diag_code_is_kernel_bug);
        if (f.diag) {
            f.kind = "runtime-error";
            return f;
        }
        for (const Diag *d = emu->diags; d; d = d->next)
            if (d->severity == DIAG_ERROR && code_is_emulator_limit(d->code)) {
                f.inconclusive = true;
                f.diag = d;
                return f;
            }
        f.kind = "runtime-error";
        f.diag = first_error(emu, NULL);
        return f;
    }
    for (int i = 0; i < emu->n_checks; i++) {
        const CheckResult *c = &emu->checks[i];
        if (c->passed || c->stretch || !check_is_about_answer(c, gpu)) continue;
        f.kind = "wrong-result";
        f.check = c;
        return f;
    }
    return f;
}

/* What the emulator found, in words ("a race"), for the message. */
static const char *finding_words(const char *kind) {
    static const struct {
        const char *kind, *words;
    } w[] = {
        {"race", N_("a race")},
        {"out-of-bounds", N_("an out-of-bounds access")},
        {"barrier", N_("a barrier misuse")},
        {"uninitialised", N_("an uninitialised read")},
        {"misaligned", N_("a misaligned access")},
        {"runtime-error", N_("a runtime error")},
        {"timeout", N_("a hang (the run did not end in time)")},
        {"wrong-result", N_("a wrong result")},
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (!strcmp(w[i].kind, kind)) return w[i].words;
    return kind;
}

/* "passed on the GPU by luck: the emulator found a race at ch/x.cu:12".
 * English (the gradebook's), from formats the catalogue translates where it
 * is shown (i18n_message). Caller frees. */
static char *luck_message(const GradeEmuFinding *f) {
    const char *what = finding_words(f->kind);
    if (f->diag && f->diag->file && f->diag->line > 0)
        return xasprintf(N_("passed on the GPU by luck: the emulator found %s at %s:%d"), what, f->diag->file,
                         f->diag->line);
    if (f->diag && f->diag->file)
        return xasprintf(N_("passed on the GPU by luck: the emulator found %s in %s"), what, f->diag->file);
    if (f->check)
        return xasprintf(N_("passed on the GPU by luck: the emulator found %s (check %s: %s)"), what,
                         f->check->name ? f->check->name : "?", f->check->message ? f->check->message : "");
    return xasprintf(N_("passed on the GPU by luck: the emulator found %s"), what);
}

/* {"verdict","failure_kind","overturned","inconclusive","message","duration_ms","findings"} */
static json_t *emulator_check_json(const RunResult *emu, const GradeEmuFinding *f, bool overturned) {
    json_t *o = json_object();
    json_object_set_new(o, "verdict", json_string(verdict_name(emu->verdict)));
    json_object_set_new(o, "failure_kind", f->kind ? json_string(f->kind) : json_null());
    json_object_set_new(o, "overturned", json_boolean(overturned));
    json_object_set_new(o, "inconclusive", json_boolean(f->inconclusive));
    json_object_set_new(o, "message", emu->summary ? bytes_to_json(emu->summary) : json_null());
    json_object_set_new(o, "duration_ms", json_real(emu->duration_ms));
    json_t *cpu = emu->metrics ? json_object_get(emu->metrics, "cpu") : NULL;
    if (json_is_object(cpu))
        json_object_set_new(o, "cpu_ms", json_real(json_number_value(json_object_get(cpu, "worker_ms")) +
                                                   json_number_value(json_object_get(cpu, "children_ms"))));
    /* Its findings (the first 20), as the gradebook's cells list theirs. */
    json_t *all = diag_to_json(emu->diags), *findings = json_array(), *v;
    size_t i;
    json_array_foreach(all, i, v) {
        if (i >= 20) break;
        json_t *line = json_object_get(v, "line");
        json_array_append_new(findings, json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?}", "severity",
                                                  json_object_get(v, "severity"), "code", json_object_get(v, "code"),
                                                  "message", json_object_get(v, "message"), "file",
                                                  json_object_get(v, "file"), "line",
                                                  json_integer_value(line) > 0 ? line : NULL));
    }
    json_decref(all);
    if (f->check) {
        char *m = xasprintf("check %s failed: %s", f->check->name ? f->check->name : "?",
                            f->check->message ? f->check->message : "");
        json_array_append_new(findings, json_pack("{s:s, s:s, s:o}", "severity", "error", "code", "check", "message",
                                                  bytes_to_json(m)));
        free(m);
    }
    json_object_set_new(o, "findings", findings);
    return o;
}

GradeVerdict grade_verdict_judge(const RunResult *run, const RunResult *emu, bool kernel_exercise) {
    GradeVerdict v = {0};
    v.failure_kind = grade_failure_kind(run, kernel_exercise);
    v.pass = run->verdict == VERDICT_PASS && !v.failure_kind;
    v.verdict = verdict_name(run->verdict);
    if (run->verdict == VERDICT_PASS && v.failure_kind) {
        v.verdict = "fail";
        v.message = xstrdup("the checks passed but no kernel was launched: the answer did not come from the GPU");
    }
    if (!emu) return v;
    GradeEmuFinding f = grade_emu_finding(emu, run, kernel_exercise);
    bool overturned = v.pass && f.kind != NULL;
    v.emulator_check = emulator_check_json(emu, &f, overturned);
    if (overturned) {
        v.pass = false;
        v.verdict = "fail";
        v.failure_kind = f.kind;
        v.message = luck_message(&f);
    }
    return v;
}

void grade_verdict_fini(GradeVerdict *v) {
    free(v->message);
    json_decref(v->emulator_check);
    memset(v, 0, sizeof *v);
}
