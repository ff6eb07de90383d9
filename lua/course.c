/* lua/course.c: loading the course: every chapter folder holding
 * chapter.lua, and the exercises it lists, each file run in its own sandbox.
 *
 * Loading never stops at the first broken file: every problem becomes a
 * Diag naming the author's file (and the line of the offending field when
 * it can be found in the text), the broken exercise or chapter is left out
 * and the rest of the course still loads. */
#include <assert.h>
#include <dirent.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "lua/api.h"
#include "lua/exercise.h"
#include "lua/sandbox.h"

/* Bytes of gpu.array data a course file may make while it loads. */
#define COURSE_ARRAY_CAP ((size_t)16 << 20)

/* The largest course .lua file read (they hold a table and a run function). */
#define COURSE_FILE_MAX (4 << 20)

/* Course files only build tables: loading runs in the CLI's own process,
 * so each file gets a small budget, memory cap and wall-clock limit, and a
 * message naming the file that hit one. */
static const SandboxLimits load_limits = {20000000ull, (size_t)64 << 20, 2.0, "loading this course file", NULL};

/* The most an exercise may be worth (a typo of 1000000 is not a grade). */
#define COURSE_POINTS_MAX 10000.0

/* The longest run an exercise may ask for with `timeout`. */
#define COURSE_TIMEOUT_MAX 600.0

static const char *const exercise_fields[] = {
    "id", "title", "source", "solution", "wrong", "hints", "timeout", "needs_gpu", "run",
    "params", "description", "title_zh", "hints_zh", "tags", "kind", "points", "bug_hunt", "gpus", "hint_for",
    "bug", "mutants_equivalent", "mutants_undetected", "timed", NULL,
};
static const char *const chapter_fields[] = {
    "id", "title", "title_zh", "order", "exercises", "description", NULL,
};

/* Line (1-based) of the first line whose first token is `field =`, else 0. */
static int field_line(const char *text, const char *field) {
    size_t n = strlen(field);
    int line = 1;
    for (const char *p = text; p && *p; line++) {
        const char *q = p + strspn(p, " \t");
        if (!strncmp(q, field, n)) {
            const char *r = q + n;
            r += strspn(r, " \t");
            if (r[0] == '=' && r[1] != '=') return line;
        }
        p = strchr(p, '\n');
        if (p) p++;
    }
    return 0;
}

/* Line of the last top-level `return`, where a whole-table problem points. */
static int return_line(const char *text) {
    int line = 1, found = 0;
    for (const char *p = text; p && *p; line++) {
        if (!strncmp(p, "return", 6)) found = line;
        p = strchr(p, '\n');
        if (p) p++;
    }
    return found;
}

/* An id names a folder or file of the learner's workspace, so it must be
 * one harmless path component: ".." or ".bashrc" as a chapter id wrote
 * outside the workspace (or into a hidden file). */
static bool valid_id(const char *s) {
    if (!*s || *s == '.' || strlen(s) > 100) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return false;
    return true;
}

/* True when the real path of `p` is `dir_real` or below it. */
static bool course_path_inside(const char *p, const char *dir_real) {
    size_t n = strlen(dir_real);
    return !strncmp(p, dir_real, n) && (p[n] == '/' || p[n] == '\0' || (n == 1 && dir_real[0] == '/'));
}

/* Why `rel`, a path a course file names, does not stay inside the folder
 * `dir`; NULL when it does (or when it does not exist: the caller says
 * "not found"). Course packs come from anyone: an absolute path, a ".."
 * or a symlink out of the folder would copy /etc/passwd into a workspace.
 * `folder` names dir in messages ("chapter folder"). Caller frees. */
