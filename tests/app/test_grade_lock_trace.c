/* tests/app/test_grade_lock_trace.c: the summary of a GPU lock trace
 * (app/grade_lock_trace.c) on a hand-made trace: spans are unions over all
 * processes, a long exclusive wait is put on the holder that let go last
 * before the take (a release at the same moment comes first), lines that
 * are not events are skipped, a missing trace is no summary, and the
 * serial GPU time (timed sections + profiled runs) scales to a class. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "app/grade.h"

/* Shared holder A over [0, 1] s; exclusive taker B waits [0.2, 1.0], holds
 * [1.0, 1.5]; exclusive taker D waits [0.3, 1.5] (20 ms of it past 50, so
 * long), holds [1.5, 1.6]; profiler P holds [2.0, 3.0]; exclusive taker C
 * waits [2.1, 3.0], holds [3.0, 3.2]; a short exclusive wait (10 ms) is no
 * blocker. */
static const char *TRACE =
    "0.000000 1 take shared 0.000 alpha\n"
    "1.000000 2 take exclusive 800.000 beta\n"
    "1.000000 1 release shared 1000.000 alpha\n"
    "this line is not an event\n"
    "1.500000 2 release exclusive 500.000 beta\n"
    "1.500000 4 take exclusive 1200.000 delta\n"
    "1.600000 4 release exclusive 100.000 delta\n"
    "2.000000 3 take profiler 0.000 prof\n"
    "3.000000 3 release profiler 1000.000 prof\n"
    "3.000000 5 take exclusive 900.000 gamma\n"
    "3.200000 5 release exclusive 200.000 gamma\n"
    "3.200000 6 take exclusive 10.000 eps\n"
    "3.200000 6 release exclusive 0.000 eps\n";

static bool near(double a, double b) { return a > b - 1e-6 && a < b + 1e-6; }

static void lock_trace__sums_unions_and_names_the_holders_long_waits_ended_on(void **state) {
    (void)state;
    char path[] = "/tmp/cudojo-trace-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, TRACE, strlen(TRACE)), (ssize_t)strlen(TRACE));
    close(fd);
    LockTraceSummary s;
    assert_true(grade_lock_trace_read(path, &s));
    unlink(path);
    assert_true(near(s.wall_s, 3.2));
    assert_int_equal(s.exclusive_takes, 4);
    assert_true(near(s.exclusive_waiting_s, 1.3 + 0.9 + 0.01));     /* [0.2, 1.5] + [2.1, 3.0] + 10 ms */
    assert_true(near(s.exclusive_held_s, 0.6 + 0.2));               /* [1.0, 1.6] + [3.0, 3.2] */
    assert_true(near(s.exclusive_blocking_s, 1.4 + 0.9 + 0.2));     /* [0.2, 1.6] + [2.1, 3.2] */
    assert_true(near(s.profiler_held_s, 1.0));
    assert_true(near(s.waiting_on_profiler_s, 0.9));
    assert_int_equal(s.n_blockers, 2);
    assert_string_equal(s.blockers[0].label, "alpha");              /* 0.8 + 1.2 s, most first */
    assert_string_equal(s.blockers[0].mode, "shared");
    assert_int_equal(s.blockers[0].waits, 2);
    assert_true(near(s.blockers[0].wait_s, 2.0));
    assert_string_equal(s.blockers[1].label, "prof");
    assert_string_equal(s.blockers[1].mode, "profiler");
    assert_true(near(s.blockers[1].wait_s, 0.9));
    /* every wait, short ones too, by length and by the kind of hold it ended on */
    static const int count[LOCK_TRACE_BUCKETS] = {0, 1, 0, 0, 2, 1};
    for (int b = 0; b < LOCK_TRACE_BUCKETS; b++) assert_int_equal(s.wait_count[b], count[b]);
    assert_true(near(s.wait_s[4], 1.7));
    assert_int_equal(s.n_kinds, 2);
    assert_string_equal(s.kinds[0].label, "alpha");
    assert_int_equal(s.kinds[0].waits, 2);
    assert_string_equal(s.kinds[1].label, "prof");
    assert_int_equal(s.kinds[1].waits, 2);                          /* the 10 ms one too */
    assert_true(near(s.kinds[1].wait_s, 0.91));
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    grade_lock_trace_print(out, &s, 1);
    fclose(out);
    assert_non_null(strstr(text, "waiting 2.2 s and holding 0.8 s (4 takes): 2.5 s in which no new shared"));
    assert_non_null(strstr(text, "alpha"));
    assert_null(strstr(text, "prof "));         /* only the top one */
    assert_non_null(strstr(text, "exclusive waits by length: <5 ms 0 (0.0 s), 5-20 ms 1 (0.0 s), 20-50 ms 0 (0.0 s), "
                                 "50-200 ms 0 (0.0 s), 200-1000 ms 2 (1.7 s), >=1 s 1 (1.2 s)"));
    assert_non_null(strstr(text, "  alpha                          2 waits      2.0 s, 1000 ms each"));
    free(text);
    assert_true(near(grade_lock_trace_serial_s(&s), 0.8 + 1.0));
    out = open_memstream(&text, &len);
    grade_lock_trace_print_floor(out, &s, 3, 200);
    fclose(out);
    assert_non_null(strstr(text, "timed sections 0.8 s + profiled runs 1.0 s = 1.8 s for 3 submissions (0.60 s each): "
                                 "200 submissions need at least 2.0 min"));
    assert_non_null(strstr(text, "no new shared GPU work: 2.5 s for 3 submissions (exclusive takers waiting or "
                                 "holding): 2.8 min of 200 submissions' grading"));
    free(text);
}

