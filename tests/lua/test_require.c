/* tests/lua/test_require.c: require(name) in a course script loads the
 * chapter's own lib/<name>.lua inside the same sandbox, once, refuses names
 * and files that would leave the chapter, and every error names the
 * author's file and line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "lua/sandbox.h"
#include "tests/lua/lesson_fixture.h"

#define SHOWN "lessons/01-test"
#define FILE_NAME SHOWN "/x.lua"

typedef struct Fixture {
    char *root;     /* the temporary folder; the chapter is root/01-test */
    char *chapter;
    Sandbox *sb;
} Fixture;

static int setup(void **state) {
    Fixture *f = xcalloc(1, sizeof *f);
    f->root = fixture_tmpdir();
    f->chapter = path_join(f->root, "01-test");
    fixture_write(f->root, "01-test/chapter.lua", "return {}\n");
    f->sb = sandbox_new(NULL);
    sandbox_enable_require(f->sb, f->chapter, SHOWN);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    Fixture *f = *state;
    sandbox_free(&f->sb);
    free(f->chapter);
    fixture_remove(&f->root);
    free(f);
    return 0;
}

static void write_module(Fixture *f, const char *name, const char *text) {
    char *rel = xasprintf("01-test/lib/%s.lua", name);
    fixture_write(f->root, rel, text);
    free(rel);
}

/* Runs `code` as lessons/01-test/x.lua; returns the error (NULL = ran). */
static Diag *run_code(Fixture *f, const char *code) {
    Diag *d = sandbox_load_string(f->sb, code, strlen(code), FILE_NAME);
    if (d) return d;
    return sandbox_call(f->sb, 0, 0);
}

static void assert_runs(Fixture *f, const char *code) {
    Diag *d = run_code(f, code);
    if (d) fail_msg("%s:%d: %s", d->file, d->line, d->message);
}

/* The run fails at file:line with a message holding each needle (NULL-ended). */
static void assert_error_at(Diag *d, const char *file, int line, ...) {
    assert_non_null(d);
    if (!d->file || strcmp(d->file, file) || d->line != line)
        fail_msg("error at %s:%d, want %s:%d: %s", d->file ? d->file : "(none)", d->line, file, line, d->message);
    va_list ap;
    va_start(ap, line);
    for (const char *needle; (needle = va_arg(ap, const char *));)
        if (!strstr(d->message, needle)) fail_msg("message '%s' lacks '%s'", d->message, needle);
    va_end(ap);
}

static void require__returns_the_modules_value__running_it_once(void **state) {
    Fixture *f = *state;
    write_module(f, "helpers", "print('loading helpers', ...)\nlocal m = {}\nfunction m.twice(x) return 2 * x end\n"
                               "return m\n");
    write_module(f, "quiet", "local x = 1\n");
    assert_runs(f, "local a = require('helpers')\n"
                   "local b = require('helpers')\n"
                   "assert(a == b, 'the second require returns the same table')\n"
                   "assert(a.twice(21) == 42)\n"
                   "assert(require('quiet') == true, 'a module returning nothing gives true')\n");
    assert_string_equal(sandbox_log(f->sb), "loading helpers\thelpers\n");
}

static void require__lets_a_module_require_another(void **state) {
    Fixture *f = *state;
    write_module(f, "base", "return { k = 7 }\n");
    write_module(f, "top", "local base = require('base')\nreturn { k = base.k + 1 }\n");
    assert_runs(f, "assert(require('top').k == 8)\nassert(require('base').k == 7)\n");
}

