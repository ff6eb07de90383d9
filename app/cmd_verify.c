/* app/cmd_verify.c: `cudojo verify [LESSON_DIR...]` for authors: every
 * solution passes, every starter and wrong variant fails.
 *
 * Every file to run is a row, in course order; --jobs N runs N rows at once,
 * each slot with its own worker (and its own emulator worker for second
 * opinions), and prints each row's report once every row before it has
 * printed, so the output reads as the serial run's. On a GPU the slots take
 * turns for timed work through the GPU lock (kernels/gpu_lock.h): a private
 * lock folder for this run when CUDOJO_GPU_LOCK_DIR is unset. */
#include <assert.h>
#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/attempt.h"
#include "app/cli.h"
#include "app/grade.h"
#include "app/mutants.h"
#include "app/cmd_common.h"
#include "app/workspace.h"
#include "base/bytes.h"
#include "base/number.h"
#include "base/strbuf.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"

#define VERIFY_MAX_JOBS 64

typedef enum Role { ROLE_SOLUTION, ROLE_STARTER, ROLE_WRONG } Role;

static const char *role_name(Role r) {
    return r == ROLE_SOLUTION ? N_("solution") : r == ROLE_STARTER ? N_("starter") : N_("wrong");
}

/* Whether a verdict is what the author promised for this kind of file. A
 * bug hunt's starter is a buggy program (`bug_hunt = true`): like a wrong
 * variant it may also end in a runtime error or a hang. */
static bool verdict_ok(Role role, bool bug_hunt, Verdict v) {
    if (role == ROLE_SOLUTION) return v == VERDICT_PASS;
    if (role == ROLE_STARTER && !bug_hunt) return v == VERDICT_FAIL;   /* compiles, runs, fails a check */
    return v == VERDICT_FAIL || v == VERDICT_RUNTIME_ERROR || v == VERDICT_TIMEOUT;
}

static const char *expectation(Role role) {
    return role == ROLE_SOLUTION ? N_("must pass") : role == ROLE_STARTER ? N_("must compile and fail") : N_("must fail");
}

/* Where a row is: waiting for a slot, in its first run, in the emulator's
 * second opinion on a file a GPU let pass, in the emulator run that looks
 * for a bug hunt's named bug, or reported. */
typedef enum Step { STEP_WAITING, STEP_RUN, STEP_LUCK, STEP_BUG, STEP_DONE } Step;

/* One line of the report: a file to run (ex != NULL), or text that needs no
 * run (a chapter's title, an exercise skipped or moved to the emulator). */
typedef struct VerifyRow {
    const ChapterMeta *ch;
    const ExerciseMeta *ex;
    Role role;
    char *path, *shown;         /* the file: absolute, as messages name it */
    bool on_emu;                /* an exercise for more GPUs than this machine has */
    Step step;
    RunResult *res;             /* the first run's (its summary replaced by what decided the row) */
    const char *note;
    bool ok;
    char *text;                 /* what is printed in its turn */
    json_t *json;               /* its entry of --json's results */
} VerifyRow;

typedef struct VerifySlot {
    Runner *runner, *emu_runner;    /* the emulator's started on first use */
    int row;                        /* the row in flight, -1 when free */
} VerifySlot;

typedef struct VerifyCtx {
    Cli *cli;
    Cli slot_cli;               /* the options each slot's workers get */
    VerifyRow *rows;
    int n_rows, cap_rows;
    int ok, bad, skipped, runs, done;
} VerifyCtx;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static VerifyRow *verify_add_row(VerifyCtx *vc) {
    if (vc->n_rows == vc->cap_rows) {
        vc->cap_rows = vc->cap_rows ? 2 * vc->cap_rows : 64;
        vc->rows = xrealloc(vc->rows, (size_t)vc->cap_rows * sizeof *vc->rows);
    }
    VerifyRow *r = &vc->rows[vc->n_rows++];
    memset(r, 0, sizeof *r);
    return r;
}

/* A line of text in the report's order (nothing under --json, where such lines are not shown). */
static void verify_add_text(VerifyCtx *vc, char *text) {
    if (vc->cli->json) {
        free(text);
        return;
    }
    VerifyRow *r = verify_add_row(vc);
    r->text = text;
    r->step = STEP_DONE;
}

