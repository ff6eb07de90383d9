/* app/mutants_run.c: the driver of `cudojo verify --mutants` (app/mutants.h):
 * runs each exercise's solution, then its mutants, `jobs` runs at a time in
 * emulator workers, and reports the mutants its checks let pass.
 *
 * A mutant the exercise already allows (mutants_equivalent, _undetected) is
 * not run unless asked (run_allowed: to find allowances no longer needed).
 * A mutant's emulated launches have an instruction budget (a multiple of
 * the solution's largest launch): one that loops is stopped by it and
 * killed, whatever the load. A mutant stopped by the clock (the run's
 * limit, or the emulator's deadline inside it) proves nothing on a loaded
 * machine: it runs once more with a longer limit, and when that too runs
 * out it is "timed out", its own outcome (a problem to look at), never a
 * kill that could hide a survivor. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/mutants.h"
#include "app/runner.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"

/* A mutant's time limit: this many times the solution's run, at least
 * MUTANT_MIN_TIMEOUT_S (a mutant looping forever must not cost the
 * exercise's whole timeout). CUDOJO_MUTANT_TIMEOUT_S=S sets it (tests). A
 * mutant that runs out of it is run again with MUTANT_RETRY_FACTOR times
 * as long, and at least the exercise's own limit (what a learner's run
 * gets). */
#define MUTANT_TIMEOUT_FACTOR 8.0
#define MUTANT_MIN_TIMEOUT_S 5.0
#define MUTANT_RETRY_FACTOR 2.0
/* What one emulated launch of a mutant may execute (warp-instructions):
 * MUTANT_BUDGET_FACTOR times the solution's largest launch, at least
 * MUTANT_MIN_BUDGET. A mutant past it loops (a kill, whatever the
 * machine's load), while one stopped by the clock is run again.
 * CUDOJO_MUTANT_LAUNCH_BUDGET=N sets it (0: the emulator's own; tests). */
#define MUTANT_BUDGET_FACTOR 16
#define MUTANT_MIN_BUDGET 2000000ull

/* M_ALLOWED: allowed by the exercise and not run; M_TIMEDOUT: out of time
   twice, neither killed nor survived. */
typedef enum MState {
    M_PENDING, M_RUNNING, M_KILLED, M_SURVIVED, M_INVALID, M_EQUIVALENT, M_ALLOWED, M_TIMEDOUT
} MState;
typedef enum BState { B_PENDING, B_RUNNING, B_PASSED, B_FAILED } BState;

typedef struct ExState {
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    char *path, *shown;         /* the solution: absolute, as messages name it */
    MutantList muts;
    MState *state;
    int *allowed_by;            /* index of the mutants_equivalent entry naming it, -1 */
    bool *retry;                /* its first run ran out of time: the next one gets retry_timeout_s */
    BState base;
    char *base_summary;         /* why the solution failed */
    double timeout_s, retry_timeout_s;
    uint64_t launch_budget;     /* a mutant's (0: the emulator's default) */
    int left;                   /* mutants not finished */
    int retried;                /* mutants run again after running out of time */
    bool skipped;               /* needs a GPU */
} ExState;

typedef struct Slot {
    Runner *runner;
    char *dir;                  /* this slot's own folder */
    char *file;                 /* the mutant it wrote last, named like the solution (NULL: none) */
    int ex, m;                  /* what runs (m = -1: the solution) */
    bool busy;
} Slot;

typedef struct Totals {
    int exercises, mutants, killed, survived, invalid, equivalent, undetected, timed_out, not_run, problems;
} Totals;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void ex_fini(ExState *e) {
    free(e->path);
    free(e->shown);
    mutants_free(&e->muts);
    free(e->state);
    free(e->allowed_by);
    free(e->retry);
    free(e->base_summary);
}

/* Reads the solution and makes its mutants, marking those the exercise
 * allows as not to run unless run_allowed; false (with *why) when it
 * cannot be read. */
