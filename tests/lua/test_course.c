/* tests/lua/test_course.c: loading chapters and exercises, and the errors an
 * author sees (file:line of their .lua) when a lesson is broken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "lua/exercise.h"
#include "tests/lua/lesson_fixture.h"

static const char *const good_ex =
    "return {\n"
    "  id = \"vector-add\",\n"
    "  title = \"Add two vectors\",\n"
    "  source = \"vector-add.cu\",\n"
    "  hints = { \"one\", \"two\" },\n"
    "  run = function(t) end,\n"
    "  title_zh = \"向量加法\", hints_zh = { \"一\", \"二\" },\n"
    "}\n";

static void write_chapter(const char *root, const char *dir, const char *id, int order, const char *exercises) {
    char *rel = xasprintf("%s/chapter.lua", dir);
    char *text = xasprintf("return { id = \"%s\", title = \"T %s\", order = %d, exercises = { %s } }\n", id, id,
                           order, exercises);
    fixture_write(root, rel, text);
    free(rel);
    free(text);
}

static void write_ex(const char *root, const char *dir, const char *stem, const char *lua, bool with_files) {
    char *p = xasprintf("%s/%s.lua", dir, stem);
    fixture_write(root, p, lua);
    free(p);
    if (with_files) {
        p = xasprintf("%s/%s.cu", dir, stem);
        fixture_write(root, p, "__global__ void k() {}\n");
        free(p);
        p = xasprintf("%s/solutions/%s.cu", dir, stem);
        fixture_write(root, p, "__global__ void k() {}\n");
        free(p);
    }
}

static const Diag *find_diag(const Diag *d, const char *needle) {
    for (; d; d = d->next)
        if (strstr(d->message, needle)) return d;
    return NULL;
}

static void course__loads_chapters__sorted_by_order(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-late", "late", 2, "\"vector-add\"");
    write_ex(root, "01-late", "vector-add", good_ex, true);
    write_chapter(root, "02-early", "early", 1, "");
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    if (d) fail_msg("%s:%d: %s", d->file, d->line, d->message);
    assert_non_null(c);
    assert_int_equal(c->n_chapters, 2);
    assert_string_equal(c->chapters[0].id, "early");
    assert_string_equal(c->chapters[1].id, "late");
    assert_string_equal(c->chapters[1].rel_dir, "lessons/01-late");
    const ExerciseMeta *e = &c->chapters[1].exercises[0];
    assert_int_equal(c->chapters[1].n_exercises, 1);
    assert_string_equal(e->id, "vector-add");
    assert_string_equal(e->title, "Add two vectors");
    assert_string_equal(e->chapter_id, "late");
    assert_string_equal(e->chunkname, "@lessons/01-late/vector-add.lua");
    assert_string_equal(e->source, "vector-add.cu");
    assert_string_equal(e->solution, "solutions/vector-add.cu");
    assert_int_equal(e->n_hints, 2);
    assert_string_equal(e->hints[1], "two");
    assert_string_equal(e->title_zh, "向量加法");
    assert_int_equal(e->n_hints_zh, 2);
    assert_string_equal(e->hints_zh[0], "一");
    assert_true(e->timeout_s == 10);
    assert_false(e->needs_gpu);
    assert_int_equal(strlen(e->def_hash), 64);
    course_free(&c);
    assert_null(c);
    fixture_remove(&root);
}

static void course__reports_file_line__when_id_missing(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"ex\", \"vector-add\"");
    write_ex(root, "01-a", "ex", "-- no id\nreturn {\n  source = \"ex.cu\",\n  run = function(t) end,\n}\n", true);
    write_ex(root, "01-a", "vector-add", good_ex, true);
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    const Diag *e = find_diag(d, "no string field 'id'");
    assert_non_null(e);
    assert_string_equal(e->file, "lessons/01-a/ex.lua");
    assert_int_equal(e->line, 2); /* the return of the table */
    /* The broken exercise is left out, the good one still loads. */
    assert_int_equal(c->chapters[0].n_exercises, 1);
    assert_string_equal(c->chapters[0].exercises[0].id, "vector-add");
    diag_free(&d);
    course_free(&c);
    fixture_remove(&root);
}