static void verify_add_file(VerifyCtx *vc, const ChapterMeta *ch, const ExerciseMeta *ex, Role role, const char *rel,
                            bool on_emu) {
    VerifyRow *r = verify_add_row(vc);
    *r = (VerifyRow){.ch = ch, .ex = ex, .role = role, .path = path_join(ch->dir, rel),
                     .shown = xasprintf("%s/%s", ch->rel_dir, rel), .on_emu = on_emu};
    vc->runs++;
}

/* The rows of the whole course, in the order the report prints them. */
static void verify_plan(VerifyCtx *vc, const Course *course) {
    int gpus = -1;              /* GPUs of this machine, asked once when an exercise wants several */
    const Cli *cli = vc->cli;
    for (int c = 0; c < course->n_chapters; c++) {
        const ChapterMeta *ch = &course->chapters[c];
        char *title = bytes_printable(cli_chapter_title(ch));   /* a course pack's text: no control sequences */
        verify_add_text(vc, xasprintf("%s (%s)\n", title, ch->rel_dir));
        free(title);
        for (int e = 0; e < ch->n_exercises; e++) {
            const ExerciseMeta *ex = &ch->exercises[e];
            if (ex->needs_gpu && cli->backend == BACKEND_EMU) {
                vc->skipped++;
                verify_add_text(vc, xasprintf(_("  - %-20s skipped: needs a GPU\n"), ex->id));
                continue;
            }
            /* An exercise about several GPUs means nothing on a machine with
             * fewer (its starter "passes" on one): check it on the emulator,
             * which emulates the devices, and say so. */
            bool on_emu = false;
            if (ex->gpus > 1 && cli->backend != BACKEND_EMU) {
                if (gpus < 0) gpus = backend_gpu_count();
                if (gpus >= 1 && gpus < ex->gpus) {
                    on_emu = true;
                    verify_add_text(vc, xasprintf(_("  - %-20s needs %d GPUs, this machine has %d: verified on the "
                                                    "emulator\n"), ex->id, ex->gpus, gpus));
                }
            }
            verify_add_file(vc, ch, ex, ROLE_SOLUTION, ex->solution, on_emu);
            verify_add_file(vc, ch, ex, ROLE_STARTER, ex->source, on_emu);
            for (int w = 0; w < ex->n_wrong; w++) verify_add_file(vc, ch, ex, ROLE_WRONG, ex->wrong[w], on_emu);
        }
    }
}

/* The kinds of failure an emulator run shows, as `bug = "..."` names them:
 * each finding's kind (out-of-bounds, race, barrier, uninitialised), a
 * refused launch (launch-error), a runtime error, and the run's failure
 * kind (wrong-result when only a check failed, timeout). Caller frees. */
static char *verify_kinds_shown(const RunResult *r, bool kernel_exercise) {
    StrBuf sb;
    strbuf_init(&sb);
    const char *fk = grade_failure_kind(r, kernel_exercise);
    if (fk) strbuf_printf(&sb, " %s ", fk);
    if (r->verdict == VERDICT_RUNTIME_ERROR) strbuf_printf(&sb, " %s ", "runtime-error");   /* a kind's name */
    for (const Diag *d = r->diags; d; d = d->next) {
        if (d->severity != DIAG_ERROR) continue;
        const char *k = grade_finding_kind(d->code);
        if (!k && d->code && !strcmp(d->code, "launch")) k = "launch-error";
        if (!k) continue;
        char *word = xasprintf(" %s ", k);
        if (!strstr(sb.data ? sb.data : "", word)) strbuf_append(&sb, word);
        free(word);
    }
    char *s = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return s;
}

/* A bug hunt whose exercise names its bug (`bug = "race"`): the starter
 * must show it on the emulator, whatever a GPU did with it. NULL when the
 * emulator's run `on_emu` shows it, else why not (caller frees). */
static char *verify_bug_missing(const ExerciseMeta *ex, const RunResult *on_emu) {
    char *kinds = verify_kinds_shown(on_emu, !ex->program);
    char *want = xasprintf(" %s ", ex->bug);
    char *why = NULL;
    if (!strstr(kinds, want)) {
        /* the kinds as a list: "race, wrong-result" */
        StrBuf sb;
        strbuf_init(&sb);
        for (char *w = strtok(kinds, " "); w; w = strtok(NULL, " ")) strbuf_printf(&sb, "%s%s", sb.len ? ", " : "", w);
        why = xasprintf(N_("%s without the bug the exercise names (bug = \"%s\"): the emulator showed %s"),
                        verdict_name(on_emu->verdict), ex->bug, sb.len ? sb.data : N_("no finding"));
        strbuf_fini(&sb);
    }
    free(want);
    free(kinds);
    return why;
}

