/* tests/tui/test_results.c: a run's result as the exercise view shows it:
 * the verdict first, failed checks as a got/want table, diagnostics with
 * file:line, block/thread and excerpt, and the per-line heat. */
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
    results_render(d, r, 60, true);
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
    results_render(d, r, 80, true);
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
    results_render(d, r, 80, true);
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
    r->metrics = json_pack("{s:f}", "kernel_ms", 0.5);
    int *heat;
    char **notes;
    assert_int_equal(results_line_heat(r, 10, &heat, &notes), 0);
    assert_null(heat);
    assert_null(notes);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