static void course__reports_line__when_source_file_missing(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"vector-add\"");
    write_ex(root, "01-a", "vector-add", good_ex, false);
    fixture_write(root, "01-a/vector-add.cu", "x");
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    const Diag *e = find_diag(d, "solution file 'solutions/vector-add.cu' not found");
    assert_non_null(e);
    assert_string_equal(e->file, "lessons/01-a/vector-add.lua");
    assert_int_equal(e->line, 4); /* the source = line: the default solution derives from it */
    diag_free(&d);
    course_free(&c);

    fixture_write(root, "01-a/vector-add.lua",
                  "return {\n  id = \"v\",\n  source = \"missing.cu\",\n  solution = \"solutions/vector-add.cu\",\n"
                  "  hints = {'a','b'},\n  run = function(t) end,\n}\n");
    fixture_write(root, "01-a/solutions/vector-add.cu", "x");
    d = course_load(root, &c);
    e = find_diag(d, "source file 'missing.cu' not found");
    assert_non_null(e);
    assert_int_equal(e->line, 3);
    assert_int_equal(diag_count_errors(d), 1);
    diag_free(&d);
    course_free(&c);
    fixture_remove(&root);
}

static void course__reports_duplicate_ids__across_chapters(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"vector-add\"");
    write_ex(root, "01-a", "vector-add", good_ex, true);
    write_chapter(root, "02-b", "b", 2, "\"copy\"");
    write_ex(root, "02-b", "copy",
             "return {\n  title = 'copy',\n  id = \"vector-add\",\n  source = 'copy.cu',\n  hints = {'a','b'},\n"
             "  run = function(t) end,\n}\n",
             true);
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    const Diag *e = find_diag(d, "exercise id 'vector-add' is also used by lessons/01-a/vector-add.lua");
    assert_non_null(e);
    assert_string_equal(e->file, "lessons/02-b/copy.lua");
    assert_int_equal(e->line, 3);
    assert_int_equal(c->chapters[1].n_exercises, 0);
    diag_free(&d);
    course_free(&c);
    fixture_remove(&root);
}

static void course__reports_lua_error__with_author_line(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"vector-add\"");
    write_ex(root, "01-a", "vector-add", "local n = 3\nlocal m = nn + 1\nreturn {}\n", true);
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    assert_non_null(d);
    assert_string_equal(d->code, "lua");
    assert_string_equal(d->file, "lessons/01-a/vector-add.lua");
    assert_int_equal(d->line, 2);
    assert_non_null(strstr(d->message, "unknown global 'nn'"));
    diag_free(&d);
    course_free(&c);
    fixture_remove(&root);
}

static void course__reports_missing_run_and_listed_file(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"vector-add\", \"ghost\"");
    write_ex(root, "01-a", "vector-add",
             "return {\n  id = 'v',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n  rn = function(t) end,\n}\n",
             true);
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    const Diag *e = find_diag(d, "no function 'run'");
    assert_non_null(e);
    assert_string_equal(e->file, "lessons/01-a/vector-add.lua");
    e = find_diag(d, "unknown field 'rn'");
    assert_non_null(e);
    assert_int_equal(e->severity, DIAG_WARNING);
    assert_int_equal(e->line, 5);
    e = find_diag(d, "exercise 'ghost' is listed but lessons/01-a/ghost.lua does not exist");
    assert_non_null(e);
    assert_string_equal(e->file, "lessons/01-a/chapter.lua");
    assert_int_equal(e->line, 1);
    diag_free(&d);
    course_free(&c);
    fixture_remove(&root);
}

static void course__reads_hint_for__and_reports_bad_kinds_and_numbers(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"vector-add\", \"bad\"");
    write_ex(root, "01-a", "vector-add",
             "return {\n  id = 'v',\n  source = 'vector-add.cu',\n  hints = {'a','b','c'},\n"
             "  hint_for = { race = 2, ['out-of-bounds'] = 3, rcae = 1 },\n  run = function(t) end,\n}\n",
             true);
    write_ex(root, "01-a", "bad",
             "return {\n  id = 'b',\n  source = 'bad.cu',\n  hints = {'a','b'},\n"
             "  hint_for = { race = 3 },\n  run = function(t) end,\n}\n",
             true);
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    const Diag *e = find_diag(d, "unknown failure kind 'rcae'");
    assert_non_null(e);
    assert_int_equal(e->severity, DIAG_WARNING);
    assert_int_equal(e->line, 5);
    e = find_diag(d, "hint_for[\"race\"] must be a hint number from 1 to 2");
    assert_non_null(e);
    assert_int_equal(e->severity, DIAG_ERROR);
    assert_string_equal(e->file, "lessons/01-a/bad.lua");
    assert_int_equal(c->chapters[0].n_exercises, 1);   /* the bad one is left out */
    const ExerciseMeta *v = &c->chapters[0].exercises[0];
    assert_int_equal(v->n_hint_for, 2);
    for (int i = 0; i < v->n_hint_for; i++) {
        if (!strcmp(v->hint_for_kind[i], "race")) assert_int_equal(v->hint_for_index[i], 1);
        else if (!strcmp(v->hint_for_kind[i], "out-of-bounds")) assert_int_equal(v->hint_for_index[i], 2);
        else fail_msg("unexpected kind %s", v->hint_for_kind[i]);
    }
    diag_free(&d);
    course_free(&c);
    fixture_remove(&root);
}

