/* app/cmd_progress.c: `cudojo progress`: attempts, passes, best times; and
 * `cudojo progress --merge FILE`: another workspace's progress joined into
 * this one (a progress.db, a progress.json export, a workspace folder or a
 * submission archive). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/archive.h"
#include "app/cli.h"
#include "app/workspace.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"
#include "progress-db/store.h"

static void format_when(long long unix_ms, char *buf, size_t n) {
    if (unix_ms <= 0) {
        snprintf(buf, n, "-");
        return;
    }
    time_t t = (time_t)(unix_ms / 1000);
    strftime(buf, n, "%Y-%m-%d %H:%M", localtime(&t));
}

static const char *progress_tmp_dir(void) {
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

/* Whether path starts with SQLite's file header. */
static bool progress_is_sqlite(const char *path) {
    FILE *fp = fopen(path, "rb");
    char h[16] = {0};
    size_t n = fp ? fread(h, 1, sizeof h, fp) : 0;
    if (fp) fclose(fp);
    return n == sizeof h && !memcmp(h, "SQLite format 3", 16);
}

/* Merges a cudojo-progress JSON file; shown names it in messages. */
static Diag *progress_merge_json_file(Store *s, const char *path, const char *shown, StoreMergeStats *st) {
    char *text = NULL;
    Diag *d = fs_read_file(path, &text, NULL);
    if (d) return d;
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);
    free(text);
    if (!doc)
        return diag_new(DIAG_ERROR, "progress-merge", shown, jerr.line, jerr.column,
                        N_("not a progress.db, a progress export (JSON: %s) or a submission archive"), jerr.text);
    d = store_merge_json(s, doc, shown, st);
    json_decref(doc);
    return d;
}

/* The progress.json inside a submission archive. */
static Diag *progress_merge_archive(Store *s, const char *path, StoreMergeStats *st) {
    char *dir = NULL;
    Diag *d = submission_unpack(path, progress_tmp_dir(), NULL, &dir);
    if (d) return d;
    char *json = path_join(dir, SUBMISSION_PROGRESS);
    if (fs_exists(json)) d = progress_merge_json_file(s, json, path, st);
    else d = diag_new(DIAG_ERROR, "progress-merge", path, 0, 0, N_("the archive holds no %s to merge"),
                      SUBMISSION_PROGRESS);
    free(json);
    archive_remove_tree(dir);
    free(dir);
    return d;
}

/* FILE: a progress.db, a workspace folder, a submission archive or a progress export. */
static Diag *progress_merge_one(Workspace *ws, const char *file, StoreMergeStats *st) {
    if (fs_is_dir(file)) {
        char *db = path_join(file, ".cudojo/progress.db");
        Diag *d = fs_exists(db) ? store_merge_db(ws->store, db, progress_tmp_dir(), st)
                                : diag_new(DIAG_ERROR, "progress-merge", file, 0, 0,
                                           N_("this folder is not a cudojo workspace (no .cudojo/progress.db)"));
        free(db);
        return d;
    }
    if (!fs_exists(file)) return diag_new(DIAG_ERROR, "progress-merge", file, 0, 0, N_("no such file"));
    if (progress_is_sqlite(file)) return store_merge_db(ws->store, file, progress_tmp_dir(), st);
    if (submission_is_archive(file)) return progress_merge_archive(ws->store, file, st);
    return progress_merge_json_file(ws->store, file, file, st);
}

static int progress_merge(Cli *cli, char **files, int n) {
    Workspace *ws = NULL;
    Diag *d = workspace_open(cli, &ws);
    if (d) return cli_fail(d);
    json_t *all = json_array();
    int failed = 0;
    for (int i = 0; i < n; i++) {
        StoreMergeStats st;
        d = progress_merge_one(ws, files[i], &st);
        if (d) {
            cli_print_diags(d);
            diag_free(&d);
            failed++;
            continue;
        }
        json_array_append_new(all, json_pack("{s:o, s:s, s:b, s:i, s:i, s:i, s:i}", "file", bytes_to_json(files[i]),
                                             "workspace_uuid", st.source_uuid, "same_workspace", st.same_workspace,
                                             "exercises", st.exercises, "attempts_added", st.attempts_added,
                                             "attempts_present", st.attempts_present, "hints_added", st.hints_added));
        if (cli->json) continue;
        char *shown = bytes_printable(files[i]);
        if (st.same_workspace) {
            printf(_("%s is this workspace's own progress: nothing to merge.\n"), shown);
        } else {
            printf(_("Merged %s (workspace %s): "), shown, st.source_uuid[0] ? st.source_uuid : _("without a uuid"));
            printf(P_(st.attempts_added, "%d attempt added", "%d attempts added"), st.attempts_added);
            printf(_(", %d already here, "), st.attempts_present);
            printf(P_(st.hints_added, "%d hint newly taken", "%d hints newly taken"), st.hints_added);
            printf(P_(st.exercises, ", %d exercise in it.\n", ", %d exercises in it.\n"), st.exercises);
        }
        free(shown);
    }
    if (cli->json) cli_print_json(json_pack("{s:o, s:o}", "workspace_dir", bytes_to_json(ws->dir), "merged", all));
    else json_decref(all);
    workspace_close(&ws);
    return failed ? 1 : 0;
}

