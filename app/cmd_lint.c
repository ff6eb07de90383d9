/* app/cmd_lint.c: `cudojo lint [PACK]` for authors: what `verify` cannot
 * see in a course pack. Missing Chinese text (README.zh-CN.md, title_zh,
 * hints_zh), too few hints (the loader's warnings), no wrong variant, a
 * starter TODO that gives away a line of the solution, a README claim about
 * an emulator finding that lessons/CLAIMS.tsv does not back with a file,
 * files of a chapter that nothing uses (a lib/ module nothing requires), a
 * require of a module that is missing or does not compile, and
 * TODO(author) stubs `cudojo new` left. Each problem is one line, file:line: message; exit status 1 when
 * there is any. Nothing is run: it is quick enough for every commit. */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "app/cmd_common.h"
#include "app/workspace.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

typedef struct Lint {
    Cli *cli;
    json_t *rows;   /* {file, line, code, message} */
    int n;
} Lint;

static void lint_add(Lint *l, const char *file, int line, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* One problem: printed at once as file:line: message (file: message when
 * line is 0), in the language shown (fmt is marked N_(); "%s" passes a
 * loader's Diag, translated as i18n_message does); --json's stays English. */
static void lint_add(Lint *l, const char *file, int line, const char *code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    StrBuf b;
    strbuf_init(&b);
    if (l->cli->json) {
        strbuf_vprintf(&b, fmt, ap);
    } else if (!strcmp(fmt, "%s")) {
        char *msg = i18n_message(va_arg(ap, const char *));
        strbuf_append(&b, msg);
        free(msg);
    } else {
        strbuf_vprintf(&b, _(fmt), ap);
    }
    va_end(ap);
    l->n++;
    if (l->cli->json) {
        json_array_append_new(l->rows, json_pack("{s:o, s:i, s:s, s:o}", "file", bytes_to_json(file), "line", line,
                                                 "code", code, "message", bytes_to_json(b.data)));
    } else if (line > 0) {
        printf("%s:%d: %s\n", file, line, b.data);
    } else {
        printf("%s: %s\n", file, b.data);
    }
    strbuf_fini(&b);
}

/* A file's text, or NULL when it cannot be read. Caller frees. */
static char *read_text(const char *path) {
    char *text = NULL;
    Diag *d = fs_read_file(path, &text, NULL);
    diag_free(&d);
    return text;
}

/* The line (1-based) where `field =` first starts a line of Lua text; 1 when none. */
static int field_line(const char *text, const char *field) {
    int line = 1;
    size_t n = strlen(field);
    for (const char *p = text; p && *p; line++) {
        const char *q = p;
        while (*q == ' ' || *q == '\t') q++;
        if (!strncmp(q, field, n)) {
            q += n;
            while (*q == ' ' || *q == '\t') q++;
            if (*q == '=') return line;
        }
        p = strchr(p, '\n');
        if (p) p++;
    }
    return 1;
}

/* Splits text into lines (pointers into a copy; the copy is lines[0]). Caller frees lines[0] and lines. */
static char **split_lines(const char *text, int *n) {
    char *copy = xstrdup(text);
    int cap = 16;
    char **lines = xmalloc((size_t)cap * sizeof *lines);
    *n = 0;
    for (char *p = copy;;) {
        if (*n == cap) lines = xrealloc(lines, (size_t)(cap *= 2) * sizeof *lines);
        lines[(*n)++] = p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = 0;
        p = nl + 1;
    }
    return lines;
}

/* A line's code without its // comment and without blanks. Caller frees. */
static char *code_of(const char *line) {
    const char *end = strstr(line, "//");
    size_t n = end ? (size_t)(end - line) : strlen(line);
    char *out = xmalloc(n + 1), *o = out;
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)line[i])) *o++ = line[i];
    *o = 0;
    return out;
}

/* Whether s is a bare call with no arguments ("__syncthreads();"): it names what to use, not where. */
static bool bare_call(const char *s) {
    const char *p = s;
    while (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == ':') p++;
    return p > s && (!strcmp(p, "()") || !strcmp(p, "();"));
}