static void course__reads_bug_and_mutant_allowances__and_reports_mistakes_at_their_line(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"vector-add\", \"bad\", \"nohunt\"");
    write_ex(root, "01-a", "vector-add",
             "return {\n  id = 'v',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n"
             "  bug_hunt = true, bug = 'race',\n"
             "  mutants_equivalent = { { mutation = 'drop guard', line = 'if (i < n)', why = 'dead' } },\n"
             "  mutants_undetected = { { mutation = 'loop bound < to <=', line = 'for', why = 'unrolled' } },\n"
             "  run = function(t) end,\n}\n",
             true);
    write_ex(root, "01-a", "bad",
             "return {\n  id = 'b',\n  source = 'bad.cu',\n  hints = {'a','b'},\n"
             "  bug_hunt = true,\n  bug = 'rcae',\n"
             "  mutants_equivalent = { { mutation = 'drop guard', line = 'if (i < n)' } },\n"
             "  run = function(t) end,\n}\n",
             true);
    write_ex(root, "01-a", "nohunt",
             "return {\n  id = 'h',\n  source = 'nohunt.cu',\n  hints = {'a','b'},\n"
             "  bug = 'race',\n  run = function(t) end,\n}\n",
             true);
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    const Diag *e = find_diag(d, "bug must name what the starter shows on the emulator");
    assert_non_null(e);
    assert_string_equal(e->file, "lessons/01-a/bad.lua");
    assert_int_equal(e->line, 6);
    e = find_diag(d, "mutants_equivalent[1] needs why = ");
    assert_non_null(e);
    assert_int_equal(e->line, 7);
    e = find_diag(d, "bug is for bug hunts: say bug_hunt = true too");
    assert_non_null(e);
    assert_string_equal(e->file, "lessons/01-a/nohunt.lua");
    assert_int_equal(c->chapters[0].n_exercises, 1);   /* the bad ones are left out */
    const ExerciseMeta *v = &c->chapters[0].exercises[0];
    assert_string_equal(v->bug, "race");
    assert_int_equal(v->n_equivalent, 2);
    assert_string_equal(v->equivalent[0].op, "drop guard");
    assert_string_equal(v->equivalent[0].line, "if (i < n)");
    assert_false(v->equivalent[0].undetected);
    assert_string_equal(v->equivalent[1].why, "unrolled");
    assert_true(v->equivalent[1].undetected);
    diag_free(&d);
    course_free(&c);
    fixture_remove(&root);
}

static void course__reads_timed__default_true_for_programs__and_refuses_it_on_kernel_exercises(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"prog\", \"untimed\", \"kern\", \"kerntimed\", \"notbool\"");
    const char *const fmt = "return {\n  id = '%s',\n  source = '%s.cu',\n  hints = {'a','b'},\n%s"
                            "  run = function(t) end,\n}\n";
    static const char *const ex[][2] = {
        {"prog", "  kind = 'program',\n"},
        {"untimed", "  kind = 'program',\n  timed = false,\n"},
        {"kern", ""},
        {"kerntimed", "  timed = true,\n"},
        {"notbool", "  kind = 'program',\n  timed = 'yes',\n"},
    };
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        char *lua = xasprintf(fmt, ex[i][0], ex[i][0], ex[i][1]);
        write_ex(root, "01-a", ex[i][0], lua, true);
        free(lua);
    }
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    const Diag *e = find_diag(d, "timed is for program exercises");
    assert_non_null(e);
    assert_string_equal(e->file, "lessons/01-a/kerntimed.lua");
    assert_int_equal(e->line, 5);
    e = find_diag(d, "timed must be true or false");
    assert_non_null(e);
    assert_string_equal(e->file, "lessons/01-a/notbool.lua");
    assert_int_equal(e->line, 6);
    assert_int_equal(c->chapters[0].n_exercises, 3);   /* the bad ones are left out */
    const ExerciseMeta *prog = course_find_exercise(c, "prog", NULL), *untimed = course_find_exercise(c, "untimed", NULL),
                       *kern = course_find_exercise(c, "kern", NULL);
    assert_non_null(prog);
    assert_non_null(untimed);
    assert_non_null(kern);
    assert_true(prog->timed);
    assert_false(untimed->timed);
    assert_false(kern->timed);
    diag_free(&d);
    course_free(&c);
    fixture_remove(&root);
}