static void require__module_runs_in_the_same_sandbox__without_io_or_os(void **state) {
    Fixture *f = *state;
    write_module(f, "evil_io", "-- reads a file\nlocal f = io.open('/etc/passwd')\nreturn f\n");
    write_module(f, "evil_os", "\n\nos.execute('touch /tmp/cudojo-pwned')\n");
    write_module(f, "evil_global", "helper = 1\n");
    write_module(f, "evil_debug", "return debug.getinfo(1)\n");
    write_module(f, "evil_load", "return load('return 1')\n");
    Diag *d = run_code(f, "local m = require('evil_io')\n");
    assert_error_at(d, SHOWN "/lib/evil_io.lua", 2, "unknown global 'io'", NULL);
    /* the note points at the requiring line */
    assert_non_null(d->next);
    assert_string_equal(d->next->file, FILE_NAME);
    assert_int_equal(d->next->line, 1);
    diag_free(&d);
    d = run_code(f, "\nrequire('evil_os')\n");
    assert_error_at(d, SHOWN "/lib/evil_os.lua", 3, "execute", NULL);
    diag_free(&d);
    d = run_code(f, "require('evil_global')\n");
    assert_error_at(d, SHOWN "/lib/evil_global.lua", 1, "undeclared global 'helper'", NULL);
    diag_free(&d);
    d = run_code(f, "require('evil_debug')\n");
    assert_error_at(d, SHOWN "/lib/evil_debug.lua", 1, "unknown global 'debug'", NULL);
    diag_free(&d);
    d = run_code(f, "require('evil_load')\n");
    assert_error_at(d, SHOWN "/lib/evil_load.lua", 1, "unknown global 'load'", NULL);
    diag_free(&d);
    assert_false(fs_exists("/tmp/cudojo-pwned"));
}

static void require__refuses_names_that_are_not_one_identifier(void **state) {
    Fixture *f = *state;
    /* Files a path name would reach, to be sure none is read. */
    fixture_write(f->root, "secret.lua", "return 'outside the chapter'\n");
    fixture_write(f->root, "01-test/lib/sub/x.lua", "return 'in a subfolder'\n");
    fixture_write(f->root, "01-test/lib/.hidden.lua", "return 'hidden'\n");
    write_module(f, "ok", "return 1\n");
    static const char *const bad[] = {"../../secret", "..", "sub/x", "/etc/passwd", ".hidden", "ok.lua",
                                      "", "1st", "a b", "ok\\0", NULL};
    for (const char *const *b = bad; *b; b++) {
        char *code = xasprintf("\nlocal m = require('%s')\n", *b);
        Diag *d = run_code(f, code);
        assert_error_at(d, FILE_NAME, 2, "a module name is one identifier", NULL);
        diag_free(&d);
        free(code);
    }
    Diag *d = run_code(f, "require(nil)\n");
    assert_error_at(d, FILE_NAME, 1, "string expected", NULL);
    diag_free(&d);
}

static void require__refuses_a_symlink_out_of_the_chapter(void **state) {
    Fixture *f = *state;
    fixture_write(f->root, "outside.lua", "return 'outside'\n");
    fixture_write(f->root, "01-test/lib/inside.lua", "return 'inside'\n");
    char *target = path_join(f->root, "outside.lua"), *link = path_join(f->chapter, "lib/leak.lua");
    char *inner = path_join(f->chapter, "lib/inside.lua"), *alias = path_join(f->chapter, "lib/alias.lua");
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(symlink(inner, alias), 0);
    Diag *d = run_code(f, "local m = require('leak')\n");
    assert_error_at(d, FILE_NAME, 1, "symlink leading outside the chapter folder", NULL);
    diag_free(&d);
    /* a link that stays inside the chapter is an ordinary module */
    assert_runs(f, "assert(require('alias') == 'inside')\n");
    free(target);
    free(link);
    free(inner);
    free(alias);
}

static void require__names_the_requiring_line__when_the_module_is_missing(void **state) {
    Fixture *f = *state;
    write_module(f, "matmul_common", "return {}\n");
    Diag *d = run_code(f, "-- one\nlocal m = require('matmul_comon')\n");
    assert_error_at(d, FILE_NAME, 2, "no such module", SHOWN "/lib/matmul_comon.lua does not exist",
                    "did you mean 'matmul_common'", NULL);
    diag_free(&d);
    d = run_code(f, "local m = require('nothing_like_it')\n");
    assert_error_at(d, FILE_NAME, 1, "no such module", SHOWN "/lib/<name>.lua", NULL);
    diag_free(&d);
    fixture_write(f->root, "01-test/lib/folder.lua/x", "");
    d = run_code(f, "local m = require('folder')\n");
    assert_error_at(d, FILE_NAME, 1, "is a directory", NULL);
    diag_free(&d);
}

static void require__names_both_lines__when_the_module_does_not_compile(void **state) {
    Fixture *f = *state;
    write_module(f, "broken", "local m = {}\n\nfunction m.f(\n  return 1\nend\nreturn m\n");
    Diag *d = run_code(f, "\n\nlocal m = require('broken')\n");
    assert_error_at(d, FILE_NAME, 3, "does not compile", SHOWN "/lib/broken.lua:4:", NULL);
    diag_free(&d);
    /* bytecode is text-only refused, as for every course file */
    fixture_write(f->root, "01-test/lib/bytes.lua", "\x1bLua\x54");
    d = run_code(f, "local m = require('bytes')\n");
    assert_error_at(d, FILE_NAME, 1, "does not compile", "binary chunk", NULL);
    diag_free(&d);
}

