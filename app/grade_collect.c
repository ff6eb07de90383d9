/* app/grade_collect.c: the submissions of `cudojo grade`: workspace folders
 * and archives (unpacked by app/archive.c as hostile input), each read into
 * a GradeStudent: who (the manifest's student, else the file or folder
 * name), when, their progress export, and the SHA-256 of each exercise file.
 * Nothing a student sends stops the grading: a bad submission becomes a
 * problem line in the gradebook. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/archive.h"
#include "app/grade.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "progress-db/store.h"

/* The largest exercise file graded (a kernel source is a few KB). */
#define GRADE_SOURCE_MAX ((size_t)1 << 20)

static void add_problem(json_t *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_problem(json_t *arr, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    if (s) json_array_append_new(arr, bytes_to_json(s));
    free(s);
}

/* "subs/alice.tar.zst" -> "alice"; "ws/bob/" -> "bob". Caller frees. */
static char *name_from_path(const char *path) {
    char *p = xstrdup(path);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/') p[--n] = '\0';
    char *base = xstrdup(path_basename(p));
    free(p);
    static const char *const exts[] = {".zst", ".gz", ".tgz", ".bz2", ".xz", ".zip", ".tar"};
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
            size_t bl = strlen(base), el = strlen(exts[i]);
            if (bl > el && !strcmp(base + bl - el, exts[i])) {
                base[bl - el] = '\0';
                again = true;
            }
        }
    }
    return base;
}

/* The manifest of an unpacked archive: student, uuid, course version, time. */
static void read_manifest(GradeStudent *s) {
    char *path = path_join(s->dir, SUBMISSION_MANIFEST), *text = NULL;
    Diag *d = fs_read_file_max(path, 1 << 20, &text, NULL);
    free(path);
    if (d) {
        add_problem(s->problems, "no readable %s in the archive: %s", SUBMISSION_MANIFEST, d->message);
        diag_free(&d);
        return;
    }
    json_error_t err;
    json_t *m = json_loads(text, 0, &err);
    free(text);
    if (!json_is_object(m) || !json_is_string(json_object_get(m, "format")) ||
        strcmp(json_string_value(json_object_get(m, "format")), SUBMISSION_FORMAT)) {
        add_problem(s->problems, "%s is not a cudojo submission manifest", SUBMISSION_MANIFEST);
        json_decref(m);
        return;
    }
    const char *student = json_string_value(json_object_get(m, "student"));
    if (student && submission_student_name_ok(student)) {
        free(s->name);
        s->name = xstrdup(student);
    } else if (student) {
        add_problem(s->problems, "the manifest's student name is not usable (printable, at most %d bytes, no '/'); "
                    "named after the file instead", SUBMISSION_STUDENT_MAX);
    }
    const char *uuid = json_string_value(json_object_get(m, "workspace_uuid"));
    const char *cv = json_string_value(json_object_get(m, "course_version"));
    s->workspace_uuid = uuid ? xstrdup(uuid) : NULL;
    s->course_version_submitted = cv ? xstrdup(cv) : NULL;
    json_t *when = json_object_get(m, "submitted_unix_ms");
    if (json_is_integer(when)) s->submitted_unix_ms = json_integer_value(when);
    json_decref(m);
    path = path_join(s->dir, SUBMISSION_PROGRESS);
    d = fs_read_file_max(path, 8 << 20, &text, NULL);
    free(path);
    if (!d) {
        json_t *pj = json_loads(text, 0, NULL);
        if (json_is_object(pj)) s->progress_json = json_dumps(pj, JSON_COMPACT);
        else add_problem(s->problems, "%s is not JSON", SUBMISSION_PROGRESS);
        json_decref(pj);
    }
    diag_free(&d);
    free(text);
}

/* A workspace folder's progress (its .cudojo/progress.db) and uuid. */
static void read_workspace(GradeStudent *s) {
    char *db = path_join(s->dir, ".cudojo/progress.db");
    if (fs_exists(db)) {
        Store *st = NULL;
        Diag *d = store_open(db, &st);
        json_t *exp = NULL;
        if (!d) d = store_export_json(st, &exp);
        if (d) add_problem(s->problems, "progress database unreadable: %s", d->message);
        if (st) s->workspace_uuid = xstrdup(store_workspace_uuid(st));
        if (exp) s->progress_json = json_dumps(exp, JSON_COMPACT);
        json_decref(exp);
        store_close(&st);
        diag_free(&d);
    }
    free(db);
}