static char *course_path_problem(const char *dir, const char *rel, const char *folder) {
    if (!*rel) return xstrdup("is empty");
    if (rel[0] == '/') return xasprintf("is absolute; paths are relative to the %s", folder);
    for (const char *c = rel; *c; c = strchr(c, '/') ? strchr(c, '/') + 1 : c + strlen(c))
        if (!strncmp(c, "..", 2) && (c[2] == '/' || c[2] == '\0'))
            return xasprintf("leaves the %s ('..'); paths must stay inside it", folder);
    char *p = path_join(dir, rel);
    char *real = realpath(p, NULL), *dir_real = realpath(dir, NULL);
    char *why = NULL;
    if (real && dir_real && !course_path_inside(real, dir_real))
        why = xasprintf("is a symlink leading outside the %s (to %s)", folder, real);
    free(real);
    free(dir_real);
    free(p);
    return why;
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Context for diagnosing one file. */
typedef struct FileCtx {
    const char *display;
    const char *text;
    Diag **diags;
} FileCtx;

static void report(FileCtx *f, DiagSeverity sev, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void report(FileCtx *f, DiagSeverity sev, const char *field, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    int line = field ? field_line(f->text, field) : 0;
    if (!line) line = return_line(f->text);
    Diag *d = diag_new(sev, "lesson", f->display, line, 0, "%s", msg);
    diag_set_excerpt(d, f->text);
    diag_append(f->diags, d);
    free(msg);
}

/* Raw string field of the table at index t (no metamethods run). */
static const char *get_string(lua_State *L, int t, const char *k, bool *wrong_type) {
    lua_pushstring(L, k);
    lua_rawget(L, t);
    const char *s = NULL;
    *wrong_type = false;
    if (lua_type(L, -1) == LUA_TSTRING) s = lua_tostring(L, -1);
    else if (!lua_isnil(L, -1)) *wrong_type = true;
    lua_pop(L, 1); /* the string stays alive: it is referenced by the table */
    return s;
}

static int get_type(lua_State *L, int t, const char *k) {
    lua_pushstring(L, k);
    return lua_rawget(L, t);
}

/* Reads an array of strings at field k; NULL/0 when absent. */
static char **get_string_list(lua_State *L, int t, const char *k, int *n, FileCtx *f) {
    *n = 0;
    int ty = get_type(L, t, k);
    char **out = NULL;
    if (ty == LUA_TTABLE) {
        lua_Integer len = (lua_Integer)lua_rawlen(L, -1);
        for (lua_Integer i = 1; i <= len; i++) {
            if (lua_rawgeti(L, -1, i) == LUA_TSTRING) {
                out = xrealloc(out, (size_t)(*n + 1) * sizeof *out);
                out[(*n)++] = xstrdup(lua_tostring(L, -1));
            } else {
                report(f, DIAG_ERROR, k, "%s[%d] must be a string", k, (int)i);
            }
            lua_pop(L, 1);
        }
    } else if (ty != LUA_TNIL) {
        report(f, DIAG_ERROR, k, "%s must be a list of strings, not a %s", k, lua_typename(L, ty));
    }
    lua_pop(L, 1);
    return out;
}

/* hint_for = { race = 2, ["out-of-bounds"] = 1 }: which hint (1-based) to
 * offer first when a run fails that way. Keys are failure kinds
 * (COURSE_HINT_KINDS), values hint numbers of this exercise. */
static void read_hint_for(lua_State *L, int t, ExerciseMeta *e, FileCtx *f) {
    static const char *const kinds[] = {COURSE_HINT_KINDS, NULL};
    int ty = get_type(L, t, "hint_for");
    if (ty == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
            bool known = false;
            for (const char *const *p = kinds; k && *p && !known; p++) known = !strcmp(*p, k);
            if (!k) {
                report(f, DIAG_ERROR, "hint_for", "hint_for's keys are failure kinds (strings such as \"race\")");
            } else if (!known) {
                report(f, DIAG_WARNING, "hint_for", "hint_for: unknown failure kind '%s' (ignored; the kinds are "
                       "%s)", k, COURSE_HINT_KINDS_TEXT);
            } else if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > e->n_hints) {
                report(f, DIAG_ERROR, "hint_for", "hint_for[\"%s\"] must be a hint number from 1 to %d", k, e->n_hints);
            } else {
                e->hint_for_kind = xrealloc(e->hint_for_kind, (size_t)(e->n_hint_for + 1) * sizeof *e->hint_for_kind);
                e->hint_for_index = xrealloc(e->hint_for_index, (size_t)(e->n_hint_for + 1) * sizeof *e->hint_for_index);
                e->hint_for_kind[e->n_hint_for] = xstrdup(k);
                e->hint_for_index[e->n_hint_for++] = (int)lua_tointeger(L, -1) - 1;
            }
            lua_pop(L, 1);
        }
    } else if (ty != LUA_TNIL) {
        report(f, DIAG_ERROR, "hint_for", "hint_for must be a table of failure kind = hint number, not a %s",
               lua_typename(L, ty));
    }
    lua_pop(L, 1);
}

/* bug = "race": the finding a bug hunt's starter must show on the emulator. */
static void read_bug(lua_State *L, int t, ExerciseMeta *e, FileCtx *f) {
    static const char *const kinds[] = {"out-of-bounds", "race",          "barrier",      "uninitialised",
                                        "launch-error",  "runtime-error", "wrong-result", "timeout", NULL};
    bool wt;
    const char *bug = get_string(L, t, "bug", &wt);
    bool known = false;
    for (const char *const *p = kinds; bug && *p && !known; p++) known = !strcmp(*p, bug);
    if (wt || (bug && !known))
        report(f, DIAG_ERROR, "bug", "bug must name what the starter shows on the emulator: \"out-of-bounds\", "
               "\"race\", \"barrier\", \"uninitialised\", \"launch-error\", \"runtime-error\", \"wrong-result\" "
               "(a check fails, no finding) or \"timeout\"");
    else if (bug && !e->bug_hunt)
        report(f, DIAG_ERROR, "bug", "bug is for bug hunts: say bug_hunt = true too");
    else if (bug)
        e->bug = xstrdup(bug);
}

/* mutants_equivalent = { { mutation = "drop __syncthreads()", line = "...", why = "..." }, ... }:
 * mutants of the solution that are still correct (verify --mutants);
 * mutants_undetected, the same shape: wrong code no check can catch on
 * the emulator (its blind spots), each saying why. */