static void course__broken_chapter__does_not_hide_others(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    fixture_write(root, "01-bad/chapter.lua", "return {\n  id = 'bad',\n  order = = 1,\n}\n");
    write_chapter(root, "02-good", "good", 2, "\"vector-add\"");
    write_ex(root, "02-good", "vector-add", good_ex, true);
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    assert_non_null(d);
    assert_string_equal(d->file, "lessons/01-bad/chapter.lua");
    assert_int_equal(d->line, 3);
    assert_int_equal(c->n_chapters, 1);
    assert_string_equal(c->chapters[0].id, "good");
    diag_free(&d);
    course_free(&c);
    fixture_remove(&root);
}

static void course__finds_exercise__by_id_or_chapter_slash_id(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "hello", 1, "\"vector-add\"");
    write_ex(root, "01-a", "vector-add", good_ex, true);
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    assert_null(d);
    const ChapterMeta *ch = NULL;
    assert_non_null(course_find_exercise(c, "vector-add", &ch));
    assert_string_equal(ch->id, "hello");
    assert_non_null(course_find_exercise(c, "hello/vector-add", NULL));
    assert_null(course_find_exercise(c, "other/vector-add", NULL));
    assert_null(course_find_exercise(c, "vector-sub", NULL));
    course_free(&c);
    fixture_remove(&root);
}

static void course__def_hash__changes_with_starter(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"vector-add\"");
    write_ex(root, "01-a", "vector-add", good_ex, true);
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    assert_null(d);
    char *h1 = xstrdup(c->chapters[0].exercises[0].def_hash);
    course_free(&c);
    fixture_write(root, "01-a/vector-add.cu", "__global__ void k(int *p) {}\n");
    d = course_load(root, &c);
    assert_null(d);
    assert_string_not_equal(h1, c->chapters[0].exercises[0].def_hash);
    free(h1);
    course_free(&c);
    fixture_remove(&root);
}

/* The exercise's hash and the course version, loaded afresh. Caller frees both. */
static void load_hashes(const char *root, char **def_hash, char **version) {
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    if (d) fail_msg("%s:%d: %s", d->file, d->line, d->message);
    *def_hash = xstrdup(c->chapters[0].exercises[0].def_hash);
    *version = course_version(c);
    course_free(&c);
}

static void course__version_changes__when_a_chapter_module_changes(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"vector-add\"");
    write_ex(root, "01-a", "vector-add", good_ex, true);
    char *h0, *v0, *h1, *v1, *h2, *v2, *h3, *v3;
    load_hashes(root, &h0, &v0);
    fixture_write(root, "01-a/lib/helpers.lua", "return { n = 1 }\n");
    load_hashes(root, &h1, &v1);
    fixture_write(root, "01-a/lib/helpers.lua", "return { n = 2 }\n");
    load_hashes(root, &h2, &v2);
    assert_string_not_equal(h0, h1);   /* a module added */
    assert_string_not_equal(h1, h2);   /* a helper changed */
    assert_string_not_equal(v1, v2);
    /* what require cannot load is not part of it */
    fixture_write(root, "01-a/lib/notes.txt", "not a module\n");
    load_hashes(root, &h3, &v3);
    assert_string_equal(h2, h3);
    assert_string_equal(v2, v3);
    free(h0), free(v0), free(h1), free(v1), free(h2), free(v2), free(h3), free(v3);
    fixture_remove(&root);
}

