/* tests/lua/test_sandbox.c: the exercise sandbox refuses what a hostile
 * lesson pack could use, stops runaway scripts and names the author's line. */
#include <lua.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "lua/sandbox.h"

#define FILE_NAME "lessons/01-test/x.lua"

/* Runs `code` as lessons/01-test/x.lua; returns the error (NULL = ran). */
static Diag *run_code(Sandbox *sb, const char *code) {
    Diag *d = sandbox_load_string(sb, code, strlen(code), FILE_NAME);
    if (d) return d;
    return sandbox_call(sb, 0, 0);
}

static Diag *run_fresh(const char *code, uint64_t budget, size_t mem) {
    SandboxLimits lim = {budget, mem, 0, NULL, NULL};
    Sandbox *sb = sandbox_new(&lim);
    Diag *d = run_code(sb, code);
    sandbox_free(&sb);
    return d;
}

static void assert_refused(const char *code, const char *needle) {
    Diag *d = run_fresh(code, 0, 0);
    assert_non_null(d);
    if (!strstr(d->message, needle)) fail_msg("'%s': message '%s' lacks '%s'", code, d->message, needle);
    assert_string_equal(d->file, FILE_NAME);
    assert_int_equal(d->line, 1);
    diag_free(&d);
}

static void sandbox__refuses_os_execute(void **state) {
    (void)state;
    assert_refused("os.execute('touch /tmp/cudojo-pwned')", "execute");
    assert_refused("os.remove('/tmp/x')", "remove");
    assert_refused("os.getenv('HOME')", "getenv");
}

static void sandbox__refuses_io(void **state) {
    (void)state;
    assert_refused("local f = io.open('/etc/passwd')", "unknown global 'io'");
}

static void sandbox__refuses_require_and_package(void **state) {
    (void)state;
    assert_refused("require('os')", "unknown global 'require'");
    assert_refused("local p = package.loadlib", "unknown global 'package'");
}

static void sandbox__refuses_load_dofile_loadfile(void **state) {
    (void)state;
    assert_refused("load('\\27Lua\\84\\0')()", "unknown global 'load'");
    assert_refused("dofile('/etc/passwd')", "unknown global 'dofile'");
    assert_refused("loadfile('/etc/passwd')", "unknown global 'loadfile'");
    assert_refused("collectgarbage('stop')", "unknown global 'collectgarbage'");
}

static void sandbox__refuses_bytecode_chunk(void **state) {
    (void)state;
    Sandbox *sb = sandbox_new(NULL);
    static const char chunk[] = "\x1bLua\x54\x00\x19\x93\r\n\x1a\n";
    Diag *d = sandbox_load_string(sb, chunk, sizeof chunk - 1, FILE_NAME);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "binary chunk"));
    diag_free(&d);
    sandbox_free(&sb);
}

static void sandbox__refuses_string_dump_and_debug(void **state) {
    (void)state;
    assert_refused("local s = string.dump(function() end)", "dump");
    assert_refused("local s = ('x').dump(function() end)", "dump");
    assert_refused("debug.sethook()", "unknown global 'debug'");
}

static void sandbox__allows_the_standard_tables(void **state) {
    (void)state;
    Diag *d = run_fresh("local x = math.floor(2.5) + #string.format('%d', 42) + #table.concat({'a','b'})\n"
                        "assert(x == 6)\n"
                        "assert(utf8.char(72) == 'H')\n"
                        "assert(type(os.clock()) == 'number' and type(os.time()) == 'number')\n"
                        "assert(select('#', pcall(error, 'x')) == 2)\n"
                        "assert(('abc'):upper() == 'ABC')\n",
                        0, 0);
    if (d) fail_msg("%s", d->message);
}

static void sandbox__stops_infinite_loop__with_budget(void **state) {
    (void)state;
    Diag *d = run_fresh("local i = 0\nwhile true do\n  i = i + 1\nend\n", 2000000, 0);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "ran too long (instruction budget"));
    assert_string_equal(d->file, FILE_NAME);
    assert_true(d->line >= 2 && d->line <= 4);
    diag_free(&d);
}