static bool in_list(char **list, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (!strcmp(list[i], s)) return true;
    return false;
}

/* A starter's TODO (its comment and the comment lines under it) must not
 * hold a code line of the solution, or the expression it returns, that the
 * starter's own code does not have already (blanks ignored; at least 10
 * characters). The rule of tests/lessons/test_todos.sh. */
static void lint_todos(Lint *l, const char *starter_path, const char *starter_shown, const char *solution_path) {
    char *st = read_text(starter_path), *so = read_text(solution_path);
    if (!st || !so) {
        free(st);
        free(so);
        return;
    }
    int ns, no;
    char **sl = split_lines(st, &ns), **ol = split_lines(so, &no);
    char **have = xcalloc((size_t)ns + 1, sizeof *have), **hide = xcalloc((size_t)no * 2 + 1, sizeof *hide);
    for (int i = 0; i < ns; i++) have[i] = code_of(sl[i]);
    int nh = 0;
    for (int i = 0; i < no; i++) {
        char *c = code_of(ol[i]);
        if (!*c || c[0] == '#' || bare_call(c) || in_list(have, ns, c)) {
            free(c);
            continue;
        }
        char *bare = xstrdup(!strncmp(c, "return", 6) ? c + 6 : c);
        size_t bl = strlen(bare);
        if (bl && bare[bl - 1] == ';') bare[bl - 1] = 0;
        char *v[2] = {c, bare};
        for (int k = 0; k < 2; k++) {
            if (strlen(v[k]) >= 10 && !in_list(have, ns, v[k]) && !in_list(hide, nh, v[k])) hide[nh++] = xstrdup(v[k]);
        }
        free(c);
        free(bare);
    }
    for (int i = 0; i < ns; i++) {
        const char *cm = strstr(sl[i], "//");
        if (!cm || !strstr(cm, "TODO")) continue;
        StrBuf t;
        strbuf_init(&t);
        strbuf_append(&t, cm + 2);
        for (int j = i + 1; j < ns; j++) {
            const char *q = sl[j];
            while (isspace((unsigned char)*q)) q++;
            if (strncmp(q, "//", 2)) break;
            strbuf_append(&t, q + 2);
        }
        char *flat = xmalloc(t.len + 1), *o = flat;
        for (size_t k = 0; k < t.len; k++)
            if (!isspace((unsigned char)t.data[k])) *o++ = t.data[k];
        *o = 0;
        for (int h = 0; h < nh; h++) {
            if (strstr(flat, hide[h])) {
                lint_add(l, starter_shown, i + 1, "todo-answer",
                         N_("the TODO gives away the solution's line `%s`: say what to do, not the code"), hide[h]);
                break;
            }
        }
        free(flat);
        strbuf_fini(&t);
    }
    for (int i = 0; i < ns; i++) free(have[i]);
    for (int i = 0; i < nh; i++) free(hide[i]);
    free(have);
    free(hide);
    free(sl[0]);
    free(sl);
    free(ol[0]);
    free(ol);
    free(st);
    free(so);
}

/* ---- files nobody uses ---- */

typedef struct Names {
    char **v;
    int n;
} Names;

static void names_add(Names *s, char *name /* taken */) {
    s->v = xrealloc(s->v, (size_t)(s->n + 1) * sizeof *s->v);
    s->v[s->n++] = name;
}

static void names_fini(Names *s) {
    for (int i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

/* Every regular file under dir (relative paths, dot-files left out). */
static void list_files(const char *dir, const char *rel, Names *out) {
    char *path = rel ? path_join(dir, rel) : xstrdup(dir);
    DIR *d = opendir(path);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char *r = rel ? path_join(rel, de->d_name) : xstrdup(de->d_name);
        char *full = path_join(dir, r);
        struct stat st;
        if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
            list_files(dir, r, out);
            free(r);
        } else {
            names_add(out, r);
        }
        free(full);
    }
    if (d) closedir(d);
    free(path);
}