static bool ex_prepare(ExState *e, bool run_allowed, char **why) {
    e->path = path_join(e->ch->dir, e->ex->solution);
    e->shown = xasprintf("%s/%s", e->ch->rel_dir, e->ex->solution);
    char *text = NULL;
    Diag *d = fs_read_file(e->path, &text, NULL);
    if (d) {
        *why = xstrdup(d->message);
        diag_free(&d);
        return false;
    }
    mutants_generate(text, e->ex->program, &e->muts);
    free(text);
    e->state = xcalloc((size_t)e->muts.n + 1, sizeof *e->state);
    e->allowed_by = xcalloc((size_t)e->muts.n + 1, sizeof *e->allowed_by);
    e->retry = xcalloc((size_t)e->muts.n + 1, sizeof *e->retry);
    e->left = e->muts.n;
    for (int m = 0; m < e->muts.n; m++) {
        e->allowed_by[m] = -1;
        for (int k = 0; k < e->ex->n_equivalent && e->allowed_by[m] < 0; k++)
            if (mutants_entry_matches(&e->ex->equivalent[k], &e->muts.v[m])) e->allowed_by[m] = k;
        if (e->allowed_by[m] >= 0 && !run_allowed) {
            e->state[m] = M_ALLOWED;
            e->left--;
        }
    }
    return true;
}

/* Writes a mutant as <slot dir>/<the solution's file name>, so messages read as the solution's. */
static Diag *slot_write(Slot *s, const ExState *e, const Mutant *m) {
    char *file = path_join(s->dir, path_basename(e->ex->solution));
    if (s->file && strcmp(s->file, file)) unlink(s->file);
    free(s->file);
    s->file = file;
    return fs_write_file_atomic(file, m->source, strlen(m->source));
}

/* Starts the next run that can go (the solution before its mutants): 0 when
 * none is ready, 1 when one started, 2 when one ended without running. */
static int slot_start(Slot *s, ExState *exs, int n_ex) {
    for (int i = 0; i < n_ex; i++) {
        ExState *e = &exs[i];
        if (e->skipped) continue;
        int m = -1;
        if (e->base == B_PENDING) {
            m = -1;
        } else if (e->base == B_PASSED) {
            for (m = 0; m < e->muts.n && e->state[m] != M_PENDING; m++) {}
            if (m == e->muts.n) continue;
        } else {
            continue;
        }
        const char *cu = e->path;
        if (m >= 0) {
            Diag *d = slot_write(s, e, &e->muts.v[m]);
            if (d) {    /* a full disk: the mutant is not run (invalid) */
                e->state[m] = M_INVALID;
                e->left--;
                diag_free(&d);
                return 2;
            }
            cu = s->file;
        }
        RunRequest req = {.exercise_id = e->ex->id, .chapter_dir = e->ch->dir, .chapter_shown = e->ch->rel_dir,
                          .cu_path = cu, .cu_display = e->shown,
                          /* the solution gets the exercise's timeout; a mutant, a few times the solution's time */
                          .timeout_s = m < 0 ? e->ex->timeout_s : e->retry[m] ? e->retry_timeout_s : e->timeout_s,
                          .emu_launch_budget = m < 0 ? 0 : e->launch_budget};
        Diag *d = runner_start(s->runner, &req);
        if (d) {
            if (m < 0) {
                e->base = B_FAILED;
                e->base_summary = xstrdup(d->message);
            } else {
                e->state[m] = M_KILLED;
                e->left--;
            }
            diag_free(&d);
            return 2;
        }
        if (m < 0) e->base = B_RUNNING;
        else e->state[m] = M_RUNNING;
        s->ex = i;
        s->m = m;
        s->busy = true;
        return 1;
    }
    return 0;
}

/* Whether a run was stopped by the clock rather than by what it did: the
 * run's limit, or the emulator's deadline within it (did-not-finish "within
 * the run's time limit", kernels/emu/emu_run.c; a kernel past its
 * instruction budget did not finish whatever the load: that is a kill). */
static bool run_out_of_time(const RunResult *res) {
    if (res->verdict == VERDICT_TIMEOUT) return true;
    if (res->verdict == VERDICT_PASS) return false;
    for (const Diag *d = res->diags; d; d = d->next)
        if (d->code && !strcmp(d->code, "did-not-finish") && d->message && strstr(d->message, "time limit"))
            return true;
    return false;
}

