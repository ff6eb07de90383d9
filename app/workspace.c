/* app/workspace.c: finding, creating and opening a learner's workspace. */
#include "app/workspace.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "progress-db/store.h"

static const char WORKSPACE_MARK[] = ".cudojo";

static char *exe_dir(void) {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return NULL;
    buf[n] = '\0';
    return path_dirname(buf);
}

static bool is_lessons_root(const char *dir) {
    if (!fs_is_dir(dir)) return false;
    /* A course root holds chapter folders; a quick check for one chapter.lua keeps
       us from picking an unrelated "lessons" folder. */
    char *probe = path_join(dir, "01-hello-gpu/chapter.lua");
    bool ok = fs_exists(probe);
    free(probe);
    if (ok) return true;
    char *readme = path_join(dir, "README.md");
    ok = fs_exists(readme);
    free(readme);
    return ok;
}

char *lessons_find_root(const char *arg, const char *recorded, Diag **why) {
    *why = NULL;
    if (arg) {
        if (fs_is_dir(arg)) return path_absolute(arg);
        *why = diag_error("lessons", "--lessons %s: no such directory", arg);
        return NULL;
    }
    const char *env = getenv("CUDOJO_LESSONS");
    if (env && *env) {
        if (fs_is_dir(env)) return path_absolute(env);
        *why = diag_error("lessons", "CUDOJO_LESSONS=%s: no such directory", env);
        return NULL;
    }
    if (recorded && fs_is_dir(recorded)) return xstrdup(recorded);
    char *exe = exe_dir();
    const char *rel[] = {"lessons", "../lessons", "../share/cudojo/lessons"};
    for (size_t i = 0; exe && i < sizeof rel / sizeof rel[0]; i++) {
        char *cand = path_join(exe, rel[i]);
        if (is_lessons_root(cand)) {
            char *abs = path_absolute(cand);
            free(cand);
            free(exe);
            return abs;
        }
        free(cand);
    }
    free(exe);
    if (is_lessons_root("/usr/share/cudojo/lessons")) return xstrdup("/usr/share/cudojo/lessons");
    *why = diag_error("lessons", "cannot find the course (lessons/). Pass --lessons DIR or set CUDOJO_LESSONS.");
    return NULL;
}

/* Walks up from `start` to the first folder holding .cudojo/; caller frees. */
static char *find_workspace_dir(const char *start) {
    char *dir = path_absolute(start);
    for (;;) {
        char *mark = path_join(dir, WORKSPACE_MARK);
        bool found = fs_is_dir(mark);
        free(mark);
        if (found) return dir;
        if (!strcmp(dir, "/")) break;
        char *up = path_dirname(dir);
        free(dir);
        dir = up;
    }
    free(dir);
    return NULL;
}

static char *read_recorded_lessons(const char *state_dir) {
    char *cfg = path_join(state_dir, "workspace.json");
    json_t *j = json_load_file(cfg, 0, NULL);
    free(cfg);
    char *lessons = j ? bytes_from_json(json_object_get(j, "lessons")) : NULL;
    if (j) json_decref(j);
    return lessons;
}

static Diag *write_config(const Workspace *ws) {
    json_t *j = json_pack("{s:i, s:o}", "version", 1, "lessons", bytes_to_json(ws->lessons_root));
    char *text = json_dumps(j, JSON_INDENT(2));
    json_decref(j);
    char *cfg = path_join(ws->state_dir, "workspace.json");
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s\n", text);
    Diag *d = fs_write_file_atomic(cfg, sb.data, sb.len);
    strbuf_fini(&sb);
    free(cfg);
    free(text);
    return d;
}

/* Opens an existing or fresh workspace at dir (absolute); creates it when `create`. */
static Diag *workspace_load(const Cli *cli, const char *dir, bool create, Workspace **out) {
    *out = NULL;
    Workspace *ws = xcalloc(1, sizeof *ws);
    ws->dir = path_absolute(dir);
    ws->state_dir = path_join(ws->dir, WORKSPACE_MARK);
    ws->db_path = path_join(ws->state_dir, "progress.db");
    Diag *d = NULL;
    char *recorded = read_recorded_lessons(ws->state_dir);
    ws->lessons_root = lessons_find_root(cli->lessons_arg, recorded, &d);
    bool same = recorded && ws->lessons_root && !strcmp(recorded, ws->lessons_root);
    free(recorded);
    if (!ws->lessons_root) goto fail;
    ws->course_diags = course_load(ws->lessons_root, &ws->course);
    if (!ws->course) {
        d = ws->course_diags;
        ws->course_diags = NULL;
        goto fail;
    }
    if (ws->course->n_chapters == 0) {
        /* Every chapter refused (a hostile or broken pack): say why, at the author's file:line. */
        d = diag_count_errors(ws->course_diags) ? ws->course_diags : NULL;
        if (d) ws->course_diags = NULL;
        diag_append(&d, diag_error("lessons", "%s holds no course (no chapter folder with a chapter.lua%s); pass "
                                   "--lessons with a cudojo course folder", ws->lessons_root,
                                   d ? " that loads" : ""));
        goto fail;
    }
    /* Made, and the course saved, only once it loaded as a course, so a one-off
       mistyped --lessons neither sticks nor leaves a .cudojo behind; written only
       when it changes: most commands just read the workspace. */
    if (create && (d = fs_mkdir_p(ws->state_dir))) goto fail;
    if (!same && (d = write_config(ws))) goto fail;
    if ((d = store_open(ws->db_path, &ws->store))) goto fail;
    *out = ws;
    return NULL;
fail:
    workspace_close(&ws);
    return d;
}

