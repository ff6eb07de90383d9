/* tests/fuzz/fuzz_course.c: a fuzz target for the course loader
 * (course_load_dirs in lua/exercise.h), on the driver in tests/fuzz/driver.c.
 *
 * One input is a chapter folder written as one text: files separated by
 * lines "-- FILE name" (chapter.lua, exercise .lua files, starters). Each
 * input is written into a fresh temporary chapter folder and loaded. A
 * broken pack must come back as Diags, never a crash, a hang (the loader's
 * budget and wall-clock limit hold) or a file outside the folder read. Seeds:
 * tests/fuzz/corpus-course/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "lua/exercise.h"
#include "tests/fuzz/driver.h"
#include "tests/lua/lesson_fixture.h"

static const char *const TOKENS[] = {
    "-- FILE chapter.lua\n", "-- FILE x.lua\n", "-- FILE x.cu\n", "-- FILE solutions/x.cu\n", "id = \"..\",",
    "id = \".\",", "id = \"\",", "id = 1,", "source = \"/etc/passwd\",", "source = \"../x.cu\",",
    "solution = \"../../x\",", "wrong = { \"/etc/shadow\" },", "wrong = { 1, {}, \"\" },", "timeout = math.huge,",
    "timeout = -1,", "timeout = 0/0,", "exercises = { \"..\" },", "exercises = { \"../x\" },", "exercises = 7,",
    "hints = {", "}", "{", "return", "return nil", "error('x')", "error({})", "while true do end",
    "pcall(function() while true do end end)", "setmetatable({}, { __gc = function() end })",
    "string.rep('x', 1 << 30)", "print(string.rep('x', 1 << 20))", "('a'):rep(1e5):find('.-b')",
    "run = function(t) end,", "needs_gpu = 'yes',", "order = 'first',", "title = {},", "\"", "'", "[[", "]]", "--[[",
    "\\", "\xff\xfe", "\xe4\xb8\xad", "\0", "\n",
};

static char *g_dir;   /* the chapter folder inputs are written to */

/* Removes what the previous input wrote. */
static void clear_dir(void) {
    fixture_remove(&g_dir);
    g_dir = fixture_tmpdir();
}

/* A file name from the input, or NULL when it is not one we write: plain
 * names and solutions/NAME only (the fuzzer must not write elsewhere). */
static char *safe_name(const char *s, size_t n) {
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r')) n--;
    if (!n || n > 60 || s[0] == '.') return NULL;
    size_t slashes = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '/') slashes++;
        else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_')) return NULL;
    }
    if (slashes > 1 || (slashes == 1 && strncmp(s, "solutions/", 10))) return NULL;
    if (memmem(s, n, "..", 2)) return NULL;
    return xstrndup(s, n);
}

static void write_part(const char *name, const char *data, size_t len) {
    char *path = path_join(g_dir, name);
    char *dir = path_dirname(path);
    Diag *d = fs_mkdir_p(dir);
    if (!d) d = fs_write_file_atomic(path, data, len);
    diag_free(&d);
    free(dir);
    free(path);
}

static int check_course(const char *data, size_t len) {
    clear_dir();
    const char *end = data + len, *p = data;
    char *name = xstrdup("chapter.lua");
    while (p < end) {
        const char *mark = memmem(p, (size_t)(end - p), "-- FILE ", 8);
        while (mark && mark != data && mark[-1] != '\n') mark = memmem(mark + 1, (size_t)(end - mark - 1), "-- FILE ", 8);
        const char *stop = mark ? mark : end;
        if (name) write_part(name, p, (size_t)(stop - p));
        free(name);
        name = NULL;
        if (!mark) break;
        const char *nl = memchr(mark, '\n', (size_t)(end - mark));
        const char *ne = nl ? nl : end;
        name = safe_name(mark + 8, (size_t)(ne - mark - 8));
        p = nl ? nl + 1 : end;
    }
    free(name);
    Course *c = NULL;
    const char *dirs[] = {g_dir};
    Diag *d = course_load_dirs(dirs, 1, &c);
    for (const Diag *e = d; e; e = e->next)
        if (!e->message) {
            fprintf(stderr, "fuzz_course: a Diag without a message\n");
            abort();
        }
    /* Whatever loaded names only files inside the folder. */
    for (int i = 0; c && i < c->n_chapters; i++)
        for (int k = 0; k < c->chapters[i].n_exercises; k++) {
            const ExerciseMeta *e = &c->chapters[i].exercises[k];
            if (e->source[0] == '/' || strstr(e->source, "..") || e->solution[0] == '/' || strstr(e->solution, "..")) {
                fprintf(stderr, "fuzz_course: exercise %s names a file outside its chapter\n", e->id);
                abort();
            }
            course_find_exercise(c, e->id, NULL);
        }
    int rejected = diag_count_errors(d) > 0;
    diag_free(&d);
    course_free(&c);
    return rejected;
}

int main(int argc, char **argv) {
    static const FuzzTarget t = {"fuzz_course", "tests/fuzz/corpus-course", "fuzz-crash.course", TOKENS,
                                 sizeof TOKENS / sizeof TOKENS[0], check_course};
    g_dir = fixture_tmpdir();
    int rc = fuzz_main(&t, argc, argv);
    fixture_remove(&g_dir);
    return rc;
}
