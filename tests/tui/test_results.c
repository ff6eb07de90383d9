/* tests/tui/test_results.c: a run's result as the exercise view shows it:
 * the verdict first, failed checks as a got/want table, diagnostics with
 * file:line, block/thread and excerpt, the numbers the exercise is about
 * (every metric only on request), and the per-line heat, which warns about
 * divergence only where it costs. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/tui/tui_results.h"

/* The index of the first line whose text contains s, -1 when none. */
static int find(const TextDoc *d, const char *s) {
    for (int i = 0; i < d->n; i++) {
        char *p = text_line_plain(&d->lines[i]);
        bool hit = strstr(p, s) != NULL;
        free(p);
        if (hit) return i;
    }
    return -1;
}

static void results__starts_with_verdict__and_tables_mismatches(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_FAIL);
    r->backend = strdup("emu");
    CheckResult *c = run_result_add_check(r, "c", false, "3 elements wrong of 10");
    check_result_add_mismatch(c, 7, "0", "0.25");
    check_result_add_mismatch(c, 12345, "-1", "2.5");
    c->n_wrong = 3;
    c->n_total = 10;
    TextDoc *d = text_doc_new();
    results_render(d, r, 60, true, false);
    assert_true(find(d, "FAIL") == 0);
    int head = find(d, "index");
    assert_true(head > 0);
    assert_true(find(d, "got") == head && find(d, "want") == head);
    assert_int_equal(find(d, "7      0"), head + 1);
    assert_int_equal(find(d, "12345  -1"), head + 2);
    assert_true(find(d, "and 1 more") == head + 3);
    text_doc_free(&d);
    run_result_free(&r);
}

static void results__names_place_thread_and_excerpt_of_a_diagnostic(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_FAIL);
    Diag *e = diag_new(DIAG_ERROR, "oob-global", "/ws/hello-gpu/vector-add.cu", 8, 5, "read a[1000003] past the end");
    e->excerpt = strdup("    c[i] = a[i] + b[i];\n    ^");
    unsigned b[3] = {3906, 0, 0}, t[3] = {67, 0, 0};
    diag_set_thread(e, b, t);
    r->diags = e;
    r->device_output = strdup("hello from 0\n");
    TextDoc *d = text_doc_new();
    results_render(d, r, 80, true, false);
    assert_true(find(d, "error vector-add.cu:8: read a[1000003] past the end") > 0);
    assert_true(find(d, "block (3906,0,0) thread (67,0,0)") > 0);
    int ex = find(d, "c[i] = a[i] + b[i];");
    assert_true(ex > 0);
    assert_int_equal(d->lines[ex].tag, 8);
    assert_true(find(d, "Device output") > 0 && find(d, "hello from 0") > 0);
    text_doc_free(&d);
    run_result_free(&r);
}

static void results__calls_it_program_output__when_a_whole_program_ran(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    r->metrics = json_pack("{s:{s:s}}", "program", "runtime", "emu");
    r->device_output = strdup("sum of y: 42\nPASS\n");
    TextDoc *d = text_doc_new();
    results_render(d, r, 80, true, false);
    assert_true(find(d, "Program output") > 0 && find(d, "sum of y: 42") > 0);
    assert_true(find(d, "Device output") < 0);
    text_doc_free(&d);
    run_result_free(&r);
}

static void heat__marks_uncoalesced_and_divergent_lines(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    json_error_t err;
    r->metrics = json_loads("{\"emu\": {\"lines\": ["
                            "{\"line\": 2, \"executions\": 10},"
                            "{\"line\": 3, \"executions\": 10, \"sectors_per_request\": 4, \"ideal_sectors_per_request\": 4},"
                            "{\"line\": 4, \"executions\": 10, \"sectors_per_request\": 32, \"ideal_sectors_per_request\": 4},"
                            "{\"line\": 5, \"executions\": 10, \"divergent_branches\": 3},"
                            "{\"line\": 6, \"executions\": 10, \"bank_conflict_degree\": 8},"
                            "{\"line\": 99, \"executions\": 10}]}}",
                            0, &err);
    assert_non_null(r->metrics);
    int *heat;
    char **notes;
    int n = results_line_heat(r, 10, &heat, &notes);
    assert_int_equal(n, 5);   /* line 99 is past the file */
    assert_int_equal(heat[1], 0);
    assert_int_equal(heat[2], 1);
    assert_int_equal(heat[3], 1);
    assert_int_equal(heat[4], 3);
    assert_non_null(strstr(notes[4], "uncoalesced"));
    assert_int_equal(heat[5], 2);
    assert_non_null(strstr(notes[5], "divergent"));
    assert_int_equal(heat[6], 3);
    assert_non_null(strstr(notes[6], "8-way bank conflict"));
    results_heat_free(&heat, &notes, 10);
    assert_null(heat);
    run_result_free(&r);
}

