/* app/mutants_run.c: the driver of `cudojo verify --mutants` (app/mutants.h):
 * runs each exercise's solution, then its mutants, `jobs` runs at a time in
 * emulator workers, and reports the mutants its checks let pass. */
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
 * exercise's whole timeout; a timeout kills it either way). */
#define MUTANT_TIMEOUT_FACTOR 8.0
#define MUTANT_MIN_TIMEOUT_S 5.0

typedef enum MState { M_PENDING, M_RUNNING, M_KILLED, M_SURVIVED, M_INVALID, M_EQUIVALENT } MState;
typedef enum BState { B_PENDING, B_RUNNING, B_PASSED, B_FAILED } BState;

typedef struct ExState {
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    char *path, *shown;         /* the solution: absolute, as messages name it */
    MutantList muts;
    MState *state;
    int *allowed_by;            /* index of the mutants_equivalent entry naming it, -1 */
    BState base;
    char *base_summary;         /* why the solution failed */
    double timeout_s;
    int left;                   /* mutants not finished */
    int timeouts;               /* mutants killed by the time limit (a loop that never ends, or a slow machine) */
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
    int exercises, mutants, killed, survived, invalid, equivalent, undetected, problems;
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
    free(e->base_summary);
}

/* Reads the solution and makes its mutants; false (with *why) when it cannot be read. */
static bool ex_prepare(ExState *e, char **why) {
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
    for (int m = 0; m < e->muts.n; m++) {
        e->allowed_by[m] = -1;
        for (int k = 0; k < e->ex->n_equivalent && e->allowed_by[m] < 0; k++)
            if (mutants_entry_matches(&e->ex->equivalent[k], &e->muts.v[m])) e->allowed_by[m] = k;
    }
    e->left = e->muts.n;
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
                          .timeout_s = m < 0 ? e->ex->timeout_s : e->timeout_s};
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

/* Takes a finished run's result. */
static void slot_finish(Slot *s, ExState *exs, RunResult *res) {
    ExState *e = &exs[s->ex];
    s->busy = false;
    if (s->m < 0) {
        if (res->verdict == VERDICT_PASS) {
            e->base = B_PASSED;
            double t = MUTANT_TIMEOUT_FACTOR * res->duration_ms / 1000.0;
            e->timeout_s = t < MUTANT_MIN_TIMEOUT_S ? MUTANT_MIN_TIMEOUT_S : t;
            if (e->timeout_s > e->ex->timeout_s) e->timeout_s = e->ex->timeout_s;
        } else {
            e->base = B_FAILED;
            e->base_summary = xasprintf("%s: %s", verdict_name(res->verdict), res->summary ? res->summary : "");
        }
        return;
    }
    int m = s->m;
    if (res->verdict == VERDICT_COMPILE_ERROR) e->state[m] = M_INVALID;
    else if (res->verdict != VERDICT_PASS) e->state[m] = M_KILLED;
    else e->state[m] = e->allowed_by[m] >= 0 ? M_EQUIVALENT : M_SURVIVED;
    e->timeouts += res->verdict == VERDICT_TIMEOUT;
    e->left--;
}

static bool ex_done(const ExState *e) {
    return e->skipped || e->base == B_FAILED || (e->base == B_PASSED && e->left == 0);
}