static void read_equivalent(lua_State *L, int t, ExerciseMeta *e, FileCtx *f, const char *field) {
    static const char *const keys[] = {"mutation", "line", "why"};
    int ty = get_type(L, t, field);
    if (ty == LUA_TTABLE) {
        lua_Integer len = (lua_Integer)lua_rawlen(L, -1);
        for (lua_Integer i = 1; i <= len; i++) {
            const char *v[3] = {NULL, NULL, NULL};
            if (lua_rawgeti(L, -1, i) == LUA_TTABLE) {
                for (int k = 0; k < 3; k++) {
                    bool wt;
                    v[k] = get_string(L, lua_gettop(L), keys[k], &wt);
                    if (!v[k] || !*v[k]) {
                        report(f, DIAG_ERROR, field, "%s[%d] needs %s = \"...\" (%s)", field,
                               (int)i, keys[k], k == 0 ? "the mutation as verify --mutants names it"
                                                : k == 1 ? "text of the solution's line it changes"
                                                         : "why the mutant is still correct, or not caught");
                        break;
                    }
                }
            } else {
                report(f, DIAG_ERROR, field, "%s[%d] must be a table { mutation = ..., line = ..., why = ... }", field,
                       (int)i);
            }
            if (v[0] && v[1] && v[2]) {
                e->equivalent = xrealloc(e->equivalent, (size_t)(e->n_equivalent + 1) * sizeof *e->equivalent);
                e->equivalent[e->n_equivalent++] = (MutantEquivalent){xstrdup(v[0]), xstrdup(v[1]), xstrdup(v[2]),
                                                                       !strcmp(field, "mutants_undetected")};
            }
            lua_pop(L, 1);
        }
    } else if (ty != LUA_TNIL) {
        report(f, DIAG_ERROR, field, "%s must be a list of tables, not a %s", field, lua_typename(L, ty));
    }
    lua_pop(L, 1);
}

static void warn_unknown_fields(lua_State *L, int t, const char *const *known, FileCtx *f) {
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) continue;
        const char *k = lua_tostring(L, -1);
        bool ok = false;
        for (const char *const *p = known; *p && !ok; p++) ok = !strcmp(*p, k);
        if (!ok) report(f, DIAG_WARNING, k, "unknown field '%s' (ignored)", k);
    }
}

/* Runs `path` in a fresh sandbox; on success the returned table is on top
 * of the sandbox's stack. */
static Sandbox *run_file(const char *path, const char *display, char **text, Diag **diags, ApiCtx *actx) {
    *text = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size > COURSE_FILE_MAX)) {
        if (S_ISREG(st.st_mode))
            diag_append(diags, diag_new(DIAG_ERROR, "lesson", display, 0, 0, "%s is larger than %d MiB", display,
                                        COURSE_FILE_MAX >> 20));
        else diag_append(diags, diag_new(DIAG_ERROR, "lesson", display, 0, 0, "%s is not a regular file", display));
        return NULL;
    }
    Diag *d = fs_read_file(path, text, NULL);
    if (d) {
        diag_free(&d);
        diag_append(diags, diag_new(DIAG_ERROR, "lesson", display, 0, 0, "cannot read %s", path));
        return NULL;
    }
    Sandbox *sb = sandbox_new(&load_limits);
    /* No backend (arrays cannot reach a device) and a small array cap: a
     * file's top level making gpu.arrays in a loop grew the CLI without end. */
    memset(actx, 0, sizeof *actx);
    actx->array_cap = COURSE_ARRAY_CAP;
    sandbox_set_user(sb, actx);
    api_install(sb);
    char *dir = path_dirname(path), *shown = path_dirname(display);
    sandbox_enable_require(sb, dir, shown);   /* the chapter's lib/ modules */
    free(dir);
    free(shown);
    d = sandbox_load_string(sb, *text, strlen(*text), display);
    if (!d) d = sandbox_call(sb, 0, 1);
    if (!d && !lua_istable(sandbox_lua(sb), -1)) {
        FileCtx f = {display, *text, diags};
        report(&f, DIAG_ERROR, NULL, "%s must return a table (got %s)", path_basename(display),
               luaL_typename(sandbox_lua(sb), -1));
        sandbox_free(&sb);
        return NULL;
    }
    if (d) {
        diag_append(diags, d);
        sandbox_free(&sb);
        return NULL;
    }
    return sb;
}

/* Adds the chapter's modules (lib/<name>.lua, the files require can load)
 * to h in name order, each as "\0lib/<name>.lua\0<text>": a changed helper
 * changes every exercise's definition, so the course version changes too.
 * Nothing is added when the chapter has no lib/ folder. */