/* A holder's kind is what it said it does, without the exercise or the
 * ":" detail: the short waits of many exercises add up under one kind. */
static void lock_trace__adds_every_wait_to_the_kind_of_hold_it_ended_on(void **state) {
    (void)state;
    char path[] = "/tmp/cudojo-trace-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "1.000000 1 release shared 100.000 scan-array/pin-pieces:1024MiB\n");
    fprintf(f, "1.010000 2 take exclusive 30.000 hot-spot\n");
    fprintf(f, "2.000000 3 release shared 100.000 reduce-peak/pin-pieces:2048MiB\n");
    fprintf(f, "2.004000 2 take exclusive 4.000 few-blocks\n");
    fprintf(f, "3.000000 4 release shared 100.000 stream-events/program-exit\n");
    fprintf(f, "3.002000 2 take exclusive 2.000 intensity\n");
    fclose(f);
    LockTraceSummary s;
    assert_true(grade_lock_trace_read(path, &s));
    unlink(path);
    assert_int_equal(s.n_blockers, 0);          /* none over 50 ms */
    assert_int_equal(s.n_kinds, 2);
    assert_string_equal(s.kinds[0].label, "pin-pieces");
    assert_int_equal(s.kinds[0].waits, 2);
    assert_true(near(s.kinds[0].wait_s, 0.034));
    assert_string_equal(s.kinds[1].label, "program-exit");
    assert_int_equal(s.wait_count[0], 2);
    assert_int_equal(s.wait_count[2], 1);
}

/* More holders than the summary keeps: the ones kept are the most
 * waited-on of all, not the first met. */
static void lock_trace__keeps_the_most_waited_on_holders__of_more_than_it_can_list(void **state) {
    (void)state;
    char path[] = "/tmp/cudojo-trace-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    double t = 0;
    for (int i = 0; i < LOCK_TRACE_BLOCKERS + 4; i++, t += 1) {
        fprintf(f, "%.6f 1 release shared 10.000 small%d\n", t, i);
        fprintf(f, "%.6f 2 take exclusive 60.000 timed\n", t + 0.5);
    }
    fprintf(f, "%.6f 3 release profiler 4000.000 big\n", t);
    fprintf(f, "%.6f 2 take exclusive 3000.000 timed\n", t + 0.5);
    fclose(f);
    LockTraceSummary s;
    assert_true(grade_lock_trace_read(path, &s));
    unlink(path);
    assert_int_equal(s.n_blockers, LOCK_TRACE_BLOCKERS);
    assert_string_equal(s.blockers[0].label, "big");
    assert_true(s.blockers[0].wait_s > 2.9);
}

static void lock_trace__is_no_summary__when_the_trace_is_missing_or_empty(void **state) {
    (void)state;
    LockTraceSummary s;
    assert_false(grade_lock_trace_read("/nonexistent/cudojo-trace", &s));
    char path[] = "/tmp/cudojo-trace-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "junk\n", 5), 5);
    close(fd);
    assert_false(grade_lock_trace_read(path, &s));
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lock_trace__sums_unions_and_names_the_holders_long_waits_ended_on),
        cmocka_unit_test(lock_trace__adds_every_wait_to_the_kind_of_hold_it_ended_on),
        cmocka_unit_test(lock_trace__keeps_the_most_waited_on_holders__of_more_than_it_can_list),
        cmocka_unit_test(lock_trace__is_no_summary__when_the_trace_is_missing_or_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