/* The row's report line (and why, when not as expected) and its --json entry. */
static void verify_report_row(VerifyCtx *vc, VerifyRow *r) {
    const Cli *cli = vc->cli;
    RunResult *res = r->res;
    if (r->ok) vc->ok++;
    else vc->bad++;
    r->json = json_pack("{s:o, s:s, s:o, s:s, s:b, s:o?, s:f, s:s?, s:s?}", "exercise", bytes_to_json(r->ex->id),
                        "role", role_name(r->role), "file", bytes_to_json(r->shown), "verdict",
                        verdict_name(res->verdict), "ok", r->ok, "summary", bytes_to_json(res->summary),
                        "duration_ms", res->duration_ms, "backend", res->backend, "note", r->note);
    if (cli->json) return;
    StrBuf sb;
    strbuf_init(&sb);
    const char *c_ok = cli->color ? "\033[32m" : "", *c_bad = cli->color ? "\033[1;31m" : "";
    const char *off = cli->color ? "\033[0m" : "";
    /* the verdict as --json names it, in Chinese in words */
    const char *verdict = i18n_chinese() ? verdict_words(res->verdict) : verdict_name(res->verdict);
    char role_col[64];
    strbuf_printf(&sb, "  %s%s%s %-20s %s %-44s %s (%.0f ms)%s%s\n", r->ok ? c_ok : c_bad, r->ok ? "✓" : "✗", off,
                  r->ex->id, i18n_pad(role_col, sizeof role_col, _(role_name(r->role)), 8, false), r->shown, verdict,
                  res->duration_ms, r->note ? " — " : "", r->note ? _(r->note) : "");
    if (!r->ok) {
        char *summary = i18n_message(res->summary ? res->summary : "");
        strbuf_printf(&sb, _("      %s, but it gave: %s\n"), _(expectation(r->role)), summary);
        free(summary);
        if (res->diags) {
            char *s = diag_format_all(res->diags, false);
            for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) strbuf_printf(&sb, "        %s\n", line);
            free(s);
        }
    }
    r->text = strbuf_steal(&sb);
    strbuf_fini(&sb);
}

static Runner *verify_slot_emu(VerifyCtx *vc, VerifySlot *s) {
    if (!s->emu_runner) {
        Cli emu_cli = vc->slot_cli;
        emu_cli.backend = BACKEND_EMU;
        s->emu_runner = attempt_runner_new(&emu_cli);
    }
    return s->emu_runner;
}

/* The runner the slot's row uses in its step. */
static Runner *verify_step_runner(VerifyCtx *vc, VerifySlot *s, const VerifyRow *r) {
    return r->step == STEP_RUN && !r->on_emu ? s->runner : verify_slot_emu(vc, s);
}

static void verify_row_next(VerifyCtx *vc, VerifySlot *s, RunResult *got);

/* Starts the row's current step in the slot; a run that cannot start ends
 * at once as a crash saying why (what runner_run does). */
static void verify_step_start(VerifyCtx *vc, VerifySlot *s) {
    VerifyRow *r = &vc->rows[s->row];
    RunRequest req = {.exercise_id = r->ex->id, .chapter_dir = r->ch->dir, .chapter_shown = r->ch->rel_dir,
                      .cu_path = r->path, .cu_display = r->shown,
                      .timeout_s = r->ex->timeout_s};
    Diag *d = runner_start(verify_step_runner(vc, s, r), &req);
    if (!d) return;
    RunResult *res = run_result_new(VERDICT_CRASH);
    res->exercise_id = xstrdup(r->ex->id);
    res->summary = xstrdup(d->message);
    res->diags = d;
    verify_row_next(vc, s, res);
}

/* Takes the result of the row's step (owned from here on) and goes on: a
 * file a GPU let pass gets the emulator's second opinion (a race or a stray
 * read is undefined behaviour that real hardware often lets pass; the
 * emulator catching it counts as caught), a bug hunt's starter must show
 * its named bug on the emulator; else the row is reported and the slot is
 * free. */