static void sandbox__budget_survives_pcall(void **state) {
    (void)state;
    /* A script cannot catch the budget error and keep going. */
    Diag *d = run_fresh("for k = 1, 100 do pcall(function() while true do end end) end\n"
                        "while true do end\n", 2000000, 0);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "instruction budget"));
    diag_free(&d);
}

static void sandbox__stops_memory_bomb__with_cap(void **state) {
    (void)state;
    Diag *d = run_fresh("local t = {}\nfor i = 1, 1e9 do t[i] = i end\n", 0, (size_t)16 << 20);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "more than 16 MiB of memory (memory cap)"));
    assert_string_equal(d->file, FILE_NAME);
    assert_int_equal(d->line, 2);
    diag_free(&d);
    d = run_fresh("local s = string.rep('x', 1 << 30)\n", 0, (size_t)16 << 20);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "memory cap"));
    diag_free(&d);
}

static void sandbox__names_file_line__when_global_misspelt(void **state) {
    (void)state;
    Diag *d = run_fresh("local x = 1\n\nlocal y = mathh.floor(x)\n", 0, 0);
    assert_non_null(d);
    assert_string_equal(d->code, "lua");
    assert_string_equal(d->file, FILE_NAME);
    assert_int_equal(d->line, 3);
    assert_string_equal(d->message, "unknown global 'mathh' (did you mean 'math'?)");
    assert_non_null(d->excerpt);
    assert_non_null(strstr(d->excerpt, "mathh.floor"));
    diag_free(&d);
}

static void sandbox__refuses_global_write(void **state) {
    (void)state;
    Diag *d = run_fresh("local a = 1\ncount = a + 1\n", 0, 0);
    assert_non_null(d);
    assert_int_equal(d->line, 2);
    assert_non_null(strstr(d->message, "assignment to undeclared global 'count'"));
    diag_free(&d);
}

static void sandbox__traceback_names_calling_lines(void **state) {
    (void)state;
    Diag *d = run_fresh("local function inner(v)\n"
                        "  error('bad value ' .. v)\n"
                        "end\n"
                        "local function outer()\n"
                        "  inner(7)\n"
                        "end\n"
                        "outer()\n",
                        0, 0);
    assert_non_null(d);
    assert_int_equal(d->line, 2);
    assert_string_equal(d->message, "bad value 7");
    assert_non_null(d->next);
    assert_int_equal(d->next->severity, DIAG_NOTE);
    assert_int_equal(d->next->line, 5);
    assert_non_null(d->next->next);
    assert_int_equal(d->next->next->line, 7);
    assert_null(d->next->next->next);
    diag_free(&d);
}

static void sandbox__print_goes_to_log(void **state) {
    (void)state;
    Sandbox *sb = sandbox_new(NULL);
    Diag *d = run_code(sb, "print('n =', 42)\nprint(true)\n");
    assert_null(d);
    assert_string_equal(sandbox_log(sb), "n =\t42\ntrue\n");
    sandbox_free(&sb);
}

static void sandbox__reports_syntax_error_line(void **state) {
    (void)state;
    Diag *d = run_fresh("local x = 1\nlocal y = = 2\n", 0, 0);
    assert_non_null(d);
    assert_string_equal(d->file, FILE_NAME);
    assert_int_equal(d->line, 2);
    diag_free(&d);
}

static void sandbox__error_with_table_value_is_reported(void **state) {
    (void)state;
    Diag *d = run_fresh("\nerror({})\n", 0, 0);
    assert_non_null(d);
    assert_string_equal(d->message, "error object is a table value");
    assert_int_equal(d->line, 2);
    diag_free(&d);
}

/* ---- limits that must hold (issue 16) ----------------------------------- */