static void heat__is_empty__without_line_metrics(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    r->metrics = json_pack("{s:f}", "time_ms", 0.5);
    int *heat;
    char **notes;
    assert_int_equal(results_line_heat(r, 10, &heat, &notes), 0);
    assert_null(heat);
    assert_null(notes);
    run_result_free(&r);
}

/* A run as the emulator reports it: internal metrics, a custom number, the bandwidth. */
static RunResult *run_with_metrics(void) {
    RunResult *r = run_result_new(VERDICT_FAIL);
    json_error_t err;
    r->metrics = json_loads("{\"compile\": {\"ms\": 27.5}, \"lua_instructions\": 1115000,"
                            "\"timeline\": {\"modeled\": true},"
                            "\"custom\": {\"speedup_fused\": {\"value\": 1.75, \"unit\": \"x\"}},"
                            "\"bandwidth\": {\"gbs\": 812.0, \"fraction_of_peak\": 0.83},"
                            "\"emu\": {\"totals\": {\"sectors_per_request\": 31.9, \"ideal_sectors_per_request\": 4.0,"
                            "\"warp_instructions\": 25453}}}",
                            0, &err);
    assert_non_null(r->metrics);
    run_result_add_check(r, "y", true, "all 100003 elements close");
    run_result_add_check(r, "expect", false, "each load or store of a warp touches 32.0 sectors on average");
    return r;
}

static void results__shows_the_exercises_numbers__and_hides_internal_metrics(void **state) {
    (void)state;
    RunResult *r = run_with_metrics();
    TextDoc *d = text_doc_new();
    results_render(d, r, 80, true, false);
    assert_true(find(d, "Numbers") > 0);
    assert_true(find(d, "speedup_fused") > 0 && find(d, "1.75 x") > 0);
    assert_true(find(d, "812 GB/s = 83% of the copy bandwidth") > 0);
    /* The failing check talks about sectors: the exercise is about them. */
    assert_true(find(d, "sectors per request") > 0 && find(d, "31.90 (ideal 4.00)") > 0);
    assert_true(find(d, "compile.ms") < 0);
    assert_true(find(d, "lua_instructions") < 0);
    assert_true(find(d, "emu.totals") < 0);
    assert_true(find(d, "m shows all") > 0);
    text_doc_free(&d);
    run_result_free(&r);
}

/* A GPU run's kernel time is the last k:time median, metrics "time_ms". */
static void results__shows_the_kernel_time__of_a_timed_launch(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    r->metrics = json_pack("{s:f}", "time_ms", 0.0123);
    TextDoc *d = text_doc_new();
    results_render(d, r, 80, true, false);
    assert_true(find(d, "kernel time") > 0 && find(d, "0.0123 ms") > 0);
    text_doc_free(&d);
    run_result_free(&r);
}

static void results__shows_every_metric__when_asked(void **state) {
    (void)state;
    RunResult *r = run_with_metrics();
    TextDoc *d = text_doc_new();
    results_render(d, r, 80, true, true);
    assert_true(find(d, "All metrics") > 0);
    assert_true(find(d, "compile.ms") > 0 && find(d, "lua_instructions") > 0 && find(d, "emu.totals.warp_instructions") > 0);
    assert_true(find(d, "m hides them") > 0);
    text_doc_free(&d);
    run_result_free(&r);
}