static void verify_row_next(VerifyCtx *vc, VerifySlot *s, RunResult *got) {
    VerifyRow *r = &vc->rows[s->row];
    const ExerciseMeta *ex = r->ex;
    const RunResult *emu_run = NULL;    /* an emulator run of the file, to look for a bug hunt's bug in */
    switch (r->step) {
    case STEP_RUN: {
        r->res = got;
        r->ok = verdict_ok(r->role, ex->bug_hunt, got->verdict);
        bool may_luck = r->role == ROLE_WRONG || (r->role == ROLE_STARTER && ex->bug_hunt);
        if (!r->ok && may_luck && got->backend && !strcmp(got->backend, "cuda")) {
            r->step = STEP_LUCK;
            verify_step_start(vc, s);
            return;
        }
        if (got->backend && !strcmp(got->backend, "emu")) emu_run = got;
        break;
    }
    case STEP_LUCK:
        if (verdict_ok(r->role, ex->bug_hunt, got->verdict)) {
            r->ok = true;
            r->note = N_("passes on this GPU by luck; the emulator catches it");
            free(r->res->summary);
            r->res->summary = xstrdup(got->summary);
        }
        emu_run = got;   /* what a bug hunt's starter shows, without running it again */
        break;
    case STEP_BUG:
        emu_run = got;
        break;
    default:
        assert(!"a row in flight has a step");
    }
    bool bug_to_show = r->ok && r->role == ROLE_STARTER && ex->bug;
    if (bug_to_show && !emu_run) {
        r->step = STEP_BUG;
        verify_step_start(vc, s);
        return;
    }
    char *no_bug = bug_to_show ? verify_bug_missing(ex, emu_run) : NULL;
    if (no_bug) {
        r->ok = false;
        free(r->res->summary);
        r->res->summary = no_bug;
    }
    if (r->step != STEP_RUN) run_result_free(&got);   /* the emulator's second run */
    verify_report_row(vc, r);
    run_result_free(&r->res);
    r->step = STEP_DONE;
    s->row = -1;
    vc->done++;
}

static void verify_progress(const VerifyCtx *vc, double t0, bool final) {
    fprintf(stderr, _("\rverify: %d of %d runs, %d not as expected, %.0f s%s"), vc->done, vc->runs, vc->bad,
            now_s() - t0, final ? "\n" : "\033[K");
    fflush(stderr);
}

/* Runs every row, `jobs` at once, printing (or keeping for --json) each
 * row's report in order as soon as every row before it is reported. */
static void verify_run_rows(VerifyCtx *vc, int jobs, json_t *results) {
    VerifySlot *slots = xcalloc((size_t)jobs, sizeof *slots);
    for (int i = 0; i < jobs; i++) {
        slots[i].runner = attempt_runner_new(&vc->slot_cli);
        slots[i].row = -1;
    }
    bool progress = jobs > 1 && isatty(2);
    double t0 = now_s(), shown_at = 0;
    int next = 0, printed = 0;
    for (;;) {
        for (; printed < vc->n_rows && vc->rows[printed].step == STEP_DONE; printed++) {
            VerifyRow *r = &vc->rows[printed];
            if (r->text) {
                if (progress) fputs("\r\033[K", stderr);
                fputs(r->text, stdout);
                fflush(stdout);
            }
            if (r->json) json_array_append_new(results, r->json);
            r->json = NULL;
        }
        for (int i = 0; i < jobs; i++) {
            while (slots[i].row < 0) {
                while (next < vc->n_rows && vc->rows[next].step != STEP_WAITING) next++;
                if (next == vc->n_rows) break;
                slots[i].row = next;
                vc->rows[next].step = STEP_RUN;
                verify_step_start(vc, &slots[i]);
            }
        }
        struct pollfd fds[VERIFY_MAX_JOBS];
        int nf = 0;
        for (int i = 0; i < jobs; i++)
            if (slots[i].row >= 0) fds[nf++] = (struct pollfd){.fd = runner_fd(verify_step_runner(vc, &slots[i], &vc->rows[slots[i].row])), .events = POLLIN};
        if (nf == 0 && printed == vc->n_rows) break;
        poll(fds, (nfds_t)nf, 100);
        for (int i = 0; i < jobs; i++) {
            if (slots[i].row < 0) continue;
            RunResult *res = NULL;
            if (runner_poll(verify_step_runner(vc, &slots[i], &vc->rows[slots[i].row]), 0, &res) == RUNNER_DONE)
                verify_row_next(vc, &slots[i], res);
        }
        if (progress && now_s() - shown_at >= 0.5) {
            verify_progress(vc, t0, false);
            shown_at = now_s();
        }
    }
    if (progress) verify_progress(vc, t0, true);
    for (int i = 0; i < jobs; i++) {
        runner_free(&slots[i].runner);
        runner_free(&slots[i].emu_runner);
    }
    free(slots);
}