static double elapsed_since(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Runs `code` with a small budget; it must stop within 10 s (an alarm
 * fails the test instead of hanging it) with `needle` in the message. */
static void expect_stopped(const char *code, const SandboxLimits *lim, const char *needle) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    alarm(30);
    Sandbox *sb = sandbox_new(lim);
    Diag *d = run_code(sb, code);
    assert_true(sandbox_dead(sb) || !strstr(needle, "budget"));
    sandbox_free(&sb);
    alarm(0);
    assert_non_null(d);
    if (!strstr(d->message, needle)) fail_msg("'%s': message '%s' lacks '%s'", code, d->message, needle);
    assert_string_equal(d->file, FILE_NAME);
    assert_true(d->line >= 1);
    assert_true(elapsed_since(&t0) < 10);
    diag_free(&d);
}

static void sandbox__budget_cannot_be_caught__by_a_pcall_loop(void **state) {
    (void)state;
    SandboxLimits lim = {2000000, 0, 0, NULL, NULL};
    expect_stopped("while true do pcall(function() while true do end end) end\n", &lim, "instruction budget");
    expect_stopped("while true do pcall(pcall, pcall, function() while true do end end) end\n", &lim,
                   "instruction budget");
    /* Catching the error and looping on inside the same protected call. */
    expect_stopped("pcall(function()\n  while true do\n    pcall(function() while true do end end)\n  end\nend)\n"
                   "while true do end\n", &lim, "instruction budget");
}

static void sandbox__budget_cannot_be_caught__by_xpcall_or_its_handler(void **state) {
    (void)state;
    SandboxLimits lim = {2000000, 0, 0, NULL, NULL};
    expect_stopped("while true do\n  xpcall(function() while true do end end, function(m) while true do end end)\nend\n",
                   &lim, "instruction budget");
    expect_stopped("local function again() return xpcall(again, again) end\nwhile true do again() end\n", &lim,
                   "instruction budget");
    /* A to-be-closed variable's __close runs while the error unwinds. */
    expect_stopped("while true do\n  pcall(function()\n"
                   "    local x <close> = setmetatable({}, { __close = function() while true do end end })\n"
                   "    while true do end\n  end)\nend\n", &lim, "instruction budget");
}

static void sandbox__has_no_coroutines(void **state) {
    (void)state;
    /* coroutine.wrap would give a script its own stack to catch errors in. */
    assert_refused("local f = coroutine.wrap(function() while true do end end)", "unknown global 'coroutine'");
}

static void sandbox__refuses_finalizers(void **state) {
    (void)state;
    /* Lua runs __gc with hooks off: a looping finalizer would escape every limit. */
    assert_refused("setmetatable({}, { __gc = function() while true do end end })", "__gc is not allowed");
    /* Adding __gc after setmetatable does not make the object finalizable. */
    SandboxLimits lim = {2000000, 0, 0, NULL, NULL};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    alarm(30);
    Sandbox *sb = sandbox_new(&lim);
    Diag *d = run_code(sb, "local mt = {}\nfor i = 1, 100 do setmetatable({}, mt) end\n"
                           "mt.__gc = function() while true do end end\n");
    if (d) fail_msg("%s", d->message);
    sandbox_free(&sb); /* closing the state would run the finalizers */
    alarm(0);
    assert_true(elapsed_since(&t0) < 10);
    /* setmetatable still works, and returns its table. */
    d = run_fresh("local t = setmetatable({}, { __index = function() return 7 end })\nassert(t.x == 7)\n", 0, 0);
    if (d) fail_msg("%s", d->message);
}

static void sandbox__stops_at_the_wall_clock_limit(void **state) {
    (void)state;
    SandboxLimits lim = {(uint64_t)1 << 50, 0, 0.3, NULL, NULL};
    expect_stopped("while true do pcall(function() while true do end end) end\n", &lim, "wall-clock limit");
    SandboxLimits load = {(uint64_t)1 << 50, 0, 0.3, "loading this course file", NULL};
    expect_stopped("while true do end\n", &load, "loading this course file ran longer than 0.3 s");
}

/* A clock of waiting that runs as fast as the real one: all the time so far
 * was spent waiting (for a GPU another grader times on). */