/* A mutant's first time limit, from the solution's run of duration_ms. */
static double mutant_timeout_s(const ExState *e, double duration_ms) {
    const char *forced = getenv("CUDOJO_MUTANT_TIMEOUT_S");
    if (forced && atof(forced) > 0) return atof(forced);
    double t = MUTANT_TIMEOUT_FACTOR * duration_ms / 1000.0;
    if (t < MUTANT_MIN_TIMEOUT_S) t = MUTANT_MIN_TIMEOUT_S;
    return t > e->ex->timeout_s ? e->ex->timeout_s : t;
}

/* A mutant's per-launch budget, from the solution's run (0: the emulator's
 * default, when the run did not say how large its launches were). */
static uint64_t mutant_launch_budget(const RunResult *res) {
    const char *forced = getenv("CUDOJO_MUTANT_LAUNCH_BUDGET");
    if (forced && *forced) return strtoull(forced, NULL, 10);
    json_t *max = res->metrics ? json_object_get(res->metrics, "max_launch_warp_instructions") : NULL;
    if (!json_is_integer(max) || json_integer_value(max) <= 0) return 0;
    uint64_t b = MUTANT_BUDGET_FACTOR * (uint64_t)json_integer_value(max);
    return b < MUTANT_MIN_BUDGET ? MUTANT_MIN_BUDGET : b;
}

/* Takes a finished run's result; true when the mutant is to run again. */
static bool slot_finish(Slot *s, ExState *exs, RunResult *res) {
    ExState *e = &exs[s->ex];
    s->busy = false;
    if (s->m < 0) {
        if (res->verdict == VERDICT_PASS) {
            e->base = B_PASSED;
            e->timeout_s = mutant_timeout_s(e, res->duration_ms);
            e->launch_budget = mutant_launch_budget(res);
            e->retry_timeout_s = MUTANT_RETRY_FACTOR * e->timeout_s;
            if (e->retry_timeout_s < e->ex->timeout_s) e->retry_timeout_s = e->ex->timeout_s;
        } else {
            e->base = B_FAILED;
            e->base_summary = xasprintf("%s: %s", verdict_name(res->verdict), res->summary ? res->summary : "");
        }
        return false;
    }
    int m = s->m;
    if (run_out_of_time(res) && !e->retry[m]) {
        e->retry[m] = true;
        e->retried++;
        e->state[m] = M_PENDING;
        return true;
    }
    if (res->verdict == VERDICT_COMPILE_ERROR) e->state[m] = M_INVALID;
    else if (run_out_of_time(res)) e->state[m] = M_TIMEDOUT;
    else if (res->verdict != VERDICT_PASS) e->state[m] = M_KILLED;
    else e->state[m] = e->allowed_by[m] >= 0 ? M_EQUIVALENT : M_SURVIVED;
    e->left--;
    return false;
}

static bool ex_done(const ExState *e) {
    return e->skipped || e->base == B_FAILED || (e->base == B_PASSED && e->left == 0);
}

