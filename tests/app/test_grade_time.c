/* tests/app/test_grade_time.c: where a grading's time went
 * (app/grade_time.c), from a gradebook's per-run "time": the sums per
 * exercise and for the class, the order (longest alone on the GPU first,
 * then longest run), and the lines bench_grade prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "app/grade.h"

/* Two students; "vec" a kernel exercise (shared launches, one timed
 * section), "prog" a timed program (alone), "bug" an untimed program
 * (shared), "gone" never ran (no time). */
static const char BOOK[] =
    "{\"exercises\": [{\"id\": \"vec\", \"kind\": \"kernel\"}, {\"id\": \"prog\", \"kind\": \"program\"},"
    " {\"id\": \"bug\", \"kind\": \"program\"}, {\"id\": \"gone\", \"kind\": \"kernel\"}],"
    " \"students\": ["
    "  {\"student\": \"a\", \"exercises\": {"
    "    \"vec\": {\"time\": {\"total_ms\": 400, \"compile_ms\": 150, \"reference_ms\": 50,"
    "             \"gpu_wait_ms\": 10, \"gpu_exclusive_ms\": 100, \"gpu_shared_ms\": 20}},"
    "    \"prog\": {\"time\": {\"total_ms\": 2000, \"compile_ms\": 1200, \"program_ms\": 700,"
    "             \"gpu_wait_ms\": 300, \"gpu_exclusive_ms\": 650}},"
    "    \"bug\": {\"time\": {\"total_ms\": 1800, \"compile_ms\": 1100, \"program_ms\": 600, \"gpu_shared_ms\": 550}},"
    "    \"gone\": {\"verdict\": \"missing\"}}},"
    "  {\"student\": \"b\", \"exercises\": {"
    "    \"vec\": {\"time\": {\"total_ms\": 600, \"compile_ms\": 250, \"reference_ms\": 50,"
    "             \"gpu_wait_ms\": 30, \"gpu_exclusive_ms\": 100, \"gpu_shared_ms\": 40}},"
    "    \"prog\": {\"time\": {\"total_ms\": 2200, \"compile_ms\": 1300, \"program_ms\": 800,"
    "             \"gpu_wait_ms\": 100, \"gpu_exclusive_ms\": 850}},"
    "    \"bug\": {\"time\": {}},"
    "    \"gone\": {\"verdict\": \"missing\", \"time\": null}}}]}";

static json_t *book(void) {
    json_error_t e;
    json_t *b = json_loads(BOOK, 0, &e);
    if (!b) fail_msg("test book: %s", e.text);
    return b;
}

static void grade_time_collect__sums_each_exercise_and_the_class__longest_alone_first(void **state) {
    (void)state;
    json_t *b = book();
    int n = 0;
    GradeTime all;
    GradeTime *t = grade_time_collect(b, &n, &all);
    assert_int_equal(n, 4);
    assert_string_equal(t[0].id, "prog");      /* 1.5 s alone */
    assert_string_equal(t[1].id, "vec");       /* 0.2 s alone */
    assert_string_equal(t[2].id, "bug");       /* none alone, 1.8 s run */
    assert_string_equal(t[3].id, "gone");
    assert_int_equal(t[0].runs, 2);
    assert_true(t[0].alone_s > 1.499 && t[0].alone_s < 1.501);
    assert_true(t[0].wait_s > 0.399 && t[0].wait_s < 0.401);
    assert_true(t[0].compile_s > 2.499 && t[0].compile_s < 2.501);
    assert_true(t[1].shared_s > 0.059 && t[1].shared_s < 0.061);
    assert_true(t[1].reference_s > 0.099 && t[1].reference_s < 0.101);
    assert_int_equal(t[2].runs, 1);            /* an empty time is no run */
    assert_int_equal(t[3].runs, 0);
    assert_int_equal(all.runs, 5);
    assert_true(all.alone_s > 1.699 && all.alone_s < 1.701);
    assert_true(all.shared_s > 0.609 && all.shared_s < 0.611);
    assert_true(all.total_s > 6.999 && all.total_s < 7.001);
    free(t);
    json_decref(b);
}