/* Whether `name` appears in text as a file name (not inside a longer name). */
static bool names_file(const char *text, const char *name) {
    size_t n = strlen(name);
    for (const char *p = text; (p = strstr(p, name)); p++) {
        char before = p > text ? p[-1] : ' ', after = p[n];
        bool word_before = isalnum((unsigned char)before) || before == '_' || before == '-' || before == '.';
        bool word_after = isalnum((unsigned char)after) || after == '_' || after == '-';
        if (!word_before && !word_after) return true;
    }
    return false;
}

/* ---- chapter modules (require) ---- */

/* The module name of a literal require starting at p in text (require,
 * blanks, an optional "(", a quoted name on one line) into name; false
 * when none starts there. */
static bool require_at(const char *text, const char *p, char *name, size_t n) {
    if (strncmp(p, "require", 7)) return false;
    if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.' || p[-1] == ':')) return false;
    const char *q = p + 7 + strspn(p + 7, " \t");
    if (*q == '(') q += 1 + strspn(q + 1, " \t");
    if (*q != '"' && *q != '\'') return false;
    const char *end = strchr(q + 1, *q);
    if (!end || memchr(q + 1, '\n', (size_t)(end - q - 1)) || (size_t)(end - q - 1) >= n) return false;
    memcpy(name, q + 1, (size_t)(end - q - 1));
    name[end - q - 1] = '\0';
    return true;
}

/* Whether text requires module `name` (a literal require, outside a -- comment). */
static bool text_requires(const char *text, const char *name) {
    char got[128];
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        if (!end) end = line + strlen(line);
        for (const char *p = line; p < end && !(p[0] == '-' && p[1] == '-'); p++)
            if (require_at(text, p, got, sizeof got) && !strcmp(got, name)) return true;
        line = *end ? end + 1 : end;
    }
    return false;
}

/* Every literal require in a chapter script (an exercise or a module) whose
 * module would not load: reported at the requiring line, unless the loader
 * already said so there (a require at the top of a file runs as it loads). */
static void lint_requires(Lint *l, const ChapterMeta *ch, const char *path, const char *shown, const Diag *load_diags) {
    char *text = read_text(path);
    int n = 0;
    char **lines = text ? split_lines(text, &n) : NULL;
    for (int i = 0; i < n; i++) {
        char name[128];
        for (const char *p = lines[i]; *p && !(p[0] == '-' && p[1] == '-'); p++) {
            if (!require_at(lines[i], p, name, sizeof name)) continue;
            Diag *d = course_check_module(ch, name);
            bool told = false;
            for (const Diag *ld = load_diags; d && ld && !told; ld = ld->next)
                told = ld->file && !strcmp(ld->file, shown) && ld->line == i + 1;
            if (d && !told) lint_add(l, shown, i + 1, "require", "%s", d->message);
            diag_free(&d);
        }
    }
    if (lines) free(lines[0]);
    free(lines);
    free(text);
}

static void lint_unused(Lint *l, const ChapterMeta *ch) {
    Names used = {0}, all = {0};
    names_add(&used, xstrdup("chapter.lua"));
    names_add(&used, xstrdup("README.md"));
    names_add(&used, xstrdup("README.zh-CN.md"));
    for (int e = 0; e < ch->n_exercises; e++) {
        const ExerciseMeta *ex = &ch->exercises[e];
        names_add(&used, xstrdup(path_basename(ex->lua_path)));
        names_add(&used, xstrdup(ex->source));
        names_add(&used, xstrdup(ex->solution));
        for (int w = 0; w < ex->n_wrong; w++) names_add(&used, xstrdup(ex->wrong[w]));
    }
    /* What the used files name (an #include "common.h", a data file) is used too. */
    StrBuf texts;
    strbuf_init(&texts);
    for (int i = 0; i < used.n; i++) {
        if (!strcmp(used.v[i], "README.md") || !strcmp(used.v[i], "README.zh-CN.md")) continue;
        char *p = path_join(ch->dir, used.v[i]), *t = read_text(p);
        if (t) strbuf_append(&texts, t);
        strbuf_append_char(&texts, '\n');
        free(t);
        free(p);
    }
    list_files(ch->dir, NULL, &all);
    /* A module (lib/<name>.lua) a used file requires is used, and what it requires in turn. */
    for (bool more = true; more;) {
        more = false;
        for (int i = 0; i < all.n; i++) {
            const char *f = all.v[i];
            size_t len = strlen(f), dl = strlen(COURSE_MODULE_DIR "/");
            if (len <= dl + 4 || strncmp(f, COURSE_MODULE_DIR "/", dl) || strcmp(f + len - 4, ".lua") ||
                in_list(used.v, used.n, f))
                continue;
            char *stem = xstrndup(f + dl, len - dl - 4);
            if (texts.data && text_requires(texts.data, stem)) {
                names_add(&used, xstrdup(f));
                char *p = path_join(ch->dir, f), *t = read_text(p);
                if (t) strbuf_append(&texts, t);
                strbuf_append_char(&texts, '\n');
                free(t);
                free(p);
                more = true;
            }
            free(stem);
        }
    }
    for (int i = 0; i < all.n; i++) {
        const char *f = all.v[i];
        if (in_list(used.v, used.n, f)) continue;
        if (texts.data && (names_file(texts.data, f) || names_file(texts.data, path_basename(f)))) continue;
        char *shown = path_join(ch->rel_dir, f);
        lint_add(l, shown, 0, "unused-file", N_("no exercise uses this file (not a starter, solution or wrong variant, nor named by one): "
                   "list it in an exercise or delete it"));
        free(shown);
    }
    strbuf_fini(&texts);
    names_fini(&used);
    names_fini(&all);
}