/* One exercise's report: a line, then each survivor, failed solution or stale allowance. */
static void ex_report(const Cli *cli, const ExState *e, Totals *t, json_t *rows) {
    int killed = 0, survived = 0, invalid = 0, equivalent = 0, undetected = 0;
    for (int m = 0; m < e->muts.n; m++) {
        killed += e->state[m] == M_KILLED;
        survived += e->state[m] == M_SURVIVED;
        invalid += e->state[m] == M_INVALID;
        if (e->state[m] == M_EQUIVALENT) {
            if (e->ex->equivalent[e->allowed_by[m]].undetected) undetected++;
            else equivalent++;
        }
    }
    /* An allowance no mutant matches is stale (the solution changed); one
       whose every mutant is killed is not needed. */
    int stale = 0;
    json_t *notes = json_array();
    for (int k = 0; e->base == B_PASSED && k < e->ex->n_equivalent; k++) {
        int matched = 0, passed = 0;
        for (int m = 0; m < e->muts.n; m++)    /* every mutant it names, also those an earlier entry names */
            if (mutants_entry_matches(&e->ex->equivalent[k], &e->muts.v[m])) {
                matched++;
                passed += e->state[m] == M_EQUIVALENT;
            }
        const MutantEquivalent *q = &e->ex->equivalent[k];
        const char *field = q->undetected ? "mutants_undetected" : "mutants_equivalent";
        int nth = 1;    /* its number in its own list */
        for (int j = 0; j < k; j++) nth += e->ex->equivalent[j].undetected == q->undetected;
        if (!matched) {
            stale++;
            json_array_append_new(notes, json_sprintf(N_("%s[%d] (%s at \"%s\") names no mutant of the solution: remove "
                                                         "it or say the line as it is now"), field, nth, q->op, q->line));
        } else if (!passed) {
            json_array_append_new(notes, json_sprintf(N_("%s[%d] (%s at \"%s\"): the checks kill every mutant it names, "
                                                         "so it is not needed"), field, nth, q->op, q->line));
        }
    }
    bool bad = e->base == B_FAILED || survived > 0 || stale > 0;
    if (!e->skipped) {
        t->exercises++;
        t->mutants += e->muts.n;
        t->killed += killed;
        t->survived += survived;
        t->invalid += invalid;
        t->equivalent += equivalent;
        t->undetected += undetected;
        t->problems += (e->base == B_FAILED) + stale;
    }
    json_t *surv = json_array(), *allowed = json_array();
    for (int m = 0; m < e->muts.n; m++) {
        if (e->state[m] != M_SURVIVED && e->state[m] != M_EQUIVALENT) continue;
        const Mutant *mu = &e->muts.v[m];
        json_t *o = json_pack("{s:i, s:s, s:o, s:o}", "line", mu->line, "mutation", mu->op, "before",
                              bytes_to_json(mu->before), "after", bytes_to_json(mu->after));
        if (e->state[m] == M_EQUIVALENT) {
            const MutantEquivalent *q = &e->ex->equivalent[e->allowed_by[m]];
            json_object_set_new(o, "why", json_string(q->why));
            json_object_set_new(o, "undetected", json_boolean(q->undetected));
        }
        json_array_append_new(e->state[m] == M_SURVIVED ? surv : allowed, o);
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
            printf("\n");
            for (int m = 0; m < e->muts.n; m++) {
                if (e->state[m] != M_SURVIVED) continue;
                const Mutant *mu = &e->muts.v[m];
                char *before = bytes_printable(mu->before), *after = bytes_printable(mu->after);
                printf(_("      %s:%d: %s survived (the checks pass)\n        - %s\n        + %s\n"), e->shown, mu->line,
                       mu->op, before, after);
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
        json_decref(notes);
        return;
    }
    json_array_append_new(rows, json_pack("{s:o, s:o, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:s?, s:b}",
                                          "exercise", bytes_to_json(e->ex->id), "file", bytes_to_json(e->shown),
                                          "solution", e->base == B_PASSED ? "pass" : "fail", "mutants", e->muts.n,
                                          "killed", killed, "survived", survived, "invalid", invalid, "equivalent",
                                          equivalent, "undetected", undetected, "timeouts", e->timeouts, "survivors", surv, "allowed", allowed, "notes", notes,
                                          "solution_summary", e->base_summary, "ok", !bad));
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

int mutants_verify(Cli *cli, const Course *course, int jobs) {
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
            if (!e->skipped && !ex_prepare(e, &why)) {
                e->base = B_FAILED;
                e->base_summary = why;
            }
            total += e->skipped ? 0 : 1 + e->muts.n;
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
            slot_finish(&slots[i], exs, res);
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
        cli_print_json(json_pack("{s:o, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b}", "exercises", rows,
                                 "n_exercises", t.exercises, "mutants", t.mutants, "killed", t.killed, "survived",
                                 t.survived, "invalid", t.invalid, "equivalent", t.equivalent, "undetected",
                                 t.undetected, "problems", t.problems, "passed", status == 0));
    } else {
        json_decref(rows);
        printf(_("\n%d exercises, %d mutants: %d killed, %d survived, %d invalid (do not compile), %d equivalent "
                 "(mutants_equivalent), %d undetected (mutants_undetected)%s\n"),
               t.exercises, t.mutants, t.killed, t.survived, t.invalid, t.equivalent, t.undetected,
               t.problems ? _("; and problems above") : "");
    }
    for (int i = 0; i < n_ex; i++) ex_fini(&exs[i]);
    free(exs);
    return status;
}