static void hash_chapter_modules(Sha256 *h, const char *chapter_dir) {
    char *lib = path_join(chapter_dir, SANDBOX_MODULE_DIR);
    DIR *d = opendir(lib);
    char **names = NULL;
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".lua")) continue;
        char *stem = xstrndup(de->d_name, len - 4);
        if (sandbox_module_name_ok(stem)) {
            names = xrealloc(names, (size_t)(n + 1) * sizeof *names);
            names[n++] = xstrdup(de->d_name);
        }
        free(stem);
    }
    if (d) closedir(d);
    if (n > 1) qsort(names, (size_t)n, sizeof *names, str_cmp);
    for (int i = 0; i < n; i++) {
        char *p = path_join(lib, names[i]), *text = NULL;
        size_t len = 0;
        Diag *rd = fs_read_file_max(p, SANDBOX_MODULE_FILE_MAX, &text, &len);
        diag_free(&rd);
        sha256_update(h, "\0" SANDBOX_MODULE_DIR "/", 1 + sizeof SANDBOX_MODULE_DIR);
        sha256_update(h, names[i], strlen(names[i]) + 1);   /* with its NUL */
        if (text) sha256_update(h, text, len);
        free(text);
        free(p);
        free(names[i]);
    }
    free(names);
    free(lib);
}

Diag *course_check_module(const ChapterMeta *ch, const char *name) {
    assert(!strcmp(COURSE_MODULE_DIR, SANDBOX_MODULE_DIR));
    if (!sandbox_module_name_ok(name))
        return diag_error("lesson", "require '%s': a module name is one identifier (letters, digits and '_', at "
                          "most %d, no '/', '.' or '..'): the file %s/<name>.lua of this chapter", name,
                          SANDBOX_MODULE_NAME_MAX, SANDBOX_MODULE_DIR);
    char *rel = xasprintf("%s/%s.lua", SANDBOX_MODULE_DIR, name);
    char *path = path_join(ch->dir, rel), *display = path_join(ch->rel_dir, rel);
    char *why = course_path_problem(ch->dir, rel, "chapter folder");
    Diag *d = NULL;
    if (why) {
        d = diag_error("lesson", "require '%s': %s %s", name, display, why);
    } else if (!fs_exists(path)) {
        d = diag_error("lesson", "require '%s': no such module of this chapter (%s does not exist)", name, display);
    } else if (fs_is_dir(path)) {
        d = diag_error("lesson", "require '%s': %s is a directory, not a Lua file", name, display);
    } else {
        /* Compiled, never run: a module's code runs only in a run. */
        Sandbox *sb = sandbox_new(&load_limits);
        Diag *ld = sandbox_load_file(sb, path, display);
        if (ld && ld->file && ld->line > 0)
            d = diag_error("lesson", "require '%s': the module does not compile: %s:%d: %s", name, ld->file,
                           ld->line, ld->message);
        else if (ld)
            d = diag_error("lesson", "require '%s': %s", name, ld->message);
        diag_free(&ld);
        sandbox_free(&sb);
    }
    free(why);
    free(display);
    free(path);
    free(rel);
    return d;
}

static bool check_file(FileCtx *f, const char *dir, const char *rel, const char *field, const char *what) {
    char *why = course_path_problem(dir, rel, "chapter folder");
    if (why) {
        report(f, DIAG_ERROR, field, "%s file '%s' %s", what, rel, why);
        free(why);
        return false;
    }
    char *p = path_join(dir, rel);
    bool ok = fs_exists(p) && !fs_is_dir(p);
    if (!ok) report(f, DIAG_ERROR, field, "%s file '%s' not found next to %s", what, rel, path_basename(f->display));
    free(p);
    return ok;
}

static void exercise_meta_fini(ExerciseMeta *e) {
    free(e->id);
    free(e->title);
    free(e->chapter_id);
    free(e->lua_path);
    free(e->chunkname);
    free(e->source);
    free(e->solution);
    for (int i = 0; i < e->n_wrong; i++) free(e->wrong[i]);
    free(e->wrong);
    for (int i = 0; i < e->n_hints; i++) free(e->hints[i]);
    free(e->hints);
    for (int i = 0; i < e->n_hints_zh; i++) free(e->hints_zh[i]);
    free(e->hints_zh);
    for (int i = 0; i < e->n_hint_for; i++) free(e->hint_for_kind[i]);
    free(e->hint_for_kind);
    free(e->hint_for_index);
    free(e->bug);
    for (int i = 0; i < e->n_equivalent; i++) {
        free(e->equivalent[i].op);
        free(e->equivalent[i].line);
        free(e->equivalent[i].why);
    }
    free(e->equivalent);
    free(e->title_zh);
    free(e->def_hash);
    memset(e, 0, sizeof *e);
}

static void chapter_meta_fini(ChapterMeta *c) {
    for (int i = 0; i < c->n_exercises; i++) exercise_meta_fini(&c->exercises[i]);
    free(c->exercises);
    free(c->id);
    free(c->title);
    free(c->title_zh);
    free(c->dir);
    free(c->rel_dir);
    memset(c, 0, sizeof *c);
}

/* kind = "kernel" (the default: NVRTC, t:kernel) or "program" (a whole
 * program with main(): nvcc, t:program). */