/* One exercise's report: a line, then each survivor, failed solution or stale allowance. */
static void ex_report(const Cli *cli, const ExState *e, Totals *t, json_t *rows) {
    int killed = 0, survived = 0, invalid = 0, equivalent = 0, undetected = 0, timed_out = 0, not_run = 0;
    for (int m = 0; m < e->muts.n; m++) {
        killed += e->state[m] == M_KILLED;
        survived += e->state[m] == M_SURVIVED;
        invalid += e->state[m] == M_INVALID;
        timed_out += e->state[m] == M_TIMEDOUT;
        not_run += e->state[m] == M_ALLOWED;
        if (e->state[m] == M_EQUIVALENT || e->state[m] == M_ALLOWED) {
            if (e->ex->equivalent[e->allowed_by[m]].undetected) undetected++;
            else equivalent++;
        }
    }
    /* An allowance no mutant matches is stale (the solution changed); one
       whose every mutant was run and killed is not needed. */
    int stale = 0;
    json_t *notes = json_array();
    for (int k = 0; e->base == B_PASSED && k < e->ex->n_equivalent; k++) {
        int matched = 0, needed = 0;
        for (int m = 0; m < e->muts.n; m++)    /* every mutant it names, also those an earlier entry names */
            if (mutants_entry_matches(&e->ex->equivalent[k], &e->muts.v[m])) {
                matched++;
                /* passed, not run, or out of time: not known to be killed */
                needed += e->state[m] == M_EQUIVALENT || e->state[m] == M_ALLOWED || e->state[m] == M_TIMEDOUT;
            }
        const MutantEquivalent *q = &e->ex->equivalent[k];
        const char *field = q->undetected ? "mutants_undetected" : "mutants_equivalent";
        int nth = 1;    /* its number in its own list */
        for (int j = 0; j < k; j++) nth += e->ex->equivalent[j].undetected == q->undetected;
        if (!matched) {
            stale++;
            json_array_append_new(notes, json_sprintf(N_("%s[%d] (%s at \"%s\") names no mutant of the solution: remove "
                                                         "it or say the line as it is now"), field, nth, q->op, q->line));
        } else if (!needed) {
            json_array_append_new(notes, json_sprintf(N_("%s[%d] (%s at \"%s\"): the checks kill every mutant it names, "
                                                         "so it is not needed"), field, nth, q->op, q->line));
        }
    }
    bool bad = e->base == B_FAILED || survived > 0 || stale > 0 || timed_out > 0;
    if (!e->skipped) {
        t->exercises++;
        t->mutants += e->muts.n;
        t->killed += killed;
        t->survived += survived;
        t->invalid += invalid;
        t->equivalent += equivalent;
        t->undetected += undetected;
        t->timed_out += timed_out;
        t->not_run += not_run;
        t->problems += (e->base == B_FAILED) + stale + timed_out;
    }
    json_t *surv = json_array(), *allowed = json_array(), *slow = json_array();
    for (int m = 0; m < e->muts.n; m++) {
        MState st = e->state[m];
        if (st != M_SURVIVED && st != M_EQUIVALENT && st != M_ALLOWED && st != M_TIMEDOUT) continue;
        const Mutant *mu = &e->muts.v[m];
        json_t *o = json_pack("{s:i, s:s, s:o, s:o}", "line", mu->line, "mutation", mu->op, "before",
                              bytes_to_json(mu->before), "after", bytes_to_json(mu->after));
        if (st == M_EQUIVALENT || st == M_ALLOWED) {
            const MutantEquivalent *q = &e->ex->equivalent[e->allowed_by[m]];
            json_object_set_new(o, "why", json_string(q->why));
            json_object_set_new(o, "undetected", json_boolean(q->undetected));
            json_object_set_new(o, "ran", json_boolean(st == M_EQUIVALENT));
        }
        if (st == M_TIMEDOUT) json_object_set_new(o, "limits_s", json_pack("[f, f]", e->timeout_s, e->retry_timeout_s));
        json_array_append_new(st == M_SURVIVED ? surv : st == M_TIMEDOUT ? slow : allowed, o);
    }
    if (!cli->json) {
        const char *c_ok = cli->color ? "\033[32m" : "", *c_bad = cli->color ? "\033[1;31m" : "";
        const char *off = cli->color ? "\033[0m" : "";
        if (e->skipped) {
            printf(_("  - %-20s skipped: needs a GPU\n"), e->ex->id);
        } else if (e->base == B_FAILED) {
            printf(_("  %s✗%s %-20s the solution %s does not pass, so its mutants were not run: %s\n"), c_bad, off,
                   e->ex->id, e->shown, e->base_summary ? e->base_summary : "");
        } else {
            printf(_("  %s%s%s %-20s %d mutants: %d killed"), bad ? c_bad : c_ok, bad ? "✗" : "✓", off, e->ex->id,
                   e->muts.n, killed);
            if (survived) printf(_(", %d survived"), survived);
            if (invalid) printf(_(", %d invalid"), invalid);
            if (equivalent) printf(_(", %d equivalent"), equivalent);
            if (undetected) printf(_(", %d undetected"), undetected);
            if (timed_out) printf(_(", %d timed out"), timed_out);
            printf("\n");
            for (int m = 0; m < e->muts.n; m++) {
                if (e->state[m] != M_SURVIVED && e->state[m] != M_TIMEDOUT) continue;
                const Mutant *mu = &e->muts.v[m];
                char *before = bytes_printable(mu->before), *after = bytes_printable(mu->after);
                if (e->state[m] == M_SURVIVED)
                    printf(_("      %s:%d: %s survived (the checks pass)\n        - %s\n        + %s\n"), e->shown,
                           mu->line, mu->op, before, after);
                else
                    printf(_("      %s:%d: %s timed out twice (%.3g s, then %.3g s): not known to be killed; run "
                             "again on a quieter machine or with fewer --jobs\n        - %s\n        + %s\n"),
                           e->shown, mu->line, mu->op, e->timeout_s, e->retry_timeout_s, before, after);
                free(before);
                free(after);
            }
        }
        size_t i;
        json_t *n;
        json_array_foreach(notes, i, n) {
            char *note = i18n_message(json_string_value(n));
            printf("      %s: %s\n", e->ex->chunkname + 1, note);
            free(note);
        }
        fflush(stdout);
    }
    if (e->skipped) {
        json_decref(surv);
        json_decref(allowed);
        json_decref(slow);
        json_decref(notes);
        return;
    }
    json_t *row = json_pack("{s:o, s:o, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "exercise",
                            bytes_to_json(e->ex->id), "file", bytes_to_json(e->shown), "solution",
                            e->base == B_PASSED ? "pass" : "fail", "mutants", e->muts.n, "killed", killed, "survived",
                            survived, "invalid", invalid, "equivalent", equivalent, "undetected", undetected,
                            "timed_out", timed_out, "retried", e->retried, "not_run", not_run);
    json_object_update_new(row, json_pack("{s:o, s:o, s:o, s:o, s:s?, s:b}", "survivors", surv, "timed_out_mutants",
                                          slow, "allowed", allowed, "notes", notes, "solution_summary",
                                          e->base_summary, "ok", !bad));
    json_array_append_new(rows, row);
}