/* Whether runs will be on a GPU (as `cudojo grade` decides it). */
static bool verify_have_gpu(const Cli *cli) {
    return cli->backend == BACKEND_CUDA ||
           (cli->backend == BACKEND_AUTO && fs_exists("/dev/nvidiactl") && fs_exists("/dev/nvidia0"));
}

/* A private GPU lock folder for this run's workers (CUDOJO_GPU_LOCK_DIR set
 * to it); NULL when one is set already or none can be made. Caller frees
 * (verify_lock_dir_remove). */
static char *verify_lock_dir_new(void) {
    if (getenv("CUDOJO_GPU_LOCK_DIR")) return NULL;
    const char *tmp = getenv("TMPDIR");
    char *dir = xasprintf("%s/cudojo-verify-locks-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, _("verify: cannot make a GPU lock folder (%s): timed runs may overlap\n"), dir);
        free(dir);
        return NULL;
    }
    setenv("CUDOJO_GPU_LOCK_DIR", dir, 1);
    return dir;
}

/* Removes the private lock folder and its lock files. */
static void verify_lock_dir_remove(char **dir) {
    if (!*dir) return;
    DIR *d = opendir(*dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *p = path_join(*dir, e->d_name);
        unlink(p);
        free(p);
    }
    if (d) closedir(d);
    rmdir(*dir);
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    XFREE(*dir);
}

/* --jobs N, -j N, --jobs=N: N from 1 to 64, 0 or auto for the cores. */
static Diag *verify_parse_jobs(const char *v, int *jobs) {
    long long n = 0;
    if (strcmp(v, "auto") && !number_whole(v, 0, VERIFY_MAX_JOBS, &n))
        return diag_error("usage", _("--jobs %s: a number of runs at once from 1 to 64, or 0 or auto for the cores"), v);
    *jobs = (int)n;
    return NULL;
}