/* ---- stubs ---- */

/* TODO(author) marks `cudojo new` left in a file that ships. */
static void lint_stubs(Lint *l, const char *path, const char *shown) {
    char *t = read_text(path);
    int line = 1;
    for (const char *p = t; p && *p; p++) {
        if (*p == '\n') line++;
        else if (!strncmp(p, "TODO(author)", 12)) {
            lint_add(l, shown, line, "stub", N_("a TODO(author) stub from `cudojo new` is still here: write the text"));
            const char *nl = strchr(p, '\n');
            if (!nl) break;
            p = nl - 1;
        }
    }
    free(t);
}

/* ---- README claims (CLAIMS.tsv) ---- */

typedef struct Claim {
    char *chapter, *exercise, *file, *code;
    int line;
} Claim;

/* The finding families a README may claim, the words that claim them and the code prefix a CLAIMS.tsv row needs. */
static const struct {
    const char *words[3];
    const char *code;
    const char *what;
} FAMILIES[] = {
    {{"out-of-bounds", "out of bounds", NULL}, "oob", N_("an out-of-bounds finding")},
    {{"race", NULL, NULL}, "race", N_("a race finding")},
    {{"uninitialised", "uninitialized", NULL}, "uninit", N_("an uninitialised-read finding")},
    {{"bank conflict", NULL, NULL}, "bank-conflict", N_("a bank-conflict finding")},
    {{"uncoalesced", NULL, NULL}, "uncoalesced", N_("an uncoalesced-access finding")},
};

/* Whether word occurs in line as a word of its own (case-insensitive). */
static bool has_word(const char *line, const char *word) {
    size_t n = strlen(word);
    for (const char *p = line; *p; p++) {
        if (strncasecmp(p, word, n)) continue;
        bool b = p == line || !isalnum((unsigned char)p[-1]), a = !isalnum((unsigned char)p[n]);
        if (b && a) return true;
    }
    return false;
}