static void progress(bool tty, int done, int total, int survived, double t0, bool final) {
    if (tty) {
        fprintf(stderr, _("\rmutants: %d of %d runs, %d survived, %.0f s%s"), done, total, survived, now_s() - t0,
                final ? "\n" : "");
    } else {
        fprintf(stderr, _("mutants: %d of %d runs, %d survived, %.0f s\n"), done, total, survived, now_s() - t0);
    }
    fflush(stderr);
}

/* A private folder for the mutants' files under $TMPDIR (else /tmp); NULL
 * when it cannot be made. Caller frees (and removes). */
static char *mutants_tempdir(void) {
    const char *tmp = getenv("TMPDIR");
    char *dir = xasprintf("%s/cudojo-mutants-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir)) return dir;
    free(dir);
    return NULL;
}

int mutants_verify(Cli *cli, const Course *course, int jobs, bool run_allowed) {
    int n_ex = 0;
    for (int c = 0; c < course->n_chapters; c++) n_ex += course->chapters[c].n_exercises;
    ExState *exs = xcalloc((size_t)n_ex + 1, sizeof *exs);
    int total = 0, k = 0;
    Totals t = {0};
    for (int c = 0; c < course->n_chapters; c++)
        for (int i = 0; i < course->chapters[c].n_exercises; i++, k++) {
            ExState *e = &exs[k];
            e->ch = &course->chapters[c];
            e->ex = &e->ch->exercises[i];
            e->skipped = e->ex->needs_gpu;   /* mutants run on the emulator */
            char *why = NULL;
            if (!e->skipped && !ex_prepare(e, run_allowed, &why)) {
                e->base = B_FAILED;
                e->base_summary = why;
            }
            total += e->skipped ? 0 : 1 + e->left;
        }

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    if (jobs <= 0) jobs = (int)cores;
    if (jobs > 64) jobs = 64;
    char *dir = mutants_tempdir();
    if (!dir) {
        fprintf(stderr, _("verify --mutants: cannot make a temporary folder: %s\n"), strerror(errno));
        for (int i = 0; i < n_ex; i++) ex_fini(&exs[i]);
        free(exs);
        return 2;
    }
    /* Always the emulator: its checks are what makes a missing barrier or a stray read fail every time. */
    RunnerConfig cfg = {.backend = BACKEND_EMU,
                        .emu_threads = cli->emu_threads > 0 ? cli->emu_threads : (int)(cores / jobs > 1 ? cores / jobs : 1)};
    Slot *slots = xcalloc((size_t)jobs, sizeof *slots);
    for (int i = 0; i < jobs; i++) {
        slots[i].runner = runner_new(&cfg);
        slots[i].dir = xasprintf("%s/%d", dir, i);
        Diag *d = fs_mkdir_p(slots[i].dir);
        diag_free(&d);
    }
    bool tty = isatty(2);
    double t0 = now_s(), last = t0;
    int done = 0, printed = 0, chapter_shown = -1;
    json_t *rows = json_array();
    for (;;) {
        for (int i = 0; i < jobs; i++) {
            int r;
            while (!slots[i].busy && (r = slot_start(&slots[i], exs, n_ex)) != 0) done += r == 2;
        }
        struct pollfd fds[64];
        int nf = 0;
        for (int i = 0; i < jobs; i++)
            if (slots[i].busy) fds[nf++] = (struct pollfd){.fd = runner_fd(slots[i].runner), .events = POLLIN};
        if (nf > 0) poll(fds, (nfds_t)nf, 100);
        for (int i = 0; i < jobs; i++) {
            if (!slots[i].busy) continue;
            RunResult *res = NULL;
            if (runner_poll(slots[i].runner, 0, &res) != RUNNER_DONE) continue;
            total += slot_finish(&slots[i], exs, res);   /* a retry is one run more */
            run_result_free(&res);
            done++;
        }
        /* Report exercises in course order as they finish. */
        while (printed < n_ex && ex_done(&exs[printed])) {
            const ExState *e = &exs[printed];
            int c = (int)(e->ch - course->chapters);
            if (c != chapter_shown && !cli->json) {
                char *title = bytes_printable(cli_chapter_title(e->ch));
                if (tty) fprintf(stderr, "\r\033[K");
                printf("%s (%s)\n", title, e->ch->rel_dir);
                free(title);
                chapter_shown = c;
            }
            if (tty && !cli->json) fprintf(stderr, "\r\033[K");
            ex_report(cli, e, &t, rows);
            printed++;
        }
        bool busy = false;
        for (int i = 0; i < jobs; i++) busy |= slots[i].busy;
        if (printed == n_ex && !busy) break;
        if (now_s() - last >= (tty ? 0.5 : 10.0)) {
            progress(tty, done, total, t.survived, t0, false);
            last = now_s();
        }
    }
    progress(tty, done, total, t.survived, t0, true);
    for (int i = 0; i < jobs; i++) {
        runner_free(&slots[i].runner);
        if (slots[i].file) unlink(slots[i].file);
        rmdir(slots[i].dir);
        free(slots[i].file);
        free(slots[i].dir);
    }
    free(slots);
    rmdir(dir);
    free(dir);
    int status = t.survived == 0 && t.problems == 0 ? 0 : 1;
    if (cli->json) {
        cli_print_json(json_pack("{s:o, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b}", "exercises", rows,
                                 "n_exercises", t.exercises, "mutants", t.mutants, "killed", t.killed, "survived",
                                 t.survived, "invalid", t.invalid, "equivalent", t.equivalent, "undetected",
                                 t.undetected, "timed_out", t.timed_out, "not_run", t.not_run, "problems", t.problems,
                                 "passed", status == 0));
    } else {
        json_decref(rows);
        printf(_("\n%d exercises, %d mutants: %d killed, %d survived, %d invalid (do not compile), %d equivalent "
                 "(mutants_equivalent), %d undetected (mutants_undetected)%s\n"),
               t.exercises, t.mutants, t.killed, t.survived, t.invalid, t.equivalent, t.undetected,
               t.problems ? _("; and problems above") : "");
        if (t.timed_out) printf(_("%d timed out twice: not known to be killed (above)\n"), t.timed_out);
        if (t.not_run) printf(_("%d allowed by their exercise were not run (--run-allowed runs them)\n"), t.not_run);
    }
    for (int i = 0; i < n_ex; i++) ex_fini(&exs[i]);
    free(exs);
    return status;
}