int cmd_verify(Cli *cli, int argc, char **argv) {
    Course *course = NULL;
    Diag *d;
    /* --mutants, --run-allowed and --jobs N come out of argv; what is left are the folders. */
    bool mutants = false, run_allowed = false;
    int jobs = -1, kept = 1;    /* -1: not given (verify: one at a time; --mutants: the cores) */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mutants")) {
            mutants = true;
        } else if (!strcmp(argv[i], "--run-allowed")) {
            run_allowed = true;
        } else if (!strcmp(argv[i], "--jobs") || !strcmp(argv[i], "-j") || !strncmp(argv[i], "--jobs=", 7)) {
            const char *v = !strncmp(argv[i], "--jobs=", 7) ? argv[i] + 7 : i + 1 < argc ? argv[++i] : "";
            d = verify_parse_jobs(v, &jobs);
            if (d) return cli_fail(d);
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    /* Messages name the pack's files by their real paths (rel_dir), wherever the pack lives. */
    if (argc > 1) {
        char **shown = xcalloc((size_t)argc, sizeof *shown);
        for (int i = 1; i < argc; i++) shown[i - 1] = cmd_path_shown(argv[i]);
        d = course_load_dirs_as((const char *const *)argv + 1, (const char *const *)shown, argc - 1, &course);
        for (int i = 1; i < argc; i++) free(shown[i - 1]);
        free(shown);
    } else {
        char *root = lessons_find_root(cli->lessons_arg, NULL, &d);
        if (!root) return cli_fail(d);
        char *shown = cmd_path_shown(root);
        d = course_load_as(root, shown, &course);
        free(shown);
        free(root);
    }
    int load_errors = diag_count_errors(d);
    if (d) cli_print_diags(d);
    diag_free(&d);
    if (!course) return 2;
    if (mutants) {
        int st = mutants_verify(cli, course, jobs < 0 ? 0 : jobs, run_allowed);
        course_free(&course);
        return st || load_errors ? 1 : 0;
    }
    VerifyCtx vc = {.cli = cli, .slot_cli = *cli};
    verify_plan(&vc, course);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs == 0) jobs = cores > VERIFY_MAX_JOBS ? VERIFY_MAX_JOBS : cores > 1 ? (int)cores : 1;
    if (jobs < 0 || vc.runs == 0) jobs = 1;
    if (jobs > vc.runs) jobs = vc.runs;
    char *lock_dir = NULL;
    if (jobs > 1) {
        /* the emulator's threads shared out among the slots */
        if (cli->emu_threads <= 0) vc.slot_cli.emu_threads = cores / jobs > 1 ? (int)(cores / jobs) : 1;
        /* waiting for the others' timed sections is never a timeout: the
           runner leaves the waits for the lock out (app/runner.c) */
        if (verify_have_gpu(cli)) lock_dir = verify_lock_dir_new();
    }
    json_t *results = json_array();
    verify_run_rows(&vc, jobs, results);
    verify_lock_dir_remove(&lock_dir);
    int status = vc.bad == 0 && load_errors == 0 ? 0 : 1;
    if (cli->json) {
        cli_print_json(json_pack("{s:o, s:i, s:i, s:i, s:i, s:b}", "results", results, "ok", vc.ok, "failed", vc.bad,
                                 "skipped", vc.skipped, "load_errors", load_errors, "passed", status == 0));
    } else {
        json_decref(results);
        printf(_("\n%d as expected, %d not, %d skipped%s\n"), vc.ok, vc.bad, vc.skipped,
               load_errors ? _(" (and the course has loading errors, above)") : "");
    }
    for (int i = 0; i < vc.n_rows; i++) {
        free(vc.rows[i].path);
        free(vc.rows[i].shown);
        free(vc.rows[i].text);
    }
    free(vc.rows);
    course_free(&course);
    return status;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_VERIFY = {"verify", "[--jobs N] [--mutants [--run-allowed]] [LESSON_DIR...]", N_("authors: every solution passes, every starter and wrong variant fails"),
    N_("For each exercise of the chapters given (default: the whole course), runs the\n"
    "solution (must pass), the starter (must fail) and every wrong variant (must\n"
    "fail). Exit status 0 when everything behaves. On a GPU, a wrong variant that\n"
    "the hardware lets pass (a race, a stray read: undefined behaviour) counts as\n"
    "caught when the emulator catches it, and says so.\n"
    "\n"
    "  --jobs N, -j N runs at once, each in its own worker (default: 1; with\n"
    "                 --mutants: the cores; 0 or auto: the cores). The report\n"
    "                 keeps the course's order, a row printed once all before it\n"
    "                 are; progress on stderr when it is a terminal. On a GPU,\n"
    "                 timed work takes turns (the GPU lock in CUDOJO_GPU_LOCK_DIR,\n"
    "                 a private one for this run when it is unset) and a run's\n"
    "                 time limit is N times the exercise's, for its waits\n"
    "  --mutants      check the checks instead: run each solution, then mutants of it\n"
    "                 on the emulator (each __syncthreads()/__syncwarp()/g.sync()\n"
    "                 dropped, each if guard weakened (< to <=, >= to >) or dropped,\n"
    "                 each loop bound moved by one, threadIdx/blockIdx .x and .y\n"
    "                 swapped, an atomic made a plain read-modify-write, a program's\n"
    "                 cudaDeviceSynchronize()/cudaStreamSynchronize() dropped). A\n"
    "                 mutant that passes survived: a hole in the exercise's checks,\n"
    "                 unless the exercise allows it (mutants_equivalent or\n"
    "                 mutants_undetected: those are not run). A mutant that does\n"
    "                 not compile is invalid; one that runs out of time runs once\n"
    "                 more with a longer limit, and out of time again it timed out:\n"
    "                 not known to be killed. Exit status 1 when any survive or\n"
    "                 time out; progress on stderr.\n"
    "  --run-allowed  with --mutants: run the allowed mutants too, and say which\n"
    "                 allowances the checks no longer need\n"),
    cmd_verify};