static void lint_claims_readme(Lint *l, const ChapterMeta *ch, const Claim *claims, int n_claims,
                               const char *claims_shown) {
    char *path = path_join(ch->dir, "README.md"), *t = read_text(path);
    char *shown = path_join(ch->rel_dir, "README.md");
    const char *folder = path_basename(ch->dir);
    int nl;
    char **lines = t ? split_lines(t, &nl) : NULL;
    bool in_section = false;
    for (int i = 0; lines && i < nl; i++) {
        const char *s = lines[i];
        if (s[0] == '#') {
            in_section = s[1] == '#' && strcasestr(s, "common mistakes");
            continue;
        }
        if (!in_section || !(s[0] == '|' || s[0] == '-' || s[0] == '*')) continue;
        for (size_t f = 0; f < sizeof FAMILIES / sizeof FAMILIES[0]; f++) {
            bool claimed = false;
            for (int w = 0; w < 3 && FAMILIES[f].words[w] && !claimed; w++) claimed = has_word(s, FAMILIES[f].words[w]);
            if (!claimed) continue;
            bool backed = false;
            for (int c = 0; c < n_claims && !backed; c++)
                backed = !strcmp(claims[c].chapter, folder) &&
                         !strncmp(claims[c].code, FAMILIES[f].code, strlen(FAMILIES[f].code));
            if (!backed)
                lint_add(l, shown, i + 1, "claim",
                         N_("says the emulator reports %s here, but %s has no row for %s with a finding %s*: add one "
                            "(a file that makes the mistake) so tests/lessons/test_claims.sh checks the claim"),
                         l->cli->json ? FAMILIES[f].what : _(FAMILIES[f].what), claims_shown, folder, FAMILIES[f].code);
        }
    }
    if (lines) {
        free(lines[0]);
        free(lines);
    }
    free(shown);
    free(t);
    free(path);
}

/* Reads pack/CLAIMS.tsv (chapter, exercise, file, code, claim) and checks each row names a file that exists. */
static Claim *read_claims(Lint *l, const char *pack, const char *pack_shown, const Course *course, int *n,
                          char **shown_out) {
    char *path = path_join(pack, "CLAIMS.tsv"), *t = read_text(path);
    *shown_out = strcmp(pack_shown, ".") ? path_join(pack_shown, "CLAIMS.tsv") : xstrdup("CLAIMS.tsv");
    *n = 0;
    Claim *claims = NULL;
    int nl;
    char **lines = t ? split_lines(t, &nl) : NULL;
    for (int i = 0; lines && i < nl; i++) {
        if (!lines[i][0] || lines[i][0] == '#') continue;
        char *cols[5] = {0};
        char *p = lines[i];
        for (int c = 0; c < 5 && p; c++) {
            cols[c] = p;
            p = strchr(p, '\t');
            if (p) *p++ = 0;
        }
        if (!cols[3]) {
            lint_add(l, *shown_out, i + 1, "claims-row", N_("a row needs 5 tab-separated columns: chapter folder, exercise id, file, finding code, the claim"));
            continue;
        }
        const ChapterMeta *ch = NULL;
        for (int c = 0; course && c < course->n_chapters && !ch; c++)
            if (!strcmp(path_basename(course->chapters[c].dir), cols[0])) ch = &course->chapters[c];
        if (!ch) continue;   /* a chapter of another pack, or not loaded: not this lint's business */
        bool has_ex = false;
        for (int e = 0; e < ch->n_exercises && !has_ex; e++) has_ex = !strcmp(ch->exercises[e].id, cols[1]);
        char *fp = path_join(ch->dir, cols[2]);
        if (!has_ex)
            lint_add(l, *shown_out, i + 1, "claims-row", N_("chapter %s has no exercise '%s'"), cols[0], cols[1]);
        else if (!fs_exists(fp))
            lint_add(l, *shown_out, i + 1, "claims-row", N_("%s/%s does not exist"), ch->rel_dir, cols[2]);
        free(fp);
        claims = xrealloc(claims, (size_t)(*n + 1) * sizeof *claims);
        claims[(*n)++] = (Claim){xstrdup(cols[0]), xstrdup(cols[1]), xstrdup(cols[2]), xstrdup(cols[3]), i + 1};
    }
    if (lines) {
        free(lines[0]);
        free(lines);
    }
    free(t);
    free(path);
    return claims;
}

/* ---- one chapter, one exercise ---- */

