/* app/grade_collect.c: the submissions of `cudojo grade`: workspace folders
 * and archives (unpacked by app/archive.c as hostile input), each read into
 * a GradeStudent: who (the manifest's student, else the file or folder
 * name), when, their progress export, and the SHA-256 of each exercise file.
 * Nothing a student sends stops the grading: a bad submission becomes a
 * problem line in the gradebook. A workspace folder is read as hostile as
 * an archive: its files and progress database are copied into a private
 * folder first (regular files inside the folder only, never through a
 * link), and only the copies are compiled and opened. */
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
/* The largest progress database read from a workspace folder (a learner's is well under 1 MiB). */
#define GRADE_PROGRESS_DB_MAX ((off_t)64 << 20)

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

/* The student's private folder under OUT/.unpacked (made on first use);
 * NULL when it cannot be made. */
static const char *snap_dir(const Grade *g, GradeStudent *s) {
    if (!s->snap_dir && g->tmp_dir) {
        char *t = path_join(g->tmp_dir, "ws-XXXXXX");
        if (mkdtemp(t)) s->snap_dir = t;
        else free(t);
    }
    return s->snap_dir;
}

/* Whether `path` lies inside `dir` once every link on the way is followed:
 * a chapter folder that is a link to the course's solutions, or to another
 * student's folder, is not this student's work. */
static bool path_within(const char *path, const char *dir) {
    char *rp = realpath(path, NULL), *rd = realpath(dir, NULL);
    size_t n = rd ? strlen(rd) : 0;
    bool ok = rp && rd && (!strcmp(rd, "/") || (!strncmp(rp, rd, n) && rp[n] == '/'));
    free(rp);
    free(rd);
    return ok;
}

/* Copies a regular file of the student's folder (not a link, inside it),
 * `shown` beneath it, to `dst`; false (with a problem naming `shown`)
 * otherwise. */
static bool copy_student_file(GradeStudent *s, const char *src, const char *dst, const char *shown) {
    struct stat st;
    if (lstat(src, &st) != 0) return false;
    Diag *d = NULL;
    if (!S_ISREG(st.st_mode))
        add_problem(s->problems, "%s is %s, not a file: not read", shown, fs_kind_name(st.st_mode));
    else if (!path_within(src, s->dir))
        add_problem(s->problems, "%s is outside the submission (through a link): not read", shown);
    else if (st.st_size > GRADE_PROGRESS_DB_MAX)
        add_problem(s->problems, "%s is %lld bytes, over the %lld allowed: not read", shown, (long long)st.st_size,
                    (long long)GRADE_PROGRESS_DB_MAX);
    else {
        /* read through no link, in case one was swapped in since the checks above */
        char *data = NULL;
        size_t len = 0;
        d = fs_read_file_beneath(s->dir, shown, (size_t)GRADE_PROGRESS_DB_MAX, &data, &len);
        if (!d) d = fs_write_file_atomic(dst, data, len);
        free(data);
        if (!d) return true;
        add_problem(s->problems, "%s: %s: not read", shown, d->message);
    }
    diag_free(&d);
    return false;
}

/* A workspace folder's progress (its .cudojo/progress.db) and uuid. The
 * database is the student's file: it is read from a private copy (a link
 * to the grading database or anyone else's is refused, and the student's
 * file is never written, not even by a migration). */
static void read_workspace(Grade *g, GradeStudent *s) {
    char *orig = path_join(s->dir, ".cudojo/progress.db");
    struct stat lst;
    const char *snap = lstat(orig, &lst) == 0 ? snap_dir(g, s) : NULL;
    char *db = snap ? path_join(snap, "progress.db") : NULL;
    bool copied = db && copy_student_file(s, orig, db, ".cudojo/progress.db");
    if (copied) {
        char *wal = xasprintf("%s-wal", orig), *wal_copy = xasprintf("%s-wal", db);
        if (lstat(wal, &lst) == 0) copy_student_file(s, wal, wal_copy, ".cudojo/progress.db-wal");
        free(wal);
        free(wal_copy);
    }
    free(orig);
    if (copied) {
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
/* A workspace folder's file is graded from a private copy of the bytes
 * hashed: the student cannot change it while the grading runs, and the
 * compiler sees no other file of theirs. Returns the copy's path (caller
 * frees), NULL when it cannot be made. */
static char *snapshot_file(Grade *g, GradeStudent *s, const char *chapter, const char *name, const char *text,
                           size_t len) {
    const char *snap = snap_dir(g, s);
    if (!snap) return NULL;
    char *dir = path_join(snap, chapter);
    char *p = path_join(dir, name);
    Diag *d = fs_mkdir_p(dir);
    if (!d) d = fs_write_file_atomic(p, text, len);
    free(dir);
    if (d) {
        diag_free(&d);
        free(p);
        return NULL;
    }
    return p;
}

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
        } else if (!path_within(p, s->dir)) {
            add_problem(s->problems, "%s is outside the submission (its folder is a link): graded as missing", shown);
        } else {
            char *text = NULL;
            size_t len = 0;
            /* through no link: the checks above are not the read (a folder swapped meanwhile) */
            Diag *d = fs_read_file_beneath(s->dir, shown, GRADE_SOURCE_MAX, &text, &len);
            if (d) {
                add_problem(s->problems, "%s: %s: graded as missing", shown, d->message);
                diag_free(&d);
            } else {
                char *copy = s->unpacked ? NULL
                                         : snapshot_file(g, s, g->items[i].ch->id, path_basename(ex->source), text, len);
                if (!s->unpacked && !copy) {
                    add_problem(s->problems, "%s: cannot copy it for grading: graded as missing", shown);
                } else {
                    s->shas[i] = xmalloc(65);
                    sha256_hex(text, len, s->shas[i]);
                    s->paths[i] = copy ? copy : p;
                    if (!copy) p = NULL;
                }
            }
            free(text);
        }
        free(shown);
        free(p);
    }
}

static void student_fini(GradeStudent *s, int n_items) {
    if (s->unpacked && s->dir) archive_remove_tree(s->dir);
    if (s->snap_dir) archive_remove_tree(s->snap_dir);
    free(s->snap_dir);
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
        read_workspace(g, s);
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