static void results__lists_failing_checks_first__and_a_missed_stretch_goal_is_not_a_failure(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    run_result_add_check(r, "first", true, "fine");
    run_result_add_check(r, "stretch", false, "stretch goal: 85% of the copy bandwidth")->stretch = true;
    run_result_add_check(r, "broken", false, "3 elements wrong");
    TextDoc *d = text_doc_new();
    results_render(d, r, 80, true, false);
    int broken = find(d, "broken"), stretch = find(d, "stretch goal"), first = find(d, "first: fine");
    assert_true(broken > 0 && broken < stretch && stretch < first);
    assert_true(find(d, "○ stretch") == stretch && find(d, "✗ broken") == broken);
    text_doc_free(&d);
    run_result_free(&r);
}

/* rgb-to-gray's solution as the emulator measured it: the guard on line 11
 * splits 119 warps of 273 blocks, 31 of 32 lanes busy on average. */
static void heat__does_not_mark_a_tail_guard_divergent(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    json_error_t err;
    r->metrics = json_loads("{\"emu\": {\"totals\": {\"blocks\": 273, \"warp_instructions\": 76629,"
                            "\"active_lanes_avg\": 30.9}, \"lines\": ["
                            "{\"line\": 11, \"executions\": 8736, \"branches\": 2184, \"divergent\": 119}]}}",
                            0, &err);
    int *heat;
    char **notes;
    assert_int_equal(results_line_heat(r, 20, &heat, &notes), 1);
    assert_int_equal(heat[11], 1);
    assert_non_null(strstr(notes[11], "divergent branch in 119 warps"));
    results_heat_free(&heat, &notes, 20);
    /* The same guard in a kernel whose lanes idle more: still at most one warp per block. */
    json_object_set_new(json_object_get(json_object_get(r->metrics, "emu"), "totals"), "active_lanes_avg", json_real(20));
    results_line_heat(r, 20, &heat, &notes);
    assert_int_equal(heat[11], 1);
    assert_non_null(strstr(notes[11], "at most one per block"));
    results_heat_free(&heat, &notes, 20);
    run_result_free(&r);
}

/* reduce-steps' starter: t % (2 * s) == 0 splits most warps of every block. */
static void heat__marks_divergence_that_costs(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_FAIL);
    json_error_t err;
    r->metrics = json_loads("{\"emu\": {\"totals\": {\"blocks\": 196, \"warp_instructions\": 195804,"
                            "\"active_lanes_avg\": 23.3}, \"lines\": ["
                            "{\"line\": 39, \"executions\": 50176, \"branches\": 12544, \"divergent\": 9212}]}}",
                            0, &err);
    int *heat;
    char **notes;
    results_line_heat(r, 50, &heat, &notes);
    assert_int_equal(heat[39], 2);
    assert_non_null(strstr(notes[39], "divergent branch in 9212 warps"));
    assert_null(strstr(notes[39], "at most one"));
    results_heat_free(&heat, &notes, 50);
    run_result_free(&r);
}

/* rgb-to-gray's solution: 3-byte pixels read byte by byte touch every
 * sector they span (4.8 per request against 1 for packed bytes), which is
 * what the layout needs: no mark. coalescing's starter: a warp-stride loop
 * touches 32 sectors where the layout needs 4: costly. */
static void heat__judges_an_access_against_its_own_data_layout(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    json_error_t err;
    r->metrics = json_loads("{\"emu\": {\"lines\": ["
                            "{\"line\": 15, \"executions\": 10, \"global_requests\": 4158, \"sectors_per_request\": 4.76,"
                            " \"ideal_sectors_per_request\": 1.0, \"layout_sectors_per_request\": 4.76, \"strided_requests\": 0},"
                            "{\"line\": 21, \"executions\": 10, \"global_requests\": 100, \"sectors_per_request\": 32,"
                            " \"ideal_sectors_per_request\": 4, \"layout_sectors_per_request\": 4, \"strided_requests\": 100}]}}",
                            0, &err);
    int *heat;
    char **notes;
    results_line_heat(r, 30, &heat, &notes);
    assert_int_equal(heat[15], 1);
    assert_non_null(strstr(notes[15], "4.8 for this data layout"));
    assert_null(strstr(notes[15], "coalesced"));
    assert_int_equal(heat[21], 3);
    assert_non_null(strstr(notes[21], "(uncoalesced)"));
    results_heat_free(&heat, &notes, 30);
    run_result_free(&r);
}