Diag *workspace_open(const Cli *cli, Workspace **out) {
    char *dir = NULL;
    if (cli->workspace_arg) {
        dir = find_workspace_dir(cli->workspace_arg);
        if (!dir) return diag_error("workspace", "%s is not a cudojo workspace (run `cudojo init %s`)",
                                    cli->workspace_arg, cli->workspace_arg);
    } else {
        dir = find_workspace_dir(".");
    }
    bool fresh = false;
    if (!dir) {
        dir = xdg_data_dir();
        char *mark = path_join(dir, WORKSPACE_MARK);
        fresh = !fs_is_dir(mark);
        free(mark);
    }
    Diag *d = workspace_load(cli, dir, true, out);
    free(dir);
    if (!d) d = workspace_copy_missing(*out, NULL);
    (void)fresh;
    return d;
}

Diag *workspace_init(const Cli *cli, const char *dir, Workspace **out, int *n_copied) {
    Diag *d = fs_mkdir_p(dir);
    if (d) return d;
    d = workspace_load(cli, dir, true, out);
    if (d) return d;
    return workspace_copy_missing(*out, n_copied);
}

void workspace_close(Workspace **wsp) {
    Workspace *ws = *wsp;
    if (!ws) return;
    if (ws->store) store_close(&ws->store);
    course_free(&ws->course);
    diag_free(&ws->course_diags);
    free(ws->dir);
    free(ws->state_dir);
    free(ws->db_path);
    free(ws->lessons_root);
    free(ws);
    *wsp = NULL;
}

char *workspace_exercise_path(const Workspace *ws, const ChapterMeta *ch, const ExerciseMeta *ex) {
    char *chdir_path = path_join(ws->dir, ch->id);
    char *p = path_join(chdir_path, path_basename(ex->source));
    free(chdir_path);
    return p;
}

char *workspace_display_path(const char *abs_path) {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return xstrdup(abs_path);
    size_t n = strlen(cwd);
    if (!strncmp(abs_path, cwd, n) && abs_path[n] == '/') return xstrdup(abs_path + n + 1);
    return xstrdup(abs_path);
}

Diag *workspace_copy_missing(Workspace *ws, int *n_copied) {
    int copied = 0;
    for (int c = 0; c < ws->course->n_chapters; c++) {
        const ChapterMeta *ch = &ws->course->chapters[c];
        for (int e = 0; e < ch->n_exercises; e++) {
            const ExerciseMeta *ex = &ch->exercises[e];
            char *dst = workspace_exercise_path(ws, ch, ex);
            if (!fs_exists(dst)) {
                char *dstdir = path_dirname(dst);
                char *src = path_join(ch->dir, ex->source);
                Diag *d = fs_mkdir_p(dstdir);
                if (!d) d = fs_copy_file(src, dst);
                free(src);
                free(dstdir);
                if (d) {
                    free(dst);
                    return d;
                }
                copied++;
            }
            free(dst);
        }
    }
    if (n_copied) *n_copied = copied;
    return NULL;
}

Diag *workspace_find(const Workspace *ws, const char *id, const ChapterMeta **ch, const ExerciseMeta **ex) {
    /* Accept a path to the learner's file too ("hello-gpu/vector-add.cu"). */
    const char *base = path_basename(id);
    char *stem = xstrdup(base);
    char *dot = strrchr(stem, '.');
    if (dot && (!strcmp(dot, ".cu") || !strcmp(dot, ".lua"))) *dot = '\0';
    *ex = course_find_exercise(ws->course, id, ch);
    if (!*ex) *ex = course_find_exercise(ws->course, stem, ch);
    for (int c = 0; !*ex && c < ws->course->n_chapters; c++)
        for (int e = 0; e < ws->course->chapters[c].n_exercises; e++) {
            const ExerciseMeta *m = &ws->course->chapters[c].exercises[e];
            if (!strcmp(path_basename(m->source), base)) {
                *ex = m;
                *ch = &ws->course->chapters[c];
                break;
            }
        }
    if (*ex) {
        free(stem);
        return NULL;
    }
    StrBuf sb;
    strbuf_init(&sb);
    for (int c = 0; c < ws->course->n_chapters; c++)
        for (int e = 0; e < ws->course->chapters[c].n_exercises; e++) {
            const char *cand = ws->course->chapters[c].exercises[e].id;
            if (str_edit_distance(stem, cand) <= 3 || strstr(cand, stem))
                strbuf_printf(&sb, "%s%s", sb.len ? ", " : "", cand);
        }
    Diag *d = sb.len ? diag_error("usage", "no exercise '%s'. Did you mean: %s? (`cudojo list` shows them all)", id, sb.data)
                     : diag_error("usage", "no exercise '%s' (`cudojo list` shows them all)", id);
    strbuf_fini(&sb);
    free(stem);
    return d;
}

Diag *workspace_open_exercise(const Cli *cli, const char *id, Workspace **ws, const ChapterMeta **ch,
                              const ExerciseMeta **ex) {
    Diag *d = workspace_open(cli, ws);
    if (!d && (d = workspace_find(*ws, id, ch, ex))) workspace_close(ws);
    return d;
}