static void read_kind(lua_State *L, int t, ExerciseMeta *e, FileCtx *f) {
    bool wt;
    const char *kind = get_string(L, t, "kind", &wt);
    if (wt || (kind && strcmp(kind, "kernel") && strcmp(kind, "program")))
        report(f, DIAG_ERROR, "kind",
               "kind must be \"kernel\" (the default) or \"program\" (a whole program with main())%s%s%s",
               kind ? ", not \"" : "", kind ? kind : "", kind ? "\"" : "");
    e->program = kind && !strcmp(kind, "program");
}

/* Loads one exercise; false (with Diags) when it cannot be used. */
static bool load_exercise(ChapterMeta *ch, const char *stem, ExerciseMeta *e, Diag **diags) {
    memset(e, 0, sizeof *e);
    char *file = xasprintf("%s.lua", stem);
    char *path = path_join(ch->dir, file);
    char *display = xasprintf("%s/%s", ch->rel_dir, file);
    free(file);
    char *text = NULL;
    bool ok = false;
    ApiCtx actx;
    Sandbox *sb = run_file(path, display, &text, diags, &actx);
    if (!sb) goto done;
    lua_State *L = sandbox_lua(sb);
    int t = lua_gettop(L);
    FileCtx f = {display, text, diags};
    int errors_before = diag_count_errors(*diags);
    bool wt;

    const char *id = get_string(L, t, "id", &wt);
    if (!id) report(&f, DIAG_ERROR, wt ? "id" : NULL, "exercise has no string field 'id' (a stable id, e.g. id = \"%s\")", stem);
    else if (!valid_id(id))
        report(&f, DIAG_ERROR, "id", "id '%s' must be one name of letters, digits, '-', '_' and '.' (not starting with '.')",
               id);
    const char *title = get_string(L, t, "title", &wt);
    if (wt) report(&f, DIAG_ERROR, "title", "title must be a string");
    const char *source = get_string(L, t, "source", &wt);
    bool source_ok = false;
    if (!source) report(&f, DIAG_ERROR, wt ? "source" : NULL, "exercise has no string field 'source' (the starter .cu file)");
    else source_ok = check_file(&f, ch->dir, source, "source", "source");
    const char *solution = get_string(L, t, "solution", &wt);
    if (wt) report(&f, DIAG_ERROR, "solution", "solution must be a string (a path relative to the chapter folder)");
    /* The default solution derives from the source: one error about a bad source is enough. */
    char *sol = solution ? xstrdup(solution) : source && source_ok ? xasprintf("solutions/%s", source) : NULL;
    if (sol) check_file(&f, ch->dir, sol, solution ? "solution" : "source", "solution");
    e->wrong = get_string_list(L, t, "wrong", &e->n_wrong, &f);
    for (int i = 0; i < e->n_wrong; i++) check_file(&f, ch->dir, e->wrong[i], "wrong", "wrong-variant");
    e->hints = get_string_list(L, t, "hints", &e->n_hints, &f);
    e->hints_zh = get_string_list(L, t, "hints_zh", &e->n_hints_zh, &f);
    const char *title_zh = get_string(L, t, "title_zh", &wt);
    if (e->n_hints < 2) report(&f, DIAG_WARNING, e->n_hints ? "hints" : NULL, "an exercise should have at least 2 hints (has %d)", e->n_hints);
    read_hint_for(L, t, e, &f);
    e->timeout_s = 10;
    int ty = get_type(L, t, "timeout");
    if (ty == LUA_TNUMBER && lua_tonumber(L, -1) > 0) e->timeout_s = lua_tonumber(L, -1), e->timeout_given = true;
    else if (ty != LUA_TNIL) report(&f, DIAG_ERROR, "timeout", "timeout must be a positive number of seconds");
    if (e->timeout_s > COURSE_TIMEOUT_MAX) {
        report(&f, DIAG_WARNING, "timeout", "timeout = %g is above the ceiling of %.0f s; using %.0f s", e->timeout_s,
               COURSE_TIMEOUT_MAX, COURSE_TIMEOUT_MAX);
        e->timeout_s = COURSE_TIMEOUT_MAX;
    }
    lua_pop(L, 1);
    e->points = 1;
    ty = get_type(L, t, "points");
    if (ty == LUA_TNUMBER && lua_tonumber(L, -1) > 0 && lua_tonumber(L, -1) <= COURSE_POINTS_MAX)
        e->points = lua_tonumber(L, -1);
    else if (ty != LUA_TNIL)
        report(&f, DIAG_ERROR, "points", "points must be a positive number (at most %g): what passing the exercise is "
               "worth when grading", COURSE_POINTS_MAX);
    lua_pop(L, 1);
    ty = get_type(L, t, "needs_gpu");
    if (ty == LUA_TBOOLEAN) e->needs_gpu = lua_toboolean(L, -1);
    else if (ty != LUA_TNIL) report(&f, DIAG_ERROR, "needs_gpu", "needs_gpu must be true or false");
    lua_pop(L, 1);
    ty = get_type(L, t, "bug_hunt");
    if (ty == LUA_TBOOLEAN) e->bug_hunt = lua_toboolean(L, -1);
    else if (ty != LUA_TNIL) report(&f, DIAG_ERROR, "bug_hunt", "bug_hunt must be true or false");
    lua_pop(L, 1);
    read_bug(L, t, e, &f);
    read_equivalent(L, t, e, &f, "mutants_equivalent");
    read_equivalent(L, t, e, &f, "mutants_undetected");
    e->gpus = 1;
    ty = get_type(L, t, "gpus");
    if (ty == LUA_TNUMBER && lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= 64)
        e->gpus = (int)lua_tointeger(L, -1);
    else if (ty != LUA_TNIL)
        report(&f, DIAG_ERROR, "gpus", "gpus must be a whole number from 1 to 64: how many GPUs the exercise "
               "needs on a real machine");
    lua_pop(L, 1);
    read_kind(L, t, e, &f);
    /* timed: whether a program exercise's checks read the program's times
       (default true: on a GPU it then runs alone, kernels/gpu_lock.h). */
    e->timed = e->program;
    ty = get_type(L, t, "timed");
    if (ty == LUA_TBOOLEAN && e->program) e->timed = lua_toboolean(L, -1);
    else if (ty == LUA_TBOOLEAN)
        report(&f, DIAG_ERROR, "timed", "timed is for program exercises (kind = \"program\"); a kernel exercise "
               "times what it runs with k:time");
    else if (ty != LUA_TNIL)
        report(&f, DIAG_ERROR, "timed", "timed must be true or false: whether the checks read the program's times");
    lua_pop(L, 1);
    ty = get_type(L, t, "run");
    if (ty != LUA_TFUNCTION)
        report(&f, DIAG_ERROR, ty == LUA_TNIL ? NULL : "run", "exercise has no function 'run' (run = function(t) ... end)");
    lua_pop(L, 1);
    warn_unknown_fields(L, t, exercise_fields, &f);

    ok = diag_count_errors(*diags) == errors_before;
    if (ok) {
        e->id = xstrdup(id);
        e->title = xstrdup(title ? title : id);
        e->title_zh = xstrdup(title_zh);
        e->chapter_id = xstrdup(ch->id);
        e->lua_path = xstrdup(path);
        e->chunkname = xasprintf("@%s", display);
        e->source = xstrdup(source);
        e->solution = sol;
        sol = NULL;
        /* The definition hash changes when the exercise or its starter does. */
        Sha256 h;
        sha256_init(&h);
        sha256_update(&h, text, strlen(text));
        char *sp = path_join(ch->dir, source), *stext = NULL;
        size_t slen = 0;
        Diag *rd = fs_read_file(sp, &stext, &slen);
        diag_free(&rd);
        sha256_update(&h, "\0", 1);
        if (stext) sha256_update(&h, stext, slen);
        hash_chapter_modules(&h, ch->dir);
        unsigned char dig[32];
        sha256_final(&h, dig);
        e->def_hash = xmalloc(65);
        sha256_to_hex(dig, e->def_hash);
        free(stext);
        free(sp);
    }
    free(sol);
    sandbox_free(&sb);
done:
    if (!ok) exercise_meta_fini(e);
    free(text);
    free(path);
    free(display);
    return ok;
}