/* volume-3d's solution: the read coalesces, the write (out has the axes
 * reversed) cannot: one side of a copy between layouts is a look, not red. */
static void heat__marks_a_copy_between_layouts_only_as_a_look(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    json_error_t err;
    r->metrics = json_loads("{\"emu\": {\"lines\": ["
                            "{\"line\": 13, \"executions\": 3300, \"global_requests\": 660, \"sectors_per_request\": 17.7,"
                            " \"ideal_sectors_per_request\": 3.6, \"layout_sectors_per_request\": 5.3, \"strided_requests\": 330}]}}",
                            0, &err);
    int *heat;
    char **notes;
    results_line_heat(r, 20, &heat, &notes);
    assert_int_equal(heat[13], 2);
    assert_non_null(strstr(notes[13], "one side of a copy between layouts"));
    results_heat_free(&heat, &notes, 20);
    run_result_free(&r);
}

/* Divergence by the lane slots it idles (the emulator's divergent_idle_lanes):
 * a thread-0 loop after a ballot (10%) is not marked, reduce-steps'
 * interleaved starter (23%) is a look, chapter 9's alternating branch (44%)
 * is costly. */
static void heat__marks_divergence_by_the_share_of_lanes_it_idles(void **state) {
    (void)state;
    RunResult *r = run_result_new(VERDICT_PASS);
    json_error_t err;
    /* 1000 warp instructions = 32000 lane slots */
    r->metrics = json_loads("{\"emu\": {\"totals\": {\"blocks\": 4, \"warp_instructions\": 1000, \"active_lanes_avg\": 20},"
                            " \"lines\": ["
                            "{\"line\": 2, \"executions\": 10, \"branches\": 40, \"divergent\": 40, \"divergent_idle_lanes\": 3200},"
                            "{\"line\": 3, \"executions\": 10, \"branches\": 40, \"divergent\": 40, \"divergent_idle_lanes\": 7360},"
                            "{\"line\": 4, \"executions\": 10, \"branches\": 40, \"divergent\": 40, \"divergent_idle_lanes\": 14080}]}}",
                            0, &err);
    int *heat;
    char **notes;
    results_line_heat(r, 10, &heat, &notes);
    assert_int_equal(heat[2], 1);
    assert_int_equal(heat[3], 2);
    assert_non_null(strstr(notes[3], "idles 23% of the kernel's lane slots"));
    assert_int_equal(heat[4], 3);
    results_heat_free(&heat, &notes, 10);
    run_result_free(&r);
}

int main(void) {
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(results__starts_with_verdict__and_tables_mismatches),
        cmocka_unit_test(results__names_place_thread_and_excerpt_of_a_diagnostic),
        cmocka_unit_test(results__calls_it_program_output__when_a_whole_program_ran),
        cmocka_unit_test(heat__marks_uncoalesced_and_divergent_lines),
        cmocka_unit_test(heat__is_empty__without_line_metrics),
        cmocka_unit_test(results__shows_the_exercises_numbers__and_hides_internal_metrics),
        cmocka_unit_test(results__shows_the_kernel_time__of_a_timed_launch),
        cmocka_unit_test(results__shows_every_metric__when_asked),
        cmocka_unit_test(results__lists_failing_checks_first__and_a_missed_stretch_goal_is_not_a_failure),
        cmocka_unit_test(heat__does_not_mark_a_tail_guard_divergent),
        cmocka_unit_test(heat__marks_divergence_that_costs),
        cmocka_unit_test(heat__judges_an_access_against_its_own_data_layout),
        cmocka_unit_test(heat__marks_a_copy_between_layouts_only_as_a_look),
        cmocka_unit_test(heat__marks_divergence_by_the_share_of_lanes_it_idles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
