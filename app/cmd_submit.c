/* app/cmd_submit.c: `cudojo submit [-o FILE] [--student NAME]`: one archive
 * of the learner's work for the instructor's `cudojo grade`.
 *
 * The archive (tar + zstd, app/archive.h) holds cudojo-submission.json (who,
 * which workspace, which course version, when, and the SHA-256 of every
 * file), progress.json (the workspace's progress export) and the learner's
 * copy of every exercise file as <chapter-id>/<file>. It is written to a
 * temporary file and renamed, so a failure leaves nothing half-written. */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/archive.h"
#include "app/cli.h"
#include "app/workspace.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "progress-db/store.h"

typedef struct SubmitArgs {
    const char *out;
    const char *student;
} SubmitArgs;

static int submit_parse(int argc, char **argv, SubmitArgs *a) {
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) a->out = argv[++i];
        else if (!strncmp(argv[i], "--output=", 9)) a->out = argv[i] + 9;
        else if (!strcmp(argv[i], "--student") && i + 1 < argc) a->student = argv[++i];
        else if (!strncmp(argv[i], "--student=", 10)) a->student = argv[i] + 10;
        else v = argv[i];
        if (v) {
            fprintf(stderr, "cudojo submit: unexpected '%s' (see cudojo submit --help)\n", v);
            return 2;
        }
    }
    if (a->out && !*a->out) {
        fprintf(stderr, "cudojo submit: -o needs a file name\n");
        return 2;
    }
    return 0;
}

/* --student, else $CUDOJO_STUDENT, else the login name. */
static Diag *submit_student(const SubmitArgs *a, const char **out) {
    const char *name = a->student;
    const char *from = "--student";
    if (!name || !*name) {
        name = getenv("CUDOJO_STUDENT");
        from = "$CUDOJO_STUDENT";
    }
    if (!name || !*name) {
        struct passwd *pw = getpwuid(getuid());
        name = pw ? pw->pw_name : getenv("USER");
        from = "your login name";
    }
    if (!name || !*name)
        return diag_error("usage", "cudojo submit: who are you? Give --student NAME (or set CUDOJO_STUDENT)");
    if (!submission_student_name_ok(name)) {
        char *shown = bytes_printable(name);
        Diag *d = diag_error("usage",
                             "cudojo submit: the student name '%s' (from %s) cannot be used: give 1 to %d bytes of "
                             "printable text without '/' with --student NAME",
                             shown, from, SUBMISSION_STUDENT_MAX);
        free(shown);
        return d;
    }
    *out = name;
    return NULL;
}

/* <student>-<YYYY-MM-DD-HHMM>.cudojo.tar.zst, with characters a shell or
 * another system would stumble on replaced by '_'. Caller frees. */
static char *submit_default_name(const char *student, long long now_ms) {
    char *safe = xstrdup(student);
    for (unsigned char *p = (unsigned char *)safe; *p; p++)
        if (*p < 0x80 && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                           strchr("._-", *p)))
            *p = '_';
    time_t t = (time_t)(now_ms / 1000);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%d-%H%M", localtime(&t));
    char *name = xasprintf("%s-%s.cudojo.tar.zst", safe, when);
    free(safe);
    return name;
}

static long long submit_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct SubmitTotals {
    int files, missing;
    size_t bytes;
} SubmitTotals;

/* The learner's files, read once: hashed into the manifest, then written. */
typedef struct SubmitFile {
    char *member;   /* <chapter-id>/<file> */
    char *data;
    size_t len;
} SubmitFile;

static void submit_files_free(SubmitFile *f, int n) {
    for (int i = 0; i < n; i++) {
        free(f[i].member);
        free(f[i].data);
    }
    free(f);
}

/* Reads every exercise file of the workspace, listing each in files (path,
 * exercise, sha256, bytes) or in missing. Files over the reader's limit are
 * an error now rather than a rejected submission later. */
static Diag *submit_read_files(Workspace *ws, json_t *files, json_t *missing, SubmitFile **out, int *n_out,
                               SubmitTotals *tot) {
    size_t max = submission_limits_default().max_member;
    int cap = 0;
    for (int c = 0; c < ws->course->n_chapters; c++) cap += ws->course->chapters[c].n_exercises;
    SubmitFile *list = xcalloc((size_t)cap + 1, sizeof *list);
    int n = 0;
    Diag *d = NULL;
    for (int c = 0; c < ws->course->n_chapters && !d; c++) {
        const ChapterMeta *ch = &ws->course->chapters[c];
        for (int e = 0; e < ch->n_exercises && !d; e++) {
            const ExerciseMeta *ex = &ch->exercises[e];
            char *path = workspace_exercise_path(ws, ch, ex);
            char *member = xasprintf("%s/%s", ch->id, path_basename(ex->source));
            if (!fs_exists(path)) {
                json_array_append_new(missing, json_pack("{s:o, s:o}", "path", bytes_to_json(member), "exercise",
                                                         bytes_to_json(ex->id)));
                tot->missing++;
                free(member);
            } else {
                SubmitFile *f = &list[n];
                d = fs_read_file_max(path, max, &f->data, &f->len);
                if (d) {
                    free(member);
                } else {
                    char hex[65];
                    sha256_hex(f->data, f->len, hex);
                    json_array_append_new(files, json_pack("{s:o, s:o, s:s, s:I}", "path", bytes_to_json(member),
                                                           "exercise", bytes_to_json(ex->id), "sha256", hex,
                                                           "bytes", (json_int_t)f->len));
                    f->member = member;
                    tot->files++;
                    tot->bytes += f->len;
                    n++;
                }
            }
            free(path);
        }
    }
    *out = list;
    *n_out = n;
    return d;
}