/* What grade_time_print writes (caller frees). */
static char *printed(const json_t *b, double wall_s, int top) {
    FILE *f = tmpfile();
    assert_non_null(f);
    grade_time_print(f, b, wall_s, top);
    long n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    char *text = calloc((size_t)n + 1, 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return text;
}

static void grade_time_print__says_the_lock_sums_the_bound_and_the_top_exercises(void **state) {
    (void)state;
    json_t *b = book();
    char *s = printed(b, 5.0, 2);
    assert_non_null(strstr(s, "time (summed over 5 runs): 7.0 s in the runs: compile 4.0 s, CPU references 0.1 s, "
                              "whole programs 2.1 s\n"));
    assert_non_null(strstr(s, "GPU lock (summed over the runs): held alone (timed) 1.7 s, held shared 0.6 s, waited "
                              "0.4 s; timed work alone on the GPU for 34% of the 5.0 s; the timed sections alone "
                              "allow at most 2.94 runs/s\n"));
    assert_non_null(strstr(s, "compile by kind: kernel exercises (NVRTC) 0.4 s over 2 runs (0.20 s per run), "
                              "programs (nvcc) 3.6 s over 3 runs (1.20 s per run)\n"));
    assert_non_null(strstr(s, "top exercises by time alone on the GPU"));
    const char *prog = strstr(s, "\n  prog "), *vec = strstr(s, "\n  vec ");
    assert_non_null(prog);
    assert_non_null(vec);
    assert_true(prog < vec);
    const char *bug = strstr(s, "\n  bug ");
    assert_true(!bug || bug > strstr(s, "held shared longest"));   /* top 2: not in the first table */
    assert_non_null(strstr(prog, "    2     1.50     0.00     0.40     2.50     0.00     4.20\n"));
    const char *held = strstr(s, "held shared longest");
    assert_non_null(held);
    assert_non_null(strstr(held, "\n  bug                            1     0.55 s shared, 0.55 s per run\n"));
    assert_non_null(strstr(held, "\n  vec                            2     0.06 s shared, 0.03 s per run\n"));
    assert_true(strstr(held, "\n  bug ") < strstr(held, "\n  vec "));
    assert_null(strstr(held, "\n  prog "));      /* never shared */
    free(s);
    json_decref(b);
}

static void grade_time_print__without_the_lock__ranks_by_run_time(void **state) {
    (void)state;
    json_t *b = json_loads("{\"exercises\": [{\"id\": \"x\"}, {\"id\": \"y\"}], \"students\": [{\"exercises\": {"
                           "\"x\": {\"time\": {\"total_ms\": 100}}, \"y\": {\"time\": {\"total_ms\": 300}}}}]}",
                           0, NULL);
    assert_non_null(b);
    char *s = printed(b, 0, 12);
    assert_non_null(strstr(s, "GPU lock: not taken"));
    assert_non_null(strstr(s, "top exercises by run time"));
    assert_true(strstr(s, "\n  y ") < strstr(s, "\n  x "));
    free(s);
    json_decref(b);
}

/* metrics.cpu as the gradebook keeps it (cpu_ms, emu_check_cpu_ms): summed,
 * and the table of the exercises that took the most CPU, run and check. */
static void grade_time_print__ranks_the_cpu_of_the_runs_and_their_checks(void **state) {
    (void)state;
    json_t *b = json_loads("{\"exercises\": [{\"id\": \"x\"}, {\"id\": \"y\"}, {\"id\": \"z\"}], \"students\": [{\"exercises\": {"
                           "\"x\": {\"time\": {\"total_ms\": 100, \"compile_ms\": 40, \"cpu_ms\": 900, \"emu_check_cpu_ms\": 600}},"
                           "\"y\": {\"time\": {\"total_ms\": 300, \"cpu_ms\": 1200}},"
                           "\"z\": {\"time\": {\"total_ms\": 50}}}}]}",
                           0, NULL);
    assert_non_null(b);
    int n = 0;
    GradeTime all;
    free(grade_time_collect(b, &n, &all));
    assert_true(all.cpu_s > 2.099 && all.cpu_s < 2.101);
    assert_true(all.emu_check_cpu_s > 0.599 && all.emu_check_cpu_s < 0.601);
    char *s = printed(b, 0, 12);
    const char *cpu = strstr(s, "CPU of the runs: 2.1 s, and 0.6 s of their emulator checks");
    assert_non_null(cpu);
    assert_non_null(strstr(cpu, "\n  x                              1     0.90 s +   0.60 s, 1.50 s per run, compile 0.04 s per run\n"));
    assert_true(strstr(cpu, "\n  x ") < strstr(cpu, "\n  y "));     /* 1.5 s before 1.2 s */
    assert_null(strstr(cpu, "\n  z "));                               /* none said */
    free(s);
    json_decref(b);
}

/* Timed kernels: "t" by five students (e's a wrong variant handed in, d's
 * a fail), "u" by two (too few), "p" a program (not a kernel's timing). */
static const char SPREAD_BOOK[] =
    "{\"exercises\": [{\"id\": \"t\", \"kind\": \"kernel\"}, {\"id\": \"u\", \"kind\": \"kernel\"},"
    " {\"id\": \"p\", \"kind\": \"program\"}, {\"id\": \"w\", \"kind\": \"kernel\"}],"
    " \"students\": ["
    "  {\"student\": \"a\", \"exercises\": {\"t\": {\"verdict\": \"pass\", \"kernel_ms\": 1.0},"
    "    \"u\": {\"verdict\": \"pass\", \"kernel_ms\": 2.0}, \"p\": {\"verdict\": \"pass\", \"kernel_ms\": 9.0},"
    "    \"w\": {\"verdict\": \"pass\", \"kernel_ms\": 4.0}}},"
    "  {\"student\": \"b\", \"exercises\": {\"t\": {\"verdict\": \"pass\", \"kernel_ms\": 1.2},"
    "    \"u\": {\"verdict\": \"pass\", \"kernel_ms\": 2.0}, \"p\": {\"verdict\": \"pass\", \"kernel_ms\": 1.0},"
    "    \"w\": {\"verdict\": \"pass\", \"kernel_ms\": 4.0}}},"
    "  {\"student\": \"c\", \"exercises\": {\"t\": {\"verdict\": \"pass\", \"kernel_ms\": 0.9},"
    "    \"p\": {\"verdict\": \"pass\", \"kernel_ms\": 1.0}, \"w\": {\"verdict\": \"pass\", \"kernel_ms\": 4.0}}},"
    "  {\"student\": \"d\", \"exercises\": {\"t\": {\"verdict\": \"fail\", \"kernel_ms\": 30.0}}},"
    "  {\"student\": \"e\", \"exercises\": {\"t\": {\"verdict\": \"pass\", \"kernel_ms\": 50.0},"
    "    \"w\": {\"verdict\": \"pass\", \"kernel_ms\": null}}}]}";

/* Per kernel exercise with at least three passing timed runs, not the
 * skipped ones: (max - min) / median; the median of those, then the widest
 * first. */
static void grade_time_print_spread__measures_passing_kernel_timings__widest_first(void **state) {
    (void)state;
    json_error_t e;
    json_t *b = json_loads(SPREAD_BOOK, 0, &e);
    if (!b) fail_msg("test book: %s", e.text);
    json_t *skip = json_pack("{s:s}", "e/t", "slow");
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_int_equal(grade_time_print_spread(out, b, skip, 1), 2);      /* t and w; u has 2 runs, p is a program */
    fclose(out);
    assert_non_null(strstr(text, "timings under load: 2 timed kernel exercises"));
    assert_non_null(strstr(text, "is 15.0% at the median"));           /* t 30%, w 0% */
    assert_non_null(strstr(text, "  t                              3 runs    1.0000 ms median, 0.9000 .. 1.2000 ms: 30.0%\n"));
    assert_null(strstr(text, "  w "));                                 /* top 1 */
    free(text);
    out = open_memstream(&text, &len);                                  /* e's 50 ms counts without the skip */
    assert_int_equal(grade_time_print_spread(out, b, NULL, 2), 2);
    fclose(out);
    assert_non_null(strstr(text, "  t                              4 runs    1.1000 ms median, 0.9000 .. 50.0000 ms"));
    free(text);
    json_t *none = json_pack("{s:[], s:[]}", "exercises", "students");
    out = open_memstream(&text, &len);
    assert_int_equal(grade_time_print_spread(out, none, NULL, 2), 0);
    fclose(out);
    assert_int_equal(len, 0);
    free(text);
    json_decref(none);
    json_decref(skip);
    json_decref(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grade_time_collect__sums_each_exercise_and_the_class__longest_alone_first),
        cmocka_unit_test(grade_time_print__says_the_lock_sums_the_bound_and_the_top_exercises),
        cmocka_unit_test(grade_time_print__without_the_lock__ranks_by_run_time),
        cmocka_unit_test(grade_time_print__ranks_the_cpu_of_the_runs_and_their_checks),
        cmocka_unit_test(grade_time_print_spread__measures_passing_kernel_timings__widest_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