/* Leading number of a folder name ("03-shared" → 3), the fallback order. */
static int dir_number(const char *base) {
    return (base[0] >= '0' && base[0] <= '9') ? atoi(base) : 1000;
}

/* shown: how messages name the folder (NULL: "lessons/<folder name>"). */
static bool load_chapter(const char *dir_abs, const char *shown, ChapterMeta *ch, Diag **diags) {
    memset(ch, 0, sizeof *ch);
    ch->dir = xstrdup(dir_abs);
    ch->rel_dir = shown ? xstrdup(shown) : xasprintf("lessons/%s", path_basename(dir_abs));
    char *path = path_join(dir_abs, "chapter.lua");
    char *display = xasprintf("%s/chapter.lua", ch->rel_dir);
    char *text = NULL;
    bool ok = false;
    Sandbox *sb = NULL;
    ApiCtx actx;
    char *why = course_path_problem(dir_abs, "chapter.lua", "chapter folder");
    if (why) {
        diag_append(diags, diag_new(DIAG_ERROR, "lesson", display, 0, 0, "%s %s", display, why));
        free(why);
        goto done;
    }
    sb = run_file(path, display, &text, diags, &actx);
    if (!sb) goto done;
    lua_State *L = sandbox_lua(sb);
    int t = lua_gettop(L);
    FileCtx f = {display, text, diags};
    bool wt;
    const char *id = get_string(L, t, "id", &wt);
    if (!id || !valid_id(id)) {
        report(&f, DIAG_ERROR, id || wt ? "id" : NULL,
               "chapter.lua needs id = \"...\" (one name of letters, digits, '-', '_', '.', not starting with '.'; "
               "stable across renumbering)");
        goto done;
    }
    ch->id = xstrdup(id);
    const char *title = get_string(L, t, "title", &wt);
    ch->title = xstrdup(title ? title : id);
    ch->title_zh = xstrdup(get_string(L, t, "title_zh", &wt));
    int ty = get_type(L, t, "order");
    if (ty == LUA_TNUMBER) {
        ch->order = (int)lua_tointeger(L, -1);
    } else {
        ch->order = dir_number(path_basename(dir_abs));
        report(&f, DIAG_WARNING, ty == LUA_TNIL ? NULL : "order",
               "chapter.lua has no numeric 'order'; using %d from the folder name", ch->order);
    }
    lua_pop(L, 1);
    if (get_type(L, t, "exercises") != LUA_TTABLE)
        report(&f, DIAG_ERROR, "exercises", "chapter.lua needs exercises = { \"file-stem\", ... } listing its exercises in order");
    lua_pop(L, 1);
    warn_unknown_fields(L, t, chapter_fields, &f);
    int n_stems = 0;
    char **stems = get_string_list(L, t, "exercises", &n_stems, &f);
    for (int i = 0; i < n_stems; i++) {
        char *ep = xasprintf("%s/%s.lua", dir_abs, stems[i]);
        char *bad = NULL;
        if (!valid_id(stems[i])) {
            report(&f, DIAG_ERROR, "exercises", "exercise '%s' must name a file of this folder, without '.lua' "
                   "(letters, digits, '-', '_', '.', not starting with '.')", stems[i]);
        } else if ((bad = course_path_problem(dir_abs, path_basename(ep), "chapter folder"))) {
            report(&f, DIAG_ERROR, "exercises", "exercise file %s/%s.lua %s", ch->rel_dir, stems[i], bad);
        } else if (!fs_exists(ep)) {
            report(&f, DIAG_ERROR, "exercises", "exercise '%s' is listed but %s/%s.lua does not exist", stems[i],
                   ch->rel_dir, stems[i]);
        } else {
            ch->exercises = xrealloc(ch->exercises, (size_t)(ch->n_exercises + 1) * sizeof *ch->exercises);
            if (load_exercise(ch, stems[i], &ch->exercises[ch->n_exercises], diags)) ch->n_exercises++;
        }
        free(bad);
        free(ep);
        free(stems[i]);
    }
    free(stems);
    ok = true;
done:
    sandbox_free(&sb);
    if (!ok) chapter_meta_fini(ch);
    free(text);
    free(path);
    free(display);
    return ok;
}