static void lint_exercise(Lint *l, const ChapterMeta *ch, const ExerciseMeta *ex) {
    const char *lua_shown = ex->chunkname + 1;
    char *text = read_text(ex->lua_path);
    const char *t = text ? text : "";
    if (!ex->title_zh || !*ex->title_zh)
        lint_add(l, lua_shown, field_line(t, "title"), "zh", N_("no title_zh: the exercise's title in Chinese"));
    if (ex->n_hints_zh == 0 && ex->n_hints > 0)
        lint_add(l, lua_shown, field_line(t, "hints"), "zh", N_("no hints_zh: the %d hint%s in Chinese, in the same order"),
                 ex->n_hints, ex->n_hints == 1 ? "" : "s");
    else if (ex->n_hints_zh != ex->n_hints)
        lint_add(l, lua_shown, field_line(t, "hints_zh"), "zh", N_("%d hints_zh for %d hints: give each hint in Chinese"),
                 ex->n_hints_zh, ex->n_hints);
    if (ex->n_wrong == 0)
        lint_add(l, lua_shown, field_line(t, "source"), "no-wrong",
                 N_("no wrong variant: add wrong = { \"solutions/wrong/%s-....cu\" }, a typical mistake verify "
                    "checks fails"), ex->id);
    char *sp = path_join(ch->dir, ex->source), *so = path_join(ch->dir, ex->solution);
    char *ss = path_join(ch->rel_dir, ex->source);
    if (!ex->bug_hunt) lint_todos(l, sp, ss, so);   /* a bug hunt's starter is a whole program, no TODOs to give away */
    lint_stubs(l, ex->lua_path, lua_shown);
    lint_stubs(l, sp, ss);
    free(ss);
    free(sp);
    free(so);
    free(text);
}

/* load_diags: the loader's; an exercise that did not load leaves its files
 * unlisted, so the unused-file check waits until the chapter loads. */
static void lint_chapter(Lint *l, const ChapterMeta *ch, const Diag *load_diags) {
    char *cl = path_join(ch->dir, "chapter.lua"), *cl_shown = path_join(ch->rel_dir, "chapter.lua");
    char *cl_text = read_text(cl);
    if (!ch->title_zh || !*ch->title_zh)
        lint_add(l, cl_shown, field_line(cl_text ? cl_text : "", "title"), "zh",
                 N_("no title_zh: the chapter's title in Chinese"));
    const char *readmes[] = {"README.md", "README.zh-CN.md"};
    for (int i = 0; i < 2; i++) {
        char *p = path_join(ch->dir, readmes[i]), *s = path_join(ch->rel_dir, readmes[i]);
        if (!fs_exists(p))
            lint_add(l, s, 0, i ? "zh" : "readme", i ? N_("missing: the lesson in Chinese (README.md's translation)")
                                                     : N_("missing: the lesson text"));
        else
            lint_stubs(l, p, s);
        free(p);
        free(s);
    }
    lint_stubs(l, cl, cl_shown);
    for (int e = 0; e < ch->n_exercises; e++) lint_exercise(l, ch, &ch->exercises[e]);
    /* require in the exercises and in the chapter's modules */
    Names mods = {0};
    char *lib = path_join(ch->dir, COURSE_MODULE_DIR);
    if (fs_is_dir(lib)) list_files(lib, NULL, &mods);
    for (int e = 0; e < ch->n_exercises; e++)
        lint_requires(l, ch, ch->exercises[e].lua_path, ch->exercises[e].chunkname + 1, load_diags);
    for (int i = 0; i < mods.n; i++) {
        size_t len = strlen(mods.v[i]);
        if (len < 5 || strchr(mods.v[i], '/') || strcmp(mods.v[i] + len - 4, ".lua")) continue;
        char *p = path_join(lib, mods.v[i]), *shown = xasprintf("%s/%s/%s", ch->rel_dir, COURSE_MODULE_DIR, mods.v[i]);
        lint_requires(l, ch, p, shown, load_diags);
        free(shown);
        free(p);
    }
    names_fini(&mods);
    free(lib);
    bool broken = false;
    size_t n = strlen(ch->rel_dir);
    for (const Diag *d = load_diags; d && !broken; d = d->next)
        broken = d->severity == DIAG_ERROR && d->file && !strncmp(d->file, ch->rel_dir, n) && d->file[n] == '/';
    if (!broken) lint_unused(l, ch);
    free(cl_text);
    free(cl_shown);
    free(cl);
}

