/* app/cmd_verify.c: `cudojo verify [LESSON_DIR...]` for authors: every
 * solution passes, every starter and wrong variant fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/attempt.h"
#include "app/cli.h"
#include "app/grade.h"
#include "app/mutants.h"
#include "app/cmd_common.h"
#include "app/workspace.h"
#include "base/bytes.h"
#include "base/strbuf.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"

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

typedef struct VerifyCtx {
    Cli *cli;
    int gpus;                   /* GPUs of this machine, -1 until asked */
    Runner *runner;
    Runner *emu_runner;         /* second opinion for wrong variants a GPU lets through */
    json_t *rows;
    int ok, bad, skipped;
} VerifyCtx;

/* The emulator runner, started on first use. */
static Runner *verify_emu_runner(VerifyCtx *vc) {
    if (!vc->emu_runner) {
        Cli emu_cli = *vc->cli;
        emu_cli.backend = BACKEND_EMU;
        vc->emu_runner = attempt_runner_new(&emu_cli);
    }
    return vc->emu_runner;
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
 * must show it on the emulator, whatever a GPU did with it. NULL when it
 * does, else why not (caller frees). */
static char *verify_bug_shown(VerifyCtx *vc, const ExerciseMeta *ex, const RunRequest *req, const RunResult *res) {
    RunResult *emu = NULL;
    if (!res->backend || strcmp(res->backend, "emu")) emu = runner_run(verify_emu_runner(vc), req, NULL);
    const RunResult *on_emu = emu ? emu : res;
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
    run_result_free(&emu);
    return why;
}

static void verify_one(VerifyCtx *vc, const ChapterMeta *ch, const ExerciseMeta *ex, Role role, const char *rel) {
    char *path = path_join(ch->dir, rel);
    char *shown = xasprintf("%s/%s", ch->rel_dir, rel);
    RunRequest req = {.exercise_id = ex->id, .chapter_dir = ch->dir, .chapter_shown = ch->rel_dir, .cu_path = path,
                      .cu_display = shown, .timeout_s = ex->timeout_s};
    RunResult *res = runner_run(vc->runner, &req, NULL);
    bool ok = verdict_ok(role, ex->bug_hunt, res->verdict);
    const char *note = NULL;
    /* A race or an out-of-bounds read is undefined behaviour: real hardware
       often lets it pass. The emulator's checks catch it; that is the point of
       teaching with it, so a wrong variant it catches counts as caught; so
       does a bug hunt's starter (the bug the learner is to find). */
    bool may_luck = role == ROLE_WRONG || (role == ROLE_STARTER && ex->bug_hunt);
    if (!ok && may_luck && res->backend && !strcmp(res->backend, "cuda")) {
        RunResult *emu = runner_run(verify_emu_runner(vc), &req, NULL);
        if (verdict_ok(role, ex->bug_hunt, emu->verdict)) {
            ok = true;
            note = N_("passes on this GPU by luck; the emulator catches it");
            free(res->summary);
            res->summary = xstrdup(emu->summary);
        }
        run_result_free(&emu);
    }
    char *no_bug = ok && role == ROLE_STARTER && ex->bug ? verify_bug_shown(vc, ex, &req, res) : NULL;
    if (no_bug) {
        ok = false;
        free(res->summary);
        res->summary = no_bug;
    }
    if (ok) vc->ok++;
    else vc->bad++;
    json_array_append_new(vc->rows, json_pack("{s:o, s:s, s:o, s:s, s:b, s:o?, s:f, s:s?, s:s?}", "exercise",
                                              bytes_to_json(ex->id), "role", role_name(role), "file",
                                              bytes_to_json(shown), "verdict", verdict_name(res->verdict), "ok", ok,
                                              "summary", bytes_to_json(res->summary), "duration_ms", res->duration_ms,
                                              "backend", res->backend, "note", note));
    if (!vc->cli->json) {
        const char *c_ok = vc->cli->color ? "\033[32m" : "", *c_bad = vc->cli->color ? "\033[1;31m" : "";
        const char *off = vc->cli->color ? "\033[0m" : "";
        /* the verdict as --json names it, in Chinese in words */
        const char *verdict = i18n_chinese() ? verdict_words(res->verdict) : verdict_name(res->verdict);
        char role_col[64];
        printf("  %s%s%s %-20s %s %-44s %s (%.0f ms)%s%s\n", ok ? c_ok : c_bad, ok ? "✓" : "✗", off, ex->id,
               i18n_pad(role_col, sizeof role_col, _(role_name(role)), 8, false), shown, verdict, res->duration_ms,
               note ? " — " : "", note ? _(note) : "");
        if (!ok) {
            char *summary = i18n_message(res->summary ? res->summary : "");
            printf(_("      %s, but it gave: %s\n"), _(expectation(role)), summary);
            free(summary);
            if (res->diags) {
                char *s = diag_format_all(res->diags, false);
                for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) printf("        %s\n", line);
                free(s);
            }
        }
        fflush(stdout);
    }
    run_result_free(&res);
    free(shown);
    free(path);
}