static double waited_all_along(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sandbox__leaves_time_spent_waiting__out_of_the_wall_clock_limit(void **state) {
    (void)state;
    SandboxLimits lim = {(uint64_t)1 << 50, 0, 0.2, NULL, waited_all_along};
    Sandbox *sb = sandbox_new(&lim);
    /* busy for about 0.5 s, all of it "waiting": not stopped */
    Diag *d = run_code(sb, "local c = os.clock()\nwhile os.clock() - c < 0.5 do end\n");
    if (d) fail_msg("stopped although the time was spent waiting: %s", d->message);
    sandbox_free(&sb);
}

static void sandbox__caps_the_log__of_a_print_flood(void **state) {
    (void)state;
    Sandbox *sb = sandbox_new(NULL);
    Diag *d = run_code(sb, "local s = string.rep('x', 1 << 20)\nfor i = 1, 200 do print(s) end\nprint('end')\n");
    if (d) fail_msg("%s", d->message);
    const char *log = sandbox_log(sb);
    assert_non_null(log);
    assert_true(strlen(log) <= SANDBOX_LOG_CAP + 200);
    assert_non_null(strstr(log, "the rest of the output was cut"));
    assert_null(strstr(log, "end\n"));
    sandbox_free(&sb);
}

static void sandbox__cuts_huge_error_messages(void **state) {
    (void)state;
    Diag *d = run_fresh("error(string.rep('x', 10000000))\n", 0, 0);
    assert_non_null(d);
    assert_true(strlen(d->message) <= SANDBOX_MESSAGE_CAP + 40);
    assert_non_null(strstr(d->message, "bytes cut)"));
    assert_int_equal(d->line, 1);
    diag_free(&d);
}

static void sandbox__xpcall_gives_the_handlers_answer(void **state) {
    (void)state;
    Diag *d = run_fresh("local ok, m = xpcall(error, function(e) return 'h:' .. e end, 'x', 0)\n"
                        "assert(ok == false and m == 'h:x', tostring(m))\n"
                        "local a, b, c = xpcall(function(p, q) return p + q, 'r' end, print, 1, 2)\n"
                        "assert(a == true and b == 3 and c == 'r')\n"
                        "local ok2, m2 = xpcall(error, function(e) error('again', 0) end, 'x')\n"
                        "assert(ok2 == false and m2 == 'again', tostring(m2))\n",
                        0, 0);
    if (d) fail_msg("%s:%d: %s", d->file, d->line, d->message);
}

static void sandbox__error_objects_tostring_runs_under_the_budget(void **state) {
    (void)state;
    SandboxLimits lim = {2000000, 0, 0, NULL, NULL};
    alarm(30);
    Sandbox *sb = sandbox_new(&lim);
    Diag *d = run_code(sb, "error(setmetatable({}, { __tostring = function() while true do end end }))\n");
    sandbox_free(&sb);
    alarm(0);
    assert_non_null(d);
    assert_string_equal(d->message, "error object is a table value");
    diag_free(&d);
    d = run_fresh("error(setmetatable({}, { __tostring = function() return 'mine' end }))\n", 0, 0);
    assert_non_null(d);
    assert_string_equal(d->message, "mine");
    diag_free(&d);
}

static void sandbox__refuses_a_slow_pattern__before_it_runs(void **state) {
    (void)state;
    /* The matcher is C: no hook runs inside it, so it is refused up front. */
    const char *slow[] = {
        "local s = string.rep('a', 1000000)\nlocal i = s:find('.-b')\n",
        "local s = string.rep('a', 60)\nlocal i = string.find(s, string.rep('a-', 20) .. 'b')\n",
        "local s = string.rep('1', 1000000)\nlocal r = s:gsub('%d+%.%d+', '')\n",
        "local s = string.rep('x', 1000000)\nfor w in s:gmatch('x*y') do end\n",
        "local s = string.rep('a', 1000000)\nlocal m = s:match('(a*)(a*)(a*)$')\n",
    };
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++) {
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        alarm(30);
        Diag *d = run_fresh(slow[i], 0, 0);
        alarm(0);
        assert_non_null(d);
        if (!strstr(d->message, "could take too long")) fail_msg("%s: %s", slow[i], d->message);
        assert_int_equal(d->line, 2);
        assert_true(elapsed_since(&t0) < 5);
        diag_free(&d);
    }
}