static int chapter_cmp(const void *a, const void *b) {
    const ChapterMeta *x = a, *y = b;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    return strcmp(x->rel_dir, y->rel_dir);
}

/* Ids must be unique across the course: later duplicates are dropped. */
static void drop_duplicates(Course *c, Diag **diags) {
    for (int i = 0; i < c->n_chapters; i++) {
        ChapterMeta *ch = &c->chapters[i];
        for (int j = 0; j < i; j++) {
            if (c->chapters[j].id && ch->id && !strcmp(c->chapters[j].id, ch->id))
                diag_append(diags, diag_new(DIAG_ERROR, "lesson", ch->rel_dir, 0, 0,
                                            "chapter id '%s' is also used by %s; chapter ids must be unique",
                                            ch->id, c->chapters[j].rel_dir));
        }
        for (int k = 0; k < ch->n_exercises; k++) {
            ExerciseMeta *e = &ch->exercises[k];
            const ExerciseMeta *other = NULL;
            for (int j = 0; j <= i && !other; j++)
                for (int m = 0; m < (j == i ? k : c->chapters[j].n_exercises) && !other; m++)
                    if (!strcmp(c->chapters[j].exercises[m].id, e->id)) other = &c->chapters[j].exercises[m];
            if (!other) continue;
            char *text = NULL;
            Diag *rd = fs_read_file(e->lua_path, &text, NULL);
            diag_free(&rd);
            FileCtx f = {e->chunkname + 1, text ? text : "", diags};
            report(&f, DIAG_ERROR, "id", "exercise id '%s' is also used by %s; ids must be unique across the course",
                   e->id, other->chunkname + 1);
            free(text);
            exercise_meta_fini(e);
            memmove(e, e + 1, (size_t)(ch->n_exercises - k - 1) * sizeof *e);
            ch->n_exercises--;
            k--;
        }
    }
}

static Diag *load_dirs(char **dirs, char *const *shown, int n, const char *root, Course **out) {
    Diag *diags = NULL;
    Course *c = xcalloc(1, sizeof *c);
    c->root = xstrdup(root);
    for (int i = 0; i < n; i++) {
        char *cl = path_join(dirs[i], "chapter.lua");
        if (!fs_exists(cl)) {
            diag_append(&diags, diag_error("lesson", "%s is not a chapter folder (it has no chapter.lua)", dirs[i]));
        } else {
            c->chapters = xrealloc(c->chapters, (size_t)(c->n_chapters + 1) * sizeof *c->chapters);
            if (load_chapter(dirs[i], shown ? shown[i] : NULL, &c->chapters[c->n_chapters], &diags)) c->n_chapters++;
        }
        free(cl);
    }
    if (c->n_chapters > 1) qsort(c->chapters, (size_t)c->n_chapters, sizeof *c->chapters, chapter_cmp);
    drop_duplicates(c, &diags);
    *out = c;
    return diags;
}

