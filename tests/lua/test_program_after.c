/* tests/lua/test_program_after.c: t:program{ profile =, after = fn } — the
 * profiled run kept for after the verdict (lua/API.md). On the fake
 * backend the program runs on the emulator runtime (or on the stand-in,
 * NVIDIA's libcudart, for this host-only program), so the profile is
 * "unavailable": the function still runs, after the verdict, with
 * available = false and the reason. What it logs is the result's
 * after_log; what would change the verdict there is refused and reported
 * as a warning; grading keeps no such run. Skips without nvcc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/lua/program_fixture.h"

static const char *const prog_cu =
    "#include <stdio.h>\n"
    "int main(void) { printf(\"sum = 42\\n\"); return 0; }\n";

#define PROG_LUA(RUN)                                                      \
    "return {\n"                                                           \
    "  id = 'prog',\n"                                                     \
    "  kind = 'program',\n"                                                \
    "  source = 'prog.cu',\n"                                              \
    "  timeout = 60,\n"                                                    \
    "  run = function(t)\n" RUN "  end,\n"                                 \
    "}\n"

/* What on_verdict was told, and what the run had logged then. */
typedef struct Told {
    int calls;
    Verdict verdict;
    char *summary, *log, *after_log;
    int n_checks;
    bool after_metric;          /* metrics.after.verdict_ms was there */
    const char *doing;          /* what the verdict said runs after it (run_result_after_doing) */
} Told;
static Told g_told;

static void on_verdict(void *ud, const RunResult *r) {
    (void)ud;
    g_told.calls++;
    g_told.verdict = r->verdict;
    free(g_told.summary);
    free(g_told.log);
    free(g_told.after_log);
    g_told.summary = r->summary ? xstrdup(r->summary) : NULL;
    g_told.log = r->log ? xstrdup(r->log) : NULL;
    g_told.after_log = r->after_log ? xstrdup(r->after_log) : NULL;
    g_told.n_checks = r->n_checks;
    g_told.after_metric = json_is_number(json_object_get(json_object_get(r->metrics, "after"), "verdict_ms"));
    g_told.doing = run_result_after_doing(r);
}

static int after_group_teardown(void **state) {
    free(g_told.summary);
    free(g_told.log);
    free(g_told.after_log);
    return group_teardown(state);
}

static RunResult *run_prog(Fixture *f, const char *lua, bool grading) {
    g_told.calls = 0;
    return fixture_run_exercise(f, "prog", lua, "prog.cu", prog_cu,
                                &(ExerciseRunOptions){.on_verdict = on_verdict, .grading = grading});
}

/* Runs the exercise `lua` (the test skips without nvcc) and asserts its
 * verdict, showing the result when it is another. */
static RunResult *run_expecting(void **state, const char *lua, bool grading, Verdict want) {
    NEED_NVCC();
    RunResult *r = run_prog(*state, lua, grading);
    if (r->verdict != want) show(r);
    assert_int_equal(r->verdict, want);
    return r;
}

/* The first diagnostic with this code, or NULL. */
static const Diag *diag_coded(const RunResult *r, const char *code) {
    for (const Diag *d = r->diags; d; d = d->next)
        if (d->code && !strcmp(d->code, code)) return d;
    return NULL;
}