/* The file of each graded exercise, and its hash. */
static void read_files(Grade *g, GradeStudent *s) {
    s->paths = xcalloc((size_t)g->n_items + 1, sizeof *s->paths);
    s->shas = xcalloc((size_t)g->n_items + 1, sizeof *s->shas);
    for (int i = 0; i < g->n_items; i++) {
        if (g->items[i].skipped) continue;
        const ExerciseMeta *ex = g->items[i].ex;
        char *chdir = path_join(s->dir, g->items[i].ch->id);
        char *p = path_join(chdir, path_basename(ex->source));
        free(chdir);
        struct stat st;
        if (lstat(p, &st) != 0) {
            free(p);
            continue;
        }
        char *shown = xasprintf("%s/%s", g->items[i].ch->id, path_basename(ex->source));
        if (!S_ISREG(st.st_mode)) {
            add_problem(s->problems, "%s is %s, not a file: graded as missing", shown, fs_kind_name(st.st_mode));
        } else {
            char *text = NULL;
            size_t len = 0;
            Diag *d = fs_read_file_max(p, GRADE_SOURCE_MAX, &text, &len);
            if (d) {
                add_problem(s->problems, "%s: %s: graded as missing", shown, d->message);
                diag_free(&d);
            } else {
                s->shas[i] = xmalloc(65);
                sha256_hex(text, len, s->shas[i]);
                s->paths[i] = p;
                p = NULL;
            }
            free(text);
        }
        free(shown);
        free(p);
    }
}

static void student_fini(GradeStudent *s, int n_items) {
    if (s->unpacked && s->dir) archive_remove_tree(s->dir);
    free(s->name);
    free(s->origin);
    free(s->dir);
    free(s->origin_sha256);
    free(s->workspace_uuid);
    free(s->course_version_submitted);
    free(s->progress_json);
    json_decref(s->problems);
    for (int i = 0; s->paths && i < n_items; i++) free(s->paths[i]);
    for (int i = 0; s->shas && i < n_items; i++) free(s->shas[i]);
    free(s->paths);
    free(s->shas);
    memset(s, 0, sizeof *s);
}

void grade_students_free(Grade *g) {
    for (int i = 0; i < g->n_students; i++) student_fini(&g->students[i], g->n_items);
    free(g->students);
    g->students = NULL;
    g->n_students = 0;
}

/* Reads one submission; false (with a problem in g->problems) when it cannot be graded. */
static bool collect_one(Grade *g, const char *path, GradeStudent *s) {
    memset(s, 0, sizeof *s);
    s->origin = xstrdup(path);
    s->problems = json_array();
    s->name = name_from_path(path);
    struct stat st;
    if (stat(path, &st) != 0) {
        add_problem(g->problems, "%s: no such file or folder", path);
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        s->dir = path_absolute(path);
        read_workspace(s);
        s->submitted_unix_ms = (long long)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
    } else if (S_ISREG(st.st_mode) && submission_is_archive(path)) {
        char *dir = NULL;
        Diag *d = submission_unpack(path, g->tmp_dir, NULL, &dir);
        if (d) {
            add_problem(g->problems, "%s: rejected: %s", path, d->message);
            diag_free(&d);
            return false;
        }
        s->dir = dir;
        s->unpacked = true;
        char *data = NULL;
        size_t len = 0;
        d = fs_read_file(path, &data, &len);
        if (!d) {
            s->origin_sha256 = xmalloc(65);
            sha256_hex(data, len, s->origin_sha256);
        }
        diag_free(&d);
        free(data);
        read_manifest(s);
    } else {
        add_problem(g->problems, "%s: neither a workspace folder nor a submission archive", path);
        return false;
    }
    if (s->course_version_submitted && strcmp(s->course_version_submitted, g->course_version))
        add_problem(s->problems, "submitted against another version of the course (%.12s…); graded against this one",
                    s->course_version_submitted);
    read_files(g, s);
    return true;
}

static int cmp_student(const void *a, const void *b) {
    const GradeStudent *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    /* The same name: the later submission last, so it wins. */
    if (x->submitted_unix_ms != y->submitted_unix_ms) return x->submitted_unix_ms < y->submitted_unix_ms ? -1 : 1;
    return strcmp(x->origin, y->origin);
}

Diag *grade_collect(Grade *g, char *const *paths, int n) {
    g->students = xcalloc((size_t)n + 1, sizeof *g->students);
    g->n_students = 0;
    for (int i = 0; i < n; i++) {
        GradeStudent *s = &g->students[g->n_students];
        if (collect_one(g, paths[i], s)) g->n_students++;
        else student_fini(s, g->n_items);
    }
    qsort(g->students, (size_t)g->n_students, sizeof *g->students, cmp_student);
    /* Duplicates: keep the last of each run of equal names. */
    int out = 0;
    for (int i = 0; i < g->n_students; i++) {
        if (i + 1 < g->n_students && !strcmp(g->students[i].name, g->students[i + 1].name)) {
            GradeStudent *later = &g->students[i + 1], *older = &g->students[i];
            add_problem(later->problems, "another submission for %s (%s) was set aside: this one is later",
                        older->name, older->origin);
            add_problem(g->problems, "%s: set aside: %s (%s) is a later submission of the same student",
                        older->origin, later->name, later->origin);
            student_fini(older, g->n_items);
            continue;
        }
        g->students[out++] = g->students[i];
    }
    g->n_students = out;
    return NULL;
}

void grade_shard(Grade *g, int i, int k) {
    int out = 0;
    for (int s = 0; s < g->n_students; s++) {
        if (s % k == i) g->students[out++] = g->students[s];
        else student_fini(&g->students[s], g->n_items);
    }
    g->n_students = out;
}