int cmd_verify(Cli *cli, int argc, char **argv) {
    Course *course = NULL;
    Diag *d;
    /* --mutants, --run-allowed and --jobs N come out of argv; what is left are the folders. */
    bool mutants = false, run_allowed = false;
    int jobs = 0, kept = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mutants")) {
            mutants = true;
        } else if (!strcmp(argv[i], "--run-allowed")) {
            run_allowed = true;
        } else if (!strcmp(argv[i], "--jobs") || !strcmp(argv[i], "-j") || !strncmp(argv[i], "--jobs=", 7)) {
            const char *v = !strncmp(argv[i], "--jobs=", 7) ? argv[i] + 7 : i + 1 < argc ? argv[++i] : "";
            char *end;
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 1 || n > 64) return cli_fail(diag_error("usage", _("--jobs %s: a number of runs at once from 1 to 64"), v));
            jobs = (int)n;
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
        int st = mutants_verify(cli, course, jobs, run_allowed);
        course_free(&course);
        return st || load_errors ? 1 : 0;
    }
    VerifyCtx vc = {.cli = cli, .gpus = -1, .runner = attempt_runner_new(cli), .rows = json_array()};
    for (int c = 0; c < course->n_chapters; c++) {
        const ChapterMeta *ch = &course->chapters[c];
        char *title = bytes_printable(cli_chapter_title(ch));   /* a course pack's text: no control sequences */
        if (!cli->json) printf("%s (%s)\n", title, ch->rel_dir);
        free(title);
        for (int e = 0; e < ch->n_exercises; e++) {
            const ExerciseMeta *ex = &ch->exercises[e];
            if (ex->needs_gpu && cli->backend == BACKEND_EMU) {
                vc.skipped++;
                if (!cli->json) printf(_("  - %-20s skipped: needs a GPU\n"), ex->id);
                continue;
            }
            /* An exercise about several GPUs means nothing on a machine with
             * fewer (its starter "passes" on one): check it on the emulator,
             * which emulates the devices, and say so. */
            Runner *saved = vc.runner;
            if (ex->gpus > 1 && cli->backend != BACKEND_EMU) {
                if (vc.gpus < 0) vc.gpus = backend_gpu_count();
                if (vc.gpus >= 1 && vc.gpus < ex->gpus) {
                    if (!cli->json)
                        printf(_("  - %-20s needs %d GPUs, this machine has %d: verified on the emulator\n"), ex->id,
                               ex->gpus, vc.gpus);
                    if (!vc.emu_runner) {
                        Cli emu_cli = *cli;
                        emu_cli.backend = BACKEND_EMU;
                        vc.emu_runner = attempt_runner_new(&emu_cli);
                    }
                    vc.runner = vc.emu_runner;
                }
            }
            verify_one(&vc, ch, ex, ROLE_SOLUTION, ex->solution);
            verify_one(&vc, ch, ex, ROLE_STARTER, ex->source);
            for (int w = 0; w < ex->n_wrong; w++) verify_one(&vc, ch, ex, ROLE_WRONG, ex->wrong[w]);
            vc.runner = saved;
        }
    }
    int status = vc.bad == 0 && load_errors == 0 ? 0 : 1;
    if (cli->json) {
        cli_print_json(json_pack("{s:o, s:i, s:i, s:i, s:i, s:b}", "results", vc.rows, "ok", vc.ok, "failed",
                                 vc.bad, "skipped", vc.skipped, "load_errors", load_errors, "passed", status == 0));
    } else {
        json_decref(vc.rows);
        printf(_("\n%d as expected, %d not, %d skipped%s\n"), vc.ok, vc.bad, vc.skipped,
               load_errors ? _(" (and the course has loading errors, above)") : "");
    }
    runner_free(&vc.runner);
    runner_free(&vc.emu_runner);
    course_free(&course);
    return status;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_VERIFY = {"verify", "[--mutants [--run-allowed] [--jobs N]] [LESSON_DIR...]", N_("authors: every solution passes, every starter and wrong variant fails"),
    N_("For each exercise of the chapters given (default: the whole course), runs the\n"
    "solution (must pass), the starter (must fail) and every wrong variant (must\n"
    "fail). Exit status 0 when everything behaves. On a GPU, a wrong variant that\n"
    "the hardware lets pass (a race, a stray read: undefined behaviour) counts as\n"
    "caught when the emulator catches it, and says so.\n"
    "\n"
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
    "                 allowances the checks no longer need\n"
    "  --jobs N, -j N runs at once with --mutants (default: the cores)\n"),
    cmd_verify};