static Diag *submit_add_json(SubmissionWriter *w, const char *name, json_t *j, long long now_s) {
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_ENSURE_ASCII * 0);
    Diag *d = submission_writer_add(w, name, text, strlen(text), now_s);
    free(text);
    return d;
}

/* Writes the whole archive to out: the manifest, progress.json, the files. */
static Diag *submit_write(Workspace *ws, const char *student, const char *out, long long now_ms, json_t **manifest_out,
                          SubmitTotals *tot) {
    json_t *progress = NULL;
    Diag *d = store_export_json(ws->store, &progress);
    if (d) return d;
    char *version = course_version(ws->course);
    json_t *files = json_array(), *missing = json_array();
    json_t *manifest = json_pack("{s:s, s:i, s:o, s:o, s:s, s:I, s:s, s:o, s:o}", "format", SUBMISSION_FORMAT,
                                 "format_version", SUBMISSION_FORMAT_VERSION, "student", bytes_to_json(student),
                                 "workspace_uuid", bytes_to_json(store_workspace_uuid(ws->store)), "course_version",
                                 version, "submitted_unix_ms", (json_int_t)now_ms, "app_version", CUDOJO_VERSION,
                                 "files", files, "missing", missing);
    free(version);
    SubmitFile *list = NULL;
    int n = 0;
    d = submit_read_files(ws, files, missing, &list, &n, tot);
    SubmissionWriter *w = NULL;
    long long now_s = now_ms / 1000;
    if (!d) d = submission_writer_open(out, &w);
    if (!d) d = submit_add_json(w, SUBMISSION_MANIFEST, manifest, now_s);
    if (!d) d = submit_add_json(w, SUBMISSION_PROGRESS, progress, now_s);
    for (int i = 0; i < n && !d; i++) d = submission_writer_add(w, list[i].member, list[i].data, list[i].len, now_s);
    if (w && !d) d = submission_writer_close(&w);
    else if (w) submission_writer_abort(&w);
    submit_files_free(list, n);
    json_decref(progress);
    if (d) {
        json_decref(manifest);
        return d;
    }
    *manifest_out = manifest;
    return NULL;
}

int cmd_submit(Cli *cli, int argc, char **argv) {
    SubmitArgs a = {0};
    int rc = submit_parse(argc, argv, &a);
    if (rc) return rc;
    const char *student = NULL;
    Diag *d = submit_student(&a, &student);
    if (d) return cli_fail(d);
    Workspace *ws = NULL;
    d = workspace_open(cli, &ws);
    if (d) return cli_fail(d);
    long long now_ms = submit_now_ms();
    char *out = a.out ? xstrdup(a.out) : submit_default_name(student, now_ms);
    json_t *manifest = NULL;
    SubmitTotals tot = {0};
    d = submit_write(ws, student, out, now_ms, &manifest, &tot);
    if (d) {
        free(out);
        workspace_close(&ws);
        return cli_fail(d);
    }
    char *abs = path_absolute(out);
    struct stat sb;
    size_t archive_bytes = stat(abs, &sb) == 0 ? (size_t)sb.st_size : 0;
    if (cli->json) {
        json_object_set_new(manifest, "archive", bytes_to_json(abs));
        json_object_set_new(manifest, "archive_bytes", json_integer((json_int_t)archive_bytes));
        cli_print_json(manifest);
    } else {
        char *shown_out = bytes_printable(out), *shown_student = bytes_printable(student);
        printf("Wrote %s (%zu bytes) for %s:\n", shown_out, archive_bytes, shown_student);
        printf("  %d exercise file%s (%zu bytes in all), your progress (progress.json) and a manifest\n", tot.files,
               tot.files == 1 ? "" : "s", tot.bytes);
        if (tot.missing) {
            printf("  %d exercise file%s missing from the workspace (graded as missing):", tot.missing,
                   tot.missing == 1 ? "" : "s");
            size_t i;
            json_t *m;
            json_array_foreach(json_object_get(manifest, "missing"), i, m) {
                char *p = bytes_from_json(json_object_get(m, "path"));
                char *sp = bytes_printable(p);
                printf(" %s", sp);
                free(sp);
                free(p);
            }
            printf("\n");
        }
        printf("\nHand this one file to your instructor (upload it where they asked). It holds only\n"
               "your exercise files and your progress record; submitting again later makes a new\n"
               "file, and the instructor grades the newest one.\n");
        free(shown_out);
        free(shown_student);
        json_decref(manifest);
    }
    free(abs);
    free(out);
    workspace_close(&ws);
    return 0;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_SUBMIT = {"submit", "[-o FILE]", N_("learners: one archive of your work for your instructor"),
    N_("Writes one archive (tar + zstd) of this workspace for `cudojo grade`: your copy\n"
    "of every exercise file, your progress record, and a manifest with your name,\n"
    "the workspace's id, the course version, the time and each file's SHA-256.\n"
    "Nothing else from your machine goes in. The archive is written to a temporary\n"
    "file and renamed, so a failure leaves nothing half-written.\n"
    "Options:\n"
    "  -o, --output FILE   where to write it (default: NAME-YYYY-MM-DD-HHMM.cudojo.tar.zst\n"
    "                      in the current directory)\n"
    "  --student NAME      your name as the instructor knows it (default:\n"
    "                      $CUDOJO_STUDENT, else your login name); at most 64 bytes,\n"
    "                      no '/'\n"
    "  --json              the manifest and the archive's path as JSON\n"
    "Exit status: 0 written, 2 when it could not be (nothing is left behind).\n"),
    cmd_submit};