int cmd_progress(Cli *cli, int argc, char **argv) {
    char **merge = xcalloc((size_t)argc, sizeof *merge);
    int n_merge = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--merge") && i + 1 < argc) merge[n_merge++] = argv[++i];
        else if (!strncmp(argv[i], "--merge=", 8) && argv[i][8]) merge[n_merge++] = argv[i] + 8;
        else {
            fprintf(stderr, _("cudojo progress: unexpected '%s' (only --merge FILE is taken)\n"), argv[i]);
            free(merge);
            return 2;
        }
    }
    if (n_merge) {
        int rc = progress_merge(cli, merge, n_merge);
        free(merge);
        return rc;
    }
    free(merge);
    Workspace *ws = NULL;
    Diag *d = workspace_open(cli, &ws);
    if (d) return cli_fail(d);
    if (cli->json) {
        json_t *j = NULL;
        d = store_export_json(ws->store, &j);
        if (d) {
            workspace_close(&ws);
            return cli_fail(d);
        }
        json_object_set_new(j, "workspace_dir", bytes_to_json(ws->dir));
        cli_print_json(j);
        workspace_close(&ws);
        return 0;
    }
    int passed = 0, total = 0, attempts = 0;
    double spent = 0;
    for (int c = 0; c < ws->course->n_chapters; c++) {
        const ChapterMeta *ch = &ws->course->chapters[c];
        int ch_pass = 0;
        for (int e = 0; e < ch->n_exercises; e++) {
            ExerciseStatus st;
            memset(&st, 0, sizeof st);
            Diag *sd = store_exercise_status(ws->store, ch->exercises[e].id, &st);
            if (sd) diag_append(&d, sd);
            ch_pass += st.passed;
            exercise_status_fini(&st);
        }
        char *title = bytes_printable(cli_chapter_title(ch));   /* a course pack's text: no control sequences */
        printf("%s%s%s  (%d/%d)\n", cli->color ? "\033[1m" : "", title, cli->color ? "\033[0m" : "", ch_pass,
               ch->n_exercises);
        free(title);
        char h[6][64];
        printf("  %s %s %s  %s %s %s\n", i18n_pad(h[0], sizeof h[0], _("exercise"), 22, false),
               i18n_pad(h[1], sizeof h[1], _("status"), 12, false), i18n_pad(h[2], sizeof h[2], _("attempts"), 8, true),
               i18n_pad(h[3], sizeof h[3], _("first pass"), 16, false), i18n_pad(h[4], sizeof h[4], _("best"), 10, true),
               i18n_pad(h[5], sizeof h[5], _("hints"), 6, true));
        for (int e = 0; e < ch->n_exercises; e++) {
            const ExerciseMeta *ex = &ch->exercises[e];
            ExerciseStatus st;
            memset(&st, 0, sizeof st);
            Diag *sd = store_exercise_status(ws->store, ex->id, &st);
            diag_free(&sd);
            char when[32], best[32];
            format_when(st.first_pass_unix_ms, when, sizeof when);
            if (st.best_kernel_ms >= 0) snprintf(best, sizeof best, "%.3f ms", st.best_kernel_ms);
            else snprintf(best, sizeof best, "-");
            const char *word = st.passed_fast ? _("passed fast") : st.passed ? _("passed") : st.attempts ? _("failing")
                                                                                               : _("not started");
            char w[64];
            printf("  %-22s %s %8d  %-16s %10s %3d/%d\n", ex->id, i18n_pad(w, sizeof w, word, 12, false), st.attempts,
                   when, best, st.hints_taken, ex->n_hints);
            total++;
            passed += st.passed;
            attempts += st.attempts;
            spent += st.time_spent_ms;
            exercise_status_fini(&st);
        }
        printf("\n");
    }
    printf(_("%d of %d exercises passed, "), passed, total);
    printf(P_(attempts, "%d attempt, ", "%d attempts, "), attempts);
    printf(_("%.1f s spent running.\n"), spent / 1000.0);
    if (d) cli_print_diags(d);
    diag_free(&d);
    workspace_close(&ws);
    return 0;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_PROGRESS = {"progress", "[--merge FILE...]", N_("your progress: attempts, passes, best times; merge another workspace's"),
    N_("Shows, per chapter and exercise, attempts, first pass, best kernel time and\n"
       "hints taken. With --json, the whole record (for instructors).\n"
       "Options:\n"
       "  --merge FILE        join another workspace's progress into this one (your lab\n"
       "                      machine's and your laptop's): FILE is its progress.db, its\n"
       "                      folder, a `cudojo progress --json` export or a `cudojo\n"
       "                      submit` archive. Its attempts and hints are added; one\n"
       "                      already here is not added twice, so merging again changes\n"
       "                      nothing. FILE is only read. May be given several times.\n"
       "Exit status: 0 done, 1 when a FILE could not be merged (the others are), 2 for\n"
       "a usage error.\n"),
    cmd_progress};