static void require__names_the_modules_line__when_its_code_fails(void **state) {
    Fixture *f = *state;
    write_module(f, "faulty", "local m = {}\nfunction m.f(x)\n  return x.field\nend\nreturn m\n");
    Diag *d = run_code(f, "local m = require('faulty')\n\nm.f(nil)\n");
    assert_error_at(d, SHOWN "/lib/faulty.lua", 3, "attempt to index", NULL);
    assert_non_null(d->excerpt);   /* the module's text is known: the line is shown */
    assert_non_null(strstr(d->excerpt, "x.field"));
    assert_non_null(d->next);
    assert_string_equal(d->next->file, FILE_NAME);
    assert_int_equal(d->next->line, 3);
    diag_free(&d);
}

static void require__reports_a_cycle(void **state) {
    Fixture *f = *state;
    write_module(f, "ping", "return { pong = require('pong') }\n");
    write_module(f, "pong", "\nreturn { ping = require('ping') }\n");
    Diag *d = run_code(f, "require('ping')\n");
    assert_error_at(d, SHOWN "/lib/pong.lua", 2, "'ping'", "a cycle", NULL);
    diag_free(&d);
}

static void require__after_a_failed_load__fails_the_same_way_again(void **state) {
    Fixture *f = *state;
    write_module(f, "fails", "error('not today')\n");
    assert_runs(f, "local ok1, e1 = pcall(require, 'fails')\n"
                   "local ok2, e2 = pcall(require, 'fails')\n"
                   "assert(not ok1 and not ok2)\n"
                   "assert(e1:find('not today') and e2:find('not today'), e2)\n");
}

static void require__counts_against_the_scripts_budget(void **state) {
    Fixture *f = *state;
    write_module(f, "spin", "while true do end\n");
    SandboxLimits lim = {5000000, 0, 0, NULL, NULL};
    Sandbox *sb = sandbox_new(&lim);
    sandbox_enable_require(sb, f->chapter, SHOWN);
    static const char code[] = "pcall(require, 'spin')\nlocal x = 1\n";
    Diag *d = sandbox_load_string(sb, code, sizeof code - 1, FILE_NAME);
    if (!d) d = sandbox_call(sb, 0, 0);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "instruction budget"));
    assert_true(sandbox_dead(sb));
    diag_free(&d);
    sandbox_free(&sb);
}

static void require__exists_only_where_enabled(void **state) {
    (void)state;
    Sandbox *sb = sandbox_new(NULL);
    static const char code[] = "local m = require('helpers')\n";
    Diag *d = sandbox_load_string(sb, code, sizeof code - 1, FILE_NAME);
    if (!d) d = sandbox_call(sb, 0, 0);
    assert_error_at(d, FILE_NAME, 1, "unknown global 'require'", NULL);
    diag_free(&d);
    sandbox_free(&sb);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(require__returns_the_modules_value__running_it_once, setup, teardown),
        cmocka_unit_test_setup_teardown(require__lets_a_module_require_another, setup, teardown),
        cmocka_unit_test_setup_teardown(require__module_runs_in_the_same_sandbox__without_io_or_os, setup, teardown),
        cmocka_unit_test_setup_teardown(require__refuses_names_that_are_not_one_identifier, setup, teardown),
        cmocka_unit_test_setup_teardown(require__refuses_a_symlink_out_of_the_chapter, setup, teardown),
        cmocka_unit_test_setup_teardown(require__names_the_requiring_line__when_the_module_is_missing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(require__names_both_lines__when_the_module_does_not_compile, setup, teardown),
        cmocka_unit_test_setup_teardown(require__names_the_modules_line__when_its_code_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(require__reports_a_cycle, setup, teardown),
        cmocka_unit_test_setup_teardown(require__after_a_failed_load__fails_the_same_way_again, setup, teardown),
        cmocka_unit_test_setup_teardown(require__counts_against_the_scripts_budget, setup, teardown),
        cmocka_unit_test(require__exists_only_where_enabled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