int cmd_lint(Cli *cli, int argc, char **argv) {
    if (argc > 2) {
        fputs(_("usage: cudojo lint [PACK]\n"), stderr);
        return 2;
    }
    Diag *d = NULL;
    char *pack = NULL;
    if (argc == 2) {
        if (!fs_is_dir(argv[1])) {
            fprintf(stderr, _("cudojo lint: %s: no such directory\n"), argv[1]);
            return 2;
        }
        pack = path_absolute(argv[1]);
    } else {
        pack = lessons_find_root(cli->lessons_arg, NULL, &d);
        if (!pack) return cli_fail(d);
    }
    /* A chapter folder lints as a pack of one; its pack is the folder above. */
    char *cl = path_join(pack, "chapter.lua");
    bool one_chapter = fs_exists(cl);
    free(cl);
    char *shown = cmd_path_shown(pack);
    char *pack_dir = one_chapter ? path_dirname(pack) : xstrdup(pack);
    char *pack_shown = cmd_path_shown(pack_dir);
    Course *course = NULL;
    if (one_chapter) {
        const char *dirs[1] = {pack}, *names[1] = {shown};
        d = course_load_dirs_as(dirs, names, 1, &course);
    } else {
        d = course_load_as(pack, shown, &course);
    }
    Lint l = {.cli = cli, .rows = json_array()};
    /* The loader's own errors and warnings (a missing file, fewer than 2 hints, an unknown field) first. */
    for (Diag *p = d; p; p = p->next)
        lint_add(&l, p->file ? p->file : shown, p->line, p->code, "%s", p->message);
    int status = 2;
    if (course) {
        int n_claims = 0;
        char *claims_shown = NULL;
        Claim *claims = read_claims(&l, pack_dir, pack_shown, course, &n_claims, &claims_shown);
        for (int c = 0; c < course->n_chapters; c++) {
            lint_chapter(&l, &course->chapters[c], d);
            lint_claims_readme(&l, &course->chapters[c], claims, n_claims, claims_shown);
        }
        for (int c = 0; c < n_claims; c++) {
            free(claims[c].chapter);
            free(claims[c].exercise);
            free(claims[c].file);
            free(claims[c].code);
        }
        free(claims);
        free(claims_shown);
        status = l.n ? 1 : 0;
        if (cli->json) {
            cli_print_json(json_pack("{s:o, s:i, s:b}", "problems", l.rows, "count", l.n, "clean", l.n == 0));
            l.rows = NULL;
        } else {
            fprintf(l.n ? stdout : stderr, P_(l.n, "%s: %d problem in %d chapter%s\n", "%s: %d problems in %d chapter%s\n"),
                    shown, l.n, course->n_chapters, course->n_chapters == 1 ? "" : "s");
        }
    }
    json_decref(l.rows);
    diag_free(&d);
    course_free(&course);
    free(pack_shown);
    free(pack_dir);
    free(shown);
    free(pack);
    return status;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_LINT = {"lint", "[PACK]", N_("authors: what verify cannot see in a course pack (text, hints, files)"),
    N_("Checks a course pack (a folder of chapters, or one chapter folder; default:\n"
    "the course) without running anything, and prints each problem as\n"
    "file:line: message:\n"
    "  - loading errors and warnings (a missing file, fewer than 2 hints, an\n"
    "    unknown field)\n"
    "  - Chinese text missing: README.zh-CN.md, title_zh, hints_zh (one per hint)\n"
    "  - an exercise with no wrong variant\n"
    "  - a starter TODO that holds a line of the solution's code\n"
    "  - a README's \"Common mistakes\" row that says the emulator reports a finding\n"
    "    (out of bounds, race, uninitialised, bank conflict, uncoalesced) with no\n"
    "    row for that chapter in the pack's CLAIMS.tsv; CLAIMS.tsv rows that name a\n"
    "    missing exercise or file\n"
    "  - files in a chapter folder that no exercise uses or names (a module,\n"
    "    lib/NAME.lua, is used when a used file requires it)\n"
    "  - require(\"NAME\") of a module that is missing or does not compile, at\n"
    "    the requiring line\n"
    "  - TODO(author) stubs left by `cudojo new`\n"
    "Exit status 0 when clean, 1 when there are problems, 2 when the pack\n"
    "cannot be read.\n"),
    cmd_lint};