static void after__runs_once_the_verdict_is_out__with_the_unavailable_profile(void **state) {
    RunResult *r = run_expecting(state, PROG_LUA(
        "    local r = t:program{ profile = 'ncu', metrics = { 'gpu__time_duration.sum' },\n"
        "      after = function(prof)\n"
        "        t:log('ncu: available=%s tool=%s reason=%s', tostring(prof.available), prof.tool, prof.reason)\n"
        "      end }\n"
        "    t:log('profile in r: %s', tostring(rawget(r, 'profile')))\n"
        "    t:expect_output(r, 'sum = 42')\n"), false, VERDICT_PASS);
    /* the verdict was told once, before the profile: pass, its one check, none of the after log */
    assert_int_equal(g_told.calls, 1);
    assert_int_equal(g_told.verdict, VERDICT_PASS);
    assert_int_equal(g_told.n_checks, 1);
    assert_true(g_told.after_metric);
    assert_non_null(g_told.log);
    assert_non_null(strstr(g_told.log, "profile in r: nil"));
    assert_null(strstr(g_told.log, "ncu:"));
    assert_null(g_told.after_log);
    /* the final result: the same verdict, and the function's log apart from the script's */
    assert_int_equal(r->n_checks, 1);
    assert_string_equal(r->summary, g_told.summary);
    assert_string_equal(r->log, g_told.log);
    assert_non_null(r->after_log);
    assert_non_null(strstr(r->after_log, "ncu: available=false tool=ncu reason="));
    assert_non_null(strstr(r->after_log, "emulator"));
    assert_null(diag_coded(r, "after-verdict"));
    json_t *after = json_object_get(r->metrics, "after");
    assert_int_equal(json_integer_value(json_object_get(after, "runs")), 1);
    assert_true(json_is_number(json_object_get(after, "ms")));
    assert_true(json_is_array(json_object_get(after, "tools")));
    assert_string_equal(json_string_value(json_array_get(json_object_get(after, "tools"), 0)), "ncu");
    /* through JSON (the worker's pipe) the after log survives */
    json_t *j = run_result_to_json(r);
    RunResult *back = run_result_from_json(j);
    assert_string_equal(back->after_log, r->after_log);
    assert_string_equal(run_result_after_title(back), "What Nsight Compute measured (after the verdict)");
    run_result_free(&back);
    json_decref(j);
}

static void after__functions_run_in_order__and_after_a_failed_verdict_too(void **state) {
    RunResult *r = run_expecting(state, PROG_LUA(
        "    t:program{ profile = 'nsys', after = function(p) t:log('first %s', p.tool) end }\n"
        "    local r = t:program{ profile = 'ncu', after = function(p) t:log('second %s', p.tool) end }\n"
        "    t:expect_output(r, 'sum = 43')\n"), false, VERDICT_FAIL);
    assert_int_equal(g_told.calls, 1);
    assert_int_equal(g_told.verdict, VERDICT_FAIL);
    assert_non_null(r->after_log);
    const char *a = strstr(r->after_log, "first nsys"), *b = strstr(r->after_log, "second ncu");
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a < b);
    assert_string_equal(run_result_after_title(r), "What the profiler measured (after the verdict)");
}

static void after__a_check_in_it_is_refused_at_the_authors_line__and_the_verdict_stands(void **state) {
    RunResult *r = run_expecting(state, PROG_LUA(
        "    local r = t:program{ profile = 'ncu', after = function(prof)\n"
        "      t:log('before the check')\n"
        "      t:expect(false, 'ncu: 24 sectors per request')\n"     /* line 9 of prog.lua */
        "      t:log('never')\n"
        "    end }\n"
        "    t:expect_output(r, 'sum = 42')\n"), false, VERDICT_PASS);
    assert_int_equal(r->n_checks, 1);
    const Diag *w = diag_coded(r, "after-verdict");
    assert_non_null(w);
    assert_int_equal(w->severity, DIAG_WARNING);
    assert_non_null(w->file);
    assert_non_null(strstr(w->file, "prog.lua"));
    assert_int_equal(w->line, 9);
    assert_non_null(strstr(w->message, "t:expect: after the verdict a profile can only log"));
    assert_non_null(strstr(w->message, "the verdict stands"));
    assert_non_null(strstr(r->after_log, "before the check"));
    assert_null(strstr(r->after_log, "never"));
}

static void after__a_check_kept_in_a_local_is_not_counted__and_is_reported(void **state) {
    RunResult *r = run_expecting(state, PROG_LUA(
        "    local fail = t.fail\n"
        "    local r = t:program{ profile = 'ncu', after = function(prof) fail(t, 'too late') end }\n"
        "    t:expect_output(r, 'sum = 42')\n"), false, VERDICT_PASS);
    assert_int_equal(r->n_checks, 1);
    const Diag *w = diag_coded(r, "after-verdict");
    assert_non_null(w);
    assert_non_null(strstr(w->message, "1 check was made and not counted"));
}

static void after__grading_keeps_no_profiled_run__and_never_calls_the_function(void **state) {
    RunResult *r = run_expecting(state, PROG_LUA(
        "    local r = t:program{ profile = 'ncu', after = function(prof) t:log('profiled') end }\n"
        "    t:expect(rawget(r, 'profile') == nil, 'no profile in r')\n"
        "    t:expect_output(r, 'sum = 42')\n"), true, VERDICT_PASS);
    assert_int_equal(g_told.calls, 0);
    assert_null(r->after_log);
    assert_true(!r->log || !strstr(r->log, "profiled"));
    assert_null(json_object_get(r->metrics, "after"));
}