static void sandbox__allows_ordinary_patterns_on_large_texts(void **state) {
    (void)state;
    Diag *d = run_fresh(
        "local text = string.rep('alpha = beta gamma\\n', 50000)\n"
        "local n = 0\n"
        "for w in text:gmatch('%a+') do n = n + 1 end\n"
        "assert(n == 150000)\n"
        "local k, v = ('  key  =  some value  '):match('(%w+)%s*=%s*(.*)')\n"
        "assert(k == 'key' and v == 'some value  ')\n"
        "local trimmed = ('   x y   '):match('^%s*(.-)%s*$')\n"
        "assert(trimmed == 'x y')\n"
        "local long = string.rep(' ', 2000) .. 'mid' .. string.rep(' ', 2000)\n"
        "assert(long:match('^%s*(.-)%s*$') == 'mid')\n"
        "assert(text:find('gamma', 1, true) == 14)\n"
        "local a, b, rest = text:match('^(%S+)%s+(%S+)%s+(.*)$')\n"
        "assert(a == 'alpha' and b == '=' and #rest == #text - 8)\n"
        "assert(select(2, text:gsub('beta', 'b')) == 50000)\n"
        "assert(('a.b'):find('.', 1, true) == 2 and ('f(x)'):match('%b()') == '(x)')\n",
        0, 0);
    if (d) fail_msg("%s:%d: %s", d->file, d->line, d->message);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sandbox__refuses_os_execute),
        cmocka_unit_test(sandbox__refuses_io),
        cmocka_unit_test(sandbox__refuses_require_and_package),
        cmocka_unit_test(sandbox__refuses_load_dofile_loadfile),
        cmocka_unit_test(sandbox__refuses_bytecode_chunk),
        cmocka_unit_test(sandbox__refuses_string_dump_and_debug),
        cmocka_unit_test(sandbox__allows_the_standard_tables),
        cmocka_unit_test(sandbox__stops_infinite_loop__with_budget),
        cmocka_unit_test(sandbox__budget_survives_pcall),
        cmocka_unit_test(sandbox__stops_memory_bomb__with_cap),
        cmocka_unit_test(sandbox__names_file_line__when_global_misspelt),
        cmocka_unit_test(sandbox__refuses_global_write),
        cmocka_unit_test(sandbox__traceback_names_calling_lines),
        cmocka_unit_test(sandbox__print_goes_to_log),
        cmocka_unit_test(sandbox__reports_syntax_error_line),
        cmocka_unit_test(sandbox__error_with_table_value_is_reported),
        cmocka_unit_test(sandbox__budget_cannot_be_caught__by_a_pcall_loop),
        cmocka_unit_test(sandbox__budget_cannot_be_caught__by_xpcall_or_its_handler),
        cmocka_unit_test(sandbox__has_no_coroutines),
        cmocka_unit_test(sandbox__refuses_finalizers),
        cmocka_unit_test(sandbox__stops_at_the_wall_clock_limit),
        cmocka_unit_test(sandbox__leaves_time_spent_waiting__out_of_the_wall_clock_limit),
        cmocka_unit_test(sandbox__caps_the_log__of_a_print_flood),
        cmocka_unit_test(sandbox__cuts_huge_error_messages),
        cmocka_unit_test(sandbox__xpcall_gives_the_handlers_answer),
        cmocka_unit_test(sandbox__error_objects_tostring_runs_under_the_budget),
        cmocka_unit_test(sandbox__refuses_a_slow_pattern__before_it_runs),
        cmocka_unit_test(sandbox__allows_ordinary_patterns_on_large_texts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