Diag *course_load(const char *lessons_root, Course **out) { return course_load_as(lessons_root, NULL, out); }

Diag *course_load_as(const char *lessons_root, const char *shown_root, Course **out) {
    *out = NULL;
    char *root = path_absolute(lessons_root);
    DIR *d = fs_is_dir(root) ? opendir(root) : NULL;
    if (!d) {
        Diag *e = diag_error("lesson", "no lessons folder at %s", lessons_root);
        free(root);
        return e;
    }
    char **dirs = NULL;
    int n = 0;
    struct dirent *de;
    Diag *outside = NULL;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char *p = path_join(root, de->d_name);
        char *cl = path_join(p, "chapter.lua");
        char *why = NULL;
        if (fs_is_dir(p) && (why = course_path_problem(root, de->d_name, "course folder"))) {
            diag_append(&outside, diag_error("lesson", "%s/%s %s", shown_root ? shown_root : "lessons", de->d_name, why));
            free(why);
            free(p);
        } else if (fs_is_dir(p) && fs_exists(cl)) {
            dirs = xrealloc(dirs, (size_t)(n + 1) * sizeof *dirs);
            dirs[n++] = p;
        } else {
            free(p);
        }
        free(cl);
    }
    closedir(d);
    if (n > 1) qsort(dirs, (size_t)n, sizeof *dirs, str_cmp);
    char **shown = shown_root ? xcalloc((size_t)n + 1, sizeof *shown) : NULL;
    for (int i = 0; shown && i < n; i++)   /* "." (the current directory) shows as the folder names alone */
        shown[i] = strcmp(shown_root, ".") ? path_join(shown_root, path_basename(dirs[i])) : xstrdup(path_basename(dirs[i]));
    Diag *diags = load_dirs(dirs, shown, n, root, out);
    for (int i = 0; shown && i < n; i++) free(shown[i]);
    free(shown);
    diag_append(&outside, diags);
    diags = outside;
    for (int i = 0; i < n; i++) free(dirs[i]);
    free(dirs);
    free(root);
    return diags;
}

Diag *course_load_dirs(const char *const *dirs, int n_dirs, Course **out) {
    return course_load_dirs_as(dirs, NULL, n_dirs, out);
}

Diag *course_load_dirs_as(const char *const *dirs, const char *const *shown, int n_dirs, Course **out) {
    char **abs = xcalloc((size_t)(n_dirs > 0 ? n_dirs : 1), sizeof *abs);
    for (int i = 0; i < n_dirs; i++) abs[i] = path_absolute(dirs[i]);
    char *root = n_dirs > 0 ? path_dirname(abs[0]) : xstrdup(".");
    Diag *diags = load_dirs(abs, (char *const *)shown, n_dirs, root, out);
    for (int i = 0; i < n_dirs; i++) free(abs[i]);
    free(abs);
    free(root);
    return diags;
}

void course_free(Course **cp) {
    Course *c = *cp;
    if (!c) return;
    for (int i = 0; i < c->n_chapters; i++) chapter_meta_fini(&c->chapters[i]);
    free(c->chapters);
    free(c->root);
    free(c);
    *cp = NULL;
}

const ExerciseMeta *course_find_exercise(const Course *c, const char *id, const ChapterMeta **chapter) {
    if (chapter) *chapter = NULL;
    if (!c || !id) return NULL;
    const char *slash = strchr(id, '/');
    for (int i = 0; i < c->n_chapters; i++) {
        const ChapterMeta *ch = &c->chapters[i];
        const char *eid = id;
        if (slash) {
            size_t n = (size_t)(slash - id);
            if (strlen(ch->id) != n || strncmp(ch->id, id, n)) continue;
            eid = slash + 1;
        }
        for (int k = 0; k < ch->n_exercises; k++) {
            if (!strcmp(ch->exercises[k].id, eid)) {
                if (chapter) *chapter = ch;
                return &ch->exercises[k];
            }
        }
    }
    return NULL;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *course_version(const Course *c) {
    int n = 0;
    for (int i = 0; i < c->n_chapters; i++) n += c->chapters[i].n_exercises;
    char **lines = xcalloc((size_t)n + 1, sizeof *lines);
    int k = 0;
    for (int i = 0; i < c->n_chapters; i++)
        for (int e = 0; e < c->chapters[i].n_exercises; e++) {
            const ExerciseMeta *ex = &c->chapters[i].exercises[e];
            lines[k++] = xasprintf("%s/%s %s %g\n", c->chapters[i].id, ex->id, ex->def_hash, ex->points);
        }
    qsort(lines, (size_t)n, sizeof *lines, cmp_str);
    Sha256 h;
    sha256_init(&h);
    for (int i = 0; i < n; i++) {
        sha256_update(&h, lines[i], strlen(lines[i]));
        free(lines[i]);
    }
    free(lines);
    unsigned char dig[32];
    sha256_final(&h, dig);
    char *hex = xmalloc(65);
    sha256_to_hex(dig, hex);
    return hex;
}