static void after__a_failed_program_leaves_nothing_to_profile__and_no_early_verdict(void **state) {
    RunResult *r = run_expecting(state, PROG_LUA(
        "    local r = t:program{ profile = 'ncu', after = function(prof) t:log('profiled') end }\n"
        "    error('the script broke')\n"), false, VERDICT_EXERCISE_ERROR);
    assert_int_equal(g_told.calls, 0);
    assert_null(r->after_log);
}

static void after__misuse_is_an_exercise_error_at_the_authors_line(void **state) {
    static const struct {
        const char *body, *says;
    } cases[] = {
        {"    t:program{ after = function() end }\n", "after = function(prof) goes with profile"},
        {"    t:program{ profile = 'ncu', after = 'later' }\n", "after must be a function(prof)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *lua = xasprintf(PROG_LUA("%s"), cases[i].body);
        RunResult *r = run_expecting(state, lua, false, VERDICT_EXERCISE_ERROR);
        free(lua);
        if (!strstr(r->summary, cases[i].says)) fail_msg("%s: %s", cases[i].says, r->summary);
        assert_non_null(strstr(r->summary, "prog.lua:7:"));
    }
}

/* The verdict says what was kept for after it (metrics.after.kept), so the
 * workbench, `cudojo run` and `watch` say "checking with
 * compute-sanitizer after the verdict…" for a sanitizer's run, not a
 * profiler's words. */
static void after__the_verdict_names_what_runs_after_it__compute_sanitizer_or_a_profiler(void **state) {
    static const struct {
        const char *body, *kept, *doing;
    } cases[] = {
        {"    t:program{ sanitizer = 'racecheck', after = function(san) end }\n", "[\"compute-sanitizer\"]",
         "checking with compute-sanitizer after the verdict…"},
        {"    t:program{ profile = 'nsys', after = function(p) end }\n"
         "    t:program{ profile = 'ncu', after = function(p) end }\n",
         "[\"nsys\", \"ncu\"]", "profiling after the verdict…"},
        {"    t:program{ sanitizer = 'memcheck', after = function(san) end }\n"
         "    t:program{ profile = 'ncu', after = function(p) end }\n",
         "[\"compute-sanitizer\", \"ncu\"]", "profiling and checking with compute-sanitizer after the verdict…"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *lua = xasprintf(PROG_LUA("%s"), cases[i].body);
        RunResult *r = run_expecting(state, lua, false, VERDICT_PASS);
        free(lua);
        assert_int_equal(g_told.calls, 1);
        assert_non_null(g_told.doing);
        assert_string_equal(g_told.doing, cases[i].doing);
        json_t *want = json_loads(cases[i].kept, 0, NULL);
        assert_true(json_equal(json_object_get(json_object_get(r->metrics, "after"), "kept"), want));
        json_decref(want);
    }
}

static void after__the_activity_says_the_verdict_is_in__only_when_a_profiler_runs(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    run_prog(f, PROG_LUA(
        "    t:program{ profile = 'ncu', after = function(prof) end }\n"), false);
    /* on the emulator no profiler starts: no "profiling with" phrase, and the run's own activity ran */
    assert_null(strstr(g_activity, "profiling with"));
    assert_non_null(strstr(g_activity, "program: running the program built from prog.cu"));
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(after__runs_once_the_verdict_is_out__with_the_unavailable_profile),
        T(after__functions_run_in_order__and_after_a_failed_verdict_too),
        T(after__a_check_in_it_is_refused_at_the_authors_line__and_the_verdict_stands),
        T(after__a_check_kept_in_a_local_is_not_counted__and_is_reported),
        T(after__grading_keeps_no_profiled_run__and_never_calls_the_function),
        T(after__a_failed_program_leaves_nothing_to_profile__and_no_early_verdict),
        T(after__misuse_is_an_exercise_error_at_the_authors_line),
        T(after__the_activity_says_the_verdict_is_in__only_when_a_profiler_runs),
        T(after__the_verdict_names_what_runs_after_it__compute_sanitizer_or_a_profiler),
    };
#undef T
    return cmocka_run_group_tests(tests, group_setup, after_group_teardown);
}