static void course__exercise_requires_a_chapter_module__and_a_missing_one_is_reported_at_its_line(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"vector-add\", \"other\"");
    fixture_write(root, "01-a/lib/common.lua", "return { title = 'Add two vectors' }\n");
    write_ex(root, "01-a", "vector-add",
             "local common = require('common')\n"
             "return { id = 'vector-add', title = common.title, source = 'vector-add.cu', hints = { 'a', 'b' },\n"
             "         run = function(t) end }\n", true);
    write_ex(root, "01-a", "other",
             "-- a typo\n"
             "local common = require('comon')\n"
             "return { id = 'other', source = 'other.cu', hints = { 'a', 'b' }, run = function(t) end }\n", true);
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    assert_int_equal(c->chapters[0].n_exercises, 1);
    assert_string_equal(c->chapters[0].exercises[0].title, "Add two vectors");
    const Diag *e = find_diag(d, "no such module");
    assert_non_null(e);
    assert_string_equal(e->file, "lessons/01-a/other.lua");
    assert_int_equal(e->line, 2);
    assert_non_null(strstr(e->message, "did you mean 'common'"));
    diag_free(&d);
    course_free(&c);
    fixture_remove(&root);
}

static void course__load_dirs__loads_only_named_chapters(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"vector-add\"");
    write_ex(root, "01-a", "vector-add", good_ex, true);
    write_chapter(root, "02-b", "b", 2, "");
    char *dir = path_join(root, "01-a");
    const char *dirs[] = {dir};
    Course *c = NULL;
    Diag *d = course_load_dirs(dirs, 1, &c);
    assert_null(d);
    assert_int_equal(c->n_chapters, 1);
    assert_string_equal(c->chapters[0].id, "a");
    course_free(&c);
    free(dir);
    fixture_remove(&root);
}

static void course__reports_missing_root(void **state) {
    (void)state;
    Course *c = NULL;
    Diag *d = course_load("/nonexistent/cudojo/lessons", &c);
    assert_non_null(d);
    assert_null(c);
    diag_free(&d);
}

/* ---- hostile packs (tests/lua/hostile/, issue 16) ---------------------- */

#define HOSTILE "tests/lua/hostile/"

/* The diag whose message holds `needle`, asserted to point at file:line. */
static void expect_refusal(const Diag *d, const char *needle, const char *file, int line) {
    const Diag *e = d;
    while (e && (!strstr(e->message, needle) || !e->file || strcmp(e->file, file))) e = e->next;
    if (!e) {
        for (; d; d = d->next) fprintf(stderr, "  have: %s:%d: %s\n", d->file, d->line, d->message);
        fail_msg("no diagnostic with '%s' naming %s", needle, file);
    }
    if (line) assert_int_equal(e->line, line);
    assert_int_equal(e->severity, DIAG_ERROR);
}

static void course__refuses_chapter_id_dotdot__with_file_line(void **state) {
    (void)state;
    Course *c = NULL;
    Diag *d = course_load(HOSTILE "dotdot-chapter", &c);
    expect_refusal(d, "chapter.lua needs id", "lessons/01-evil/chapter.lua", 3);
    assert_int_equal(c->n_chapters, 0);
    diag_free(&d);
    course_free(&c);
}

static void course__refuses_paths_leaving_the_chapter__with_file_line(void **state) {
    (void)state;
    Course *c = NULL;
    Diag *d = course_load(HOSTILE "bad-paths", &c);
    const char *dir = "lessons/01-paths/";
    char *f = xasprintf("%sabs-solution.lua", dir);
    expect_refusal(d, "solution file '/etc/passwd' is absolute", f, 5);
    expect_refusal(d, "wrong-variant file '../../../x.cu' leaves the chapter folder", f, 6);
    free(f);
    f = xasprintf("%sup-source.lua", dir);
    expect_refusal(d, "source file '../../x' leaves the chapter folder", f, 4);
    free(f);
    f = xasprintf("%slink-out.lua", dir);
    expect_refusal(d, "source file 'link-out.cu' is a symlink leading outside the chapter folder", f, 4);
    free(f);
    f = xasprintf("%sdotdot-id.lua", dir);
    expect_refusal(d, "id '..' must be one name", f, 2);
    free(f);
    f = xasprintf("%schapter.lua", dir);
    expect_refusal(d, "exercise '../../escape' must name a file of this folder", f, 6);
    expect_refusal(d, "link-lua.lua is a symlink leading outside the chapter folder", f, 6);
    free(f);
    /* Only the sound exercise is left, and nothing names a file outside. */
    assert_int_equal(c->n_chapters, 1);
    assert_int_equal(c->chapters[0].n_exercises, 1);
    assert_string_equal(c->chapters[0].exercises[0].id, "good");
    diag_free(&d);
    course_free(&c);
}

static void course__refuses_chapter_folder_symlinked_out_of_the_course(void **state) {
    (void)state;
    char *root = fixture_tmpdir(), *elsewhere = fixture_tmpdir();
    write_chapter(elsewhere, "01-a", "a", 1, "\"vector-add\"");
    write_ex(elsewhere, "01-a", "vector-add", good_ex, true);
    write_chapter(root, "02-b", "b", 2, "");
    char *target = path_join(elsewhere, "01-a"), *link = path_join(root, "01-a");
    assert_int_equal(symlink(target, link), 0);
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    const Diag *e = find_diag(d, "lessons/01-a is a symlink leading outside the course folder");
    assert_non_null(e);
    assert_int_equal(c->n_chapters, 1);
    assert_string_equal(c->chapters[0].id, "b");
    diag_free(&d);
    course_free(&c);
    free(target);
    free(link);
    fixture_remove(&root);
    fixture_remove(&elsewhere);
}

static void course__refuses_a_fifo_as_a_course_file__without_blocking(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    write_chapter(root, "01-a", "a", 1, "\"vector-add\"");
    fixture_write(root, "01-a/vector-add.cu", "x");
    char *fifo = path_join(root, "01-a/vector-add.lua");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    alarm(20); /* a blocking open would hang the suite: fail instead */
    Course *c = NULL;
    Diag *d = course_load(root, &c);
    alarm(0);
    expect_refusal(d, "is not a regular file", "lessons/01-a/vector-add.lua", 0);
    assert_int_equal(c->chapters[0].n_exercises, 0);
    diag_free(&d);
    course_free(&c);
    free(fifo);
    fixture_remove(&root);
}

static void course__loading_a_runaway_pack__stops_each_file_and_names_it(void **state) {
    (void)state;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    alarm(60);
    Course *c = NULL;
    Diag *d = course_load(HOSTILE "runaway", &c);
    alarm(0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    expect_refusal(d, "loading this course file ran too long", "lessons/01-pcall-loop/chapter.lua", 3);
    expect_refusal(d, "__gc is not allowed", "lessons/02-gc-loop/chapter.lua", 2);
    expect_refusal(d, "could take too long", "lessons/03-slow-pattern/chapter.lua", 3);
    expect_refusal(d, "loading this course file ran ", "lessons/04-print-flood/chapter.lua", 3);
    expect_refusal(d, "loading this course file used more than 64 MiB", "lessons/05-memory/chapter.lua", 3);
    expect_refusal(d, "loading this course file ran too long", "lessons/06-spin/spin.lua", 2);
    expect_refusal(d, "exceed what an exercise may allocate (16 MiB in all)", "lessons/07-arrays/chapter.lua", 3);
    assert_int_equal(c->n_chapters, 1);
    assert_string_equal(c->chapters[0].id, "spin");
    assert_int_equal(c->chapters[0].n_exercises, 0);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (s > 15) fail_msg("loading took %.1f s", s);
    diag_free(&d);
    course_free(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(course__loads_chapters__sorted_by_order),
        cmocka_unit_test(course__reports_file_line__when_id_missing),
        cmocka_unit_test(course__reports_line__when_source_file_missing),
        cmocka_unit_test(course__reports_duplicate_ids__across_chapters),
        cmocka_unit_test(course__reports_lua_error__with_author_line),
        cmocka_unit_test(course__reports_missing_run_and_listed_file),
        cmocka_unit_test(course__reads_hint_for__and_reports_bad_kinds_and_numbers),
        cmocka_unit_test(course__reads_bug_and_mutant_allowances__and_reports_mistakes_at_their_line),
        cmocka_unit_test(course__broken_chapter__does_not_hide_others),
        cmocka_unit_test(course__finds_exercise__by_id_or_chapter_slash_id),
        cmocka_unit_test(course__def_hash__changes_with_starter),
        cmocka_unit_test(course__version_changes__when_a_chapter_module_changes),
        cmocka_unit_test(course__exercise_requires_a_chapter_module__and_a_missing_one_is_reported_at_its_line),
        cmocka_unit_test(course__load_dirs__loads_only_named_chapters),
        cmocka_unit_test(course__reports_missing_root),
        cmocka_unit_test(course__refuses_chapter_id_dotdot__with_file_line),
        cmocka_unit_test(course__refuses_paths_leaving_the_chapter__with_file_line),
        cmocka_unit_test(course__refuses_chapter_folder_symlinked_out_of_the_course),
        cmocka_unit_test(course__refuses_a_fifo_as_a_course_file__without_blocking),
        cmocka_unit_test(course__loading_a_runaway_pack__stops_each_file_and_names_it),
        cmocka_unit_test(course__reads_timed__default_true_for_programs__and_refuses_it_on_kernel_exercises),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
