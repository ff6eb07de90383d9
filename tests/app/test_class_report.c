/* tests/app/test_class_report.c: the class report computed from fixture
 * gradebooks: pass and passed-fast rates over every student, median
 * attempts and time to pass from the progress exports (students without
 * one left out and counted), failure kinds most common first, the score
 * histogram and summary; a file that is not a gradebook is refused naming
 * it; the HTML page escapes hostile names and fetches nothing; a grade.db
 * written through gradedb.h reads back as the same gradebook. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/class_report.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "progress-db/gradedb.h"

/* Four students, two exercises (vector-add 1 point, block-sum 2).
 * alice: both pass (vector-add fast); progress: vector-add failed once then
 *   passed (2 attempts, 1.5 s after first seen; an attempt after the pass
 *   does not count), block-sum 3 attempts, 0.3 s.
 * bob: vector-add passes (1 attempt, 0 s), block-sum a race; progress has
 *   block-sum unpassed.
 * carol: vector-add does not compile, block-sum never graded (verdict
 *   null); no progress; a problem.
 * dave: vector-add a race, block-sum passes fast; a progress export without
 *   these exercises. */
static const char BOOK[] =
    "{\"format\":\"cudojo-gradebook\",\"format_version\":1,\"course_version\":\"c0ffee\",\"backend\":\"emu\","
    " \"generated_unix_ms\":5,"
    " \"exercises\":[{\"id\":\"vector-add\",\"chapter\":\"hello-gpu\",\"title\":\"Vector add\",\"points\":1,"
    "\"kind\":\"kernel\"},"
    "  {\"id\":\"block-sum\",\"chapter\":\"shared\",\"title\":\"Block sum\",\"points\":2,\"kind\":\"kernel\"}],"
    " \"students\":["
    "  {\"student\":\"alice\",\"total\":3,\"max_total\":3,\"problems\":[],"
    "   \"exercises\":{\"vector-add\":{\"verdict\":\"pass\",\"failure_kind\":null,\"fast\":true},"
    "                \"block-sum\":{\"verdict\":\"pass\",\"failure_kind\":null,\"fast\":false}},"
    "   \"progress\":{\"format\":\"cudojo-progress\",\"exercises\":["
    "     {\"id\":\"vector-add\",\"passed\":true,\"first_seen_unix_ms\":500,\"first_pass_unix_ms\":2000,"
    "      \"attempts\":[{\"when_unix_ms\":5000},{\"when_unix_ms\":2000},{\"when_unix_ms\":1000}]},"
    "     {\"id\":\"block-sum\",\"passed\":true,\"first_seen_unix_ms\":0,\"first_pass_unix_ms\":300,"
    "      \"attempts\":[{\"when_unix_ms\":300},{\"when_unix_ms\":200},{\"when_unix_ms\":100}]}]}},"
    "  {\"student\":\"bob\",\"total\":1,\"max_total\":3,\"problems\":[],"
    "   \"exercises\":{\"vector-add\":{\"verdict\":\"pass\",\"failure_kind\":null,\"fast\":false},"
    "                \"block-sum\":{\"verdict\":\"fail\",\"failure_kind\":\"race\",\"fast\":false}},"
    "   \"progress\":{\"format\":\"cudojo-progress\",\"exercises\":["
    "     {\"id\":\"vector-add\",\"passed\":true,\"first_seen_unix_ms\":10,\"first_pass_unix_ms\":10,"
    "      \"attempts\":[{\"when_unix_ms\":10}]},"
    "     {\"id\":\"block-sum\",\"passed\":false,\"first_seen_unix_ms\":10,\"first_pass_unix_ms\":null,"
    "      \"attempts\":[{\"when_unix_ms\":20}]}]}},"
    "  {\"student\":\"carol\",\"total\":0,\"max_total\":3,\"problems\":[\"two submissions: carol-old.tar.zst is not "
    "graded\"],"
    "   \"exercises\":{\"vector-add\":{\"verdict\":\"compile-error\",\"failure_kind\":\"compile-error\"},"
    "                \"block-sum\":{\"verdict\":null,\"failure_kind\":null}},"
    "   \"progress\":null},"
    "  {\"student\":\"dave\",\"total\":2,\"max_total\":3,\"problems\":[],"
    "   \"exercises\":{\"vector-add\":{\"verdict\":\"fail\",\"failure_kind\":\"race\"},"
    "                \"block-sum\":{\"verdict\":\"pass\",\"failure_kind\":null,\"fast\":true}},"
    "   \"progress\":{\"format\":\"cudojo-progress\",\"exercises\":[]}}],"
    " \"similarity\":[{\"exercise\":\"block-sum\",\"students\":[\"alice\",\"dave\"],\"fingerprint\":\"ab\",\"tokens\":50},"
    "   {\"exercise\":\"block-sum\",\"students\":[\"a\",\"b\",\"c\",\"d\",\"e\"],\"fingerprint\":\"cd\",\"tokens\":60,"
    "    \"common\":true,\"submissions\":6}]}";

static json_t *load(const char *text) {
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    if (!j) fail_msg("fixture: %s at %d:%d", err.text, err.line, err.column);
    return j;
}

static json_t *report_of(const char *text) {
    json_t *book = load(text), *r = NULL;
    Diag *d = class_report_compute(book, "gradebook.json", &r);
    if (d) fail_msg("%s", d->message);
    json_decref(book);
    return r;
}

static const json_t *exercise(const json_t *r, int i) { return json_array_get(json_object_get(r, "exercises"), (size_t)i); }

static double num(const json_t *o, const char *path) {
    /* "a.b": one level of nesting is enough here. */
    const char *dot = strchr(path, '.');
    if (dot) {
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
        o = json_object_get(o, key);
        path = dot + 1;
    }
    const json_t *v = json_object_get(o, path);
    if (!json_is_number(v)) fail_msg("%s is not a number", path);
    return json_number_value(v);
}

static void report__pass_and_fast_rates__count_every_student(void **state) {
    (void)state;
    json_t *r = report_of(BOOK);
    const json_t *va = exercise(r, 0), *bs = exercise(r, 1);
    assert_string_equal(json_string_value(json_object_get(va, "id")), "vector-add");
    assert_string_equal(json_string_value(json_object_get(va, "title")), "Vector add");
    assert_int_equal(num(va, "students"), 4);
    assert_int_equal(num(va, "passed"), 2);
    assert_float_equal(num(va, "pass_rate"), 0.5, 1e-9);
    assert_int_equal(num(va, "passed_fast"), 1);
    assert_float_equal(num(va, "fast_rate"), 0.25, 1e-9);
    assert_int_equal(num(bs, "passed"), 2);
    assert_int_equal(num(bs, "passed_fast"), 1);
    json_decref(r);
}

static void report__median_attempts_and_time_to_pass__come_from_progress_up_to_the_first_pass(void **state) {
    (void)state;
    json_t *r = report_of(BOOK);
    const json_t *va = exercise(r, 0), *bs = exercise(r, 1);
    /* vector-add: alice 2 attempts (the one after her pass left out), bob 1. */
    assert_int_equal(num(va, "progress_students"), 2);
    assert_float_equal(num(va, "attempts_to_pass.median"), 1.5, 1e-9);
    assert_int_equal(num(va, "attempts_to_pass.n"), 2);
    assert_float_equal(num(va, "time_to_pass_ms.median"), 750, 1e-9);   /* (1500 + 0) / 2 */
    /* block-sum: bob has it in his progress but never passed: counted, not in the medians. */
    assert_int_equal(num(bs, "progress_students"), 2);
    assert_float_equal(num(bs, "attempts_to_pass.median"), 3, 1e-9);
    assert_int_equal(num(bs, "attempts_to_pass.n"), 1);
    assert_float_equal(num(bs, "time_to_pass_ms.median"), 300, 1e-9);
    json_decref(r);
}

static void report__no_progress_anywhere__gives_null_medians_with_n_zero(void **state) {
    (void)state;
    json_t *r = report_of("{\"format\":\"cudojo-gradebook\",\"format_version\":1,"
                          "\"exercises\":[{\"id\":\"x\",\"points\":1}],"
                          "\"students\":[{\"student\":\"a\",\"total\":1,\"max_total\":1,"
                          "\"exercises\":{\"x\":{\"verdict\":\"pass\"}},\"progress\":null}]}");
    const json_t *x = exercise(r, 0);
    assert_true(json_is_null(json_object_get(json_object_get(x, "attempts_to_pass"), "median")));
    assert_int_equal(num(x, "attempts_to_pass.n"), 0);
    assert_int_equal(num(x, "progress_students"), 0);
    assert_int_equal(num(r, "students_with_progress"), 0);
    json_decref(r);
}

static void report__failure_kinds__most_common_first_then_by_name(void **state) {
    (void)state;
    json_t *r = report_of(BOOK);
    const json_t *f = json_object_get(exercise(r, 0), "failures");
    assert_int_equal(json_array_size(f), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "kind")), "compile-error");
    assert_string_equal(json_string_value(json_object_get(json_array_get(f, 1), "kind")), "race");
    /* block-sum: bob's race and carol's run that never happened. */
    f = json_object_get(exercise(r, 1), "failures");
    assert_int_equal(json_array_size(f), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "kind")), "not-graded");
    assert_string_equal(json_string_value(json_object_get(json_array_get(f, 1), "kind")), "race");
    json_decref(r);
    /* Three races against one timeout: the races come first. */
    r = report_of("{\"format\":\"cudojo-gradebook\",\"format_version\":1,\"exercises\":[{\"id\":\"x\"}],\"students\":["
                  "{\"exercises\":{\"x\":{\"verdict\":\"timeout\",\"failure_kind\":\"timeout\"}}},"
                  "{\"exercises\":{\"x\":{\"verdict\":\"fail\",\"failure_kind\":\"race\"}}},"
                  "{\"exercises\":{\"x\":{\"verdict\":\"fail\",\"failure_kind\":\"race\"}}},"
                  "{\"exercises\":{\"x\":{\"verdict\":\"fail\",\"failure_kind\":\"race\"}}}]}");
    f = json_object_get(exercise(r, 0), "failures");
    assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "kind")), "race");
    assert_int_equal(num(json_array_get(f, 0), "count"), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(f, 1), "kind")), "timeout");
    json_decref(r);
}

static void report__histogram_and_scores__of_total_over_max_total(void **state) {
    (void)state;
    json_t *r = report_of(BOOK);
    const json_t *h = json_object_get(r, "histogram");
    assert_int_equal(json_array_size(h), CLASS_REPORT_BINS);
    int counts[CLASS_REPORT_BINS];
    for (int b = 0; b < CLASS_REPORT_BINS; b++) counts[b] = (int)num(json_array_get(h, (size_t)b), "count");
    /* 3/3 (full marks: the last bin), 1/3, 0/3, 2/3. */
    assert_int_equal(counts[9], 1);
    assert_int_equal(counts[3], 1);
    assert_int_equal(counts[0], 1);
    assert_int_equal(counts[6], 1);
    assert_int_equal(counts[1] + counts[2] + counts[4] + counts[5] + counts[7] + counts[8], 0);
    assert_float_equal(num(json_array_get(h, 9), "from"), 0.9, 1e-9);
    assert_int_equal(num(r, "students"), 4);
    assert_float_equal(num(r, "score.mean"), 1.5, 1e-9);
    assert_float_equal(num(r, "score.median"), 1.5, 1e-9);
    assert_float_equal(num(r, "score.min"), 0, 1e-9);
    assert_float_equal(num(r, "score.max"), 3, 1e-9);
    assert_float_equal(num(r, "score.max_total"), 3, 1e-9);
    assert_int_equal(num(r, "students_with_progress"), 3);
    assert_int_equal(num(r, "students_with_problems"), 1);
    const json_t *p = json_array_get(json_object_get(r, "problems"), 0);
    assert_string_equal(json_string_value(json_object_get(p, "student")), "carol");
    /* The common solution is not a similar group. */
    assert_int_equal(num(exercise(r, 1), "similar_groups"), 1);
    assert_int_equal(num(exercise(r, 0), "similar_groups"), 0);
    json_decref(r);
}

static void median__odd_and_even_counts(void **state) {
    (void)state;
    double a[] = {5, 1, 3};
    assert_float_equal(class_median(a, 3), 3, 1e-12);
    double b[] = {4, 1, 3, 2};
    assert_float_equal(class_median(b, 4), 2.5, 1e-12);
    assert_float_equal(class_median(NULL, 0), 0, 1e-12);
}

static void compute__refuses_what_is_not_a_gradebook__naming_the_file(void **state) {
    (void)state;
    const char *bad[] = {
        "{\"format\":\"cudojo-progress\",\"format_version\":1,\"exercises\":[]}",
        "[1,2,3]",
        "{\"format\":\"cudojo-gradebook\",\"format_version\":2,\"exercises\":[],\"students\":[]}",
        "{\"format\":\"cudojo-gradebook\",\"format_version\":1,\"exercises\":{},\"students\":[]}",
        "{\"format\":\"cudojo-gradebook\",\"format_version\":1,\"exercises\":[{\"points\":1}],\"students\":[]}",
    };
    const char *says[] = {"not a cudojo gradebook", "not a cudojo gradebook", "newer cudojo", "no \"exercises\"",
                          "exercise 1 has no \"id\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *j = load(bad[i]), *r = NULL;
        Diag *d = class_report_compute(j, "out/gradebook.json", &r);
        assert_non_null(d);
        assert_null(r);
        assert_string_equal(d->file, "out/gradebook.json");
        if (!strstr(d->message, says[i])) fail_msg("case %zu: %s", i, d->message);
        diag_free(&d);
        json_decref(j);
    }
}

static void compute__wrong_types_in_a_student__are_taken_as_absent(void **state) {
    (void)state;
    json_t *r = report_of("{\"format\":\"cudojo-gradebook\",\"format_version\":1,\"exercises\":[{\"id\":\"x\"}],"
                          "\"students\":[{\"student\":7,\"total\":\"lots\",\"max_total\":0,\"problems\":\"p\","
                          "\"exercises\":[1],\"progress\":{\"exercises\":[{\"id\":\"x\",\"passed\":true,"
                          "\"attempts\":5,\"first_pass_unix_ms\":\"y\"}]}}]}");
    assert_int_equal(num(exercise(r, 0), "passed"), 0);
    assert_int_equal(num(exercise(r, 0), "attempts_to_pass.n"), 0);
    assert_float_equal(num(r, "score.mean"), 0, 1e-9);
    assert_int_equal(num(json_array_get(json_object_get(r, "histogram"), 0), "count"), 1);
    json_decref(r);
}

static void html__escapes_hostile_names__and_fetches_nothing(void **state) {
    (void)state;
    json_t *book = load(BOOK);
    json_t *st = json_object_get(json_array_get(json_object_get(book, "students"), 2), "problems");
    json_array_append_new(st, json_string("<script>alert('x')</script> & \"quoted\" \x1b[2J"));
    json_t *sim = json_array_get(json_object_get(book, "similarity"), 0);
    json_array_append_new(json_object_get(sim, "students"), json_string("<img src=http://evil/x onerror=alert(1)>"));
    json_t *r = NULL;
    assert_null(class_report_compute(book, "gb.json", &r));
    char *html = class_report_html(r);
    assert_non_null(strstr(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;"));
    assert_non_null(strstr(html, "&lt;img src=http://evil/x onerror=alert(1)&gt;"));
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "<img"));
    assert_null(strchr(html, '\x1b'));
    assert_null(strstr(html, "src="   "\""));
    assert_null(strstr(html, "href"));
    assert_non_null(strstr(html, "default-src 'none'"));
    /* Inline SVG: ten histogram bars and a pass-rate bar per exercise. */
    int bars = 0;
    for (const char *p = html; (p = strstr(p, "class=\"hist\"")); p++) bars++;
    assert_int_equal(bars, CLASS_REPORT_BINS);
    assert_non_null(strstr(html, "<svg width=\"160\""));
    assert_non_null(strstr(html, "Vector add"));
    assert_non_null(strstr(html, "2/4 (50%)"));
    /* failure kinds in words, as the terminal report says them, the id as the title */
    assert_non_null(strstr(html, "<span title=\"compile-error\">compile error 1</span>"));
    free(html);
    json_decref(r);
    json_decref(book);
}

static void html__is_written_atomically__and_a_bad_path_says_so(void **state) {
    (void)state;
    json_t *r = report_of(BOOK);
    char dir[] = "/tmp/cudojo-class-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = path_join(dir, "report.html");
    assert_null(class_report_write_html(r, path));
    char *text = NULL;
    assert_null(fs_read_file(path, &text, NULL));
    assert_true(!strncmp(text, "<!DOCTYPE html>", 15));
    free(text);
    /* A directory in the way: nothing written, a Diag. */
    Diag *d = class_report_write_html(r, dir);
    assert_non_null(d);
    diag_free(&d);
    unlink(path);
    rmdir(dir);
    free(path);
    json_decref(r);
}

/* A grading database written through gradedb.h reads back, from its path
 * and from its folder, as the gradebook the report expects. */
static void load__reads_a_grade_db_and_its_folder__and_refuses_other_files(void **state) {
    (void)state;
    char dir[] = "/tmp/cudojo-class-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = path_join(dir, "grade.db");
    GradeDb *db = NULL;
    assert_null(gradedb_open(path, &db));
    GradeExercise ex[] = {{.id = "vector-add", .chapter = "hello-gpu", .title = "Vector add", .points = 1},
                          {.id = "block-sum", .chapter = "shared", .title = "Block sum", .points = 2}};
    assert_null(gradedb_set_course(db, "cv1", "/course", ex, 2));
    const char *ids[] = {"vector-add", "block-sum"};
    const char *names[] = {"ann", "ben"};
    for (int s = 0; s < 2; s++) {
        const char *shas[] = {"sha-va", s ? "sha-bs-ben" : "sha-bs-ann"};
        GradeSubmission sub = {.student = names[s], .origin = names[s]};
        assert_null(gradedb_put_submission(db, &sub, ids, shas, 2));
        for (int e = 0; e < 2; e++) {
            bool pass = s == 0 || e == 0;
            GradeRun run = {.student = names[s], .exercise = ids[e], .source_sha256 = shas[e], .course_version = "cv1",
                            .verdict = pass ? "pass" : "fail", .failure_kind = pass ? NULL : "out-of-bounds",
                            .points = pass ? ex[e].points : 0, .max_points = ex[e].points, .duration_ms = 1,
                            .kernel_ms = -1, .backend = "emu"};
            assert_null(gradedb_record_run(db, &run, NULL));
        }
    }
    gradedb_close(&db);
    const char *args[] = {path, dir};
    for (int k = 0; k < 2; k++) {
        json_t *book = NULL, *r = NULL;
        char *source = NULL;
        Diag *d = class_report_load(args[k], &book, &source);
        if (d) fail_msg("%s", d->message);
        assert_string_equal(source, path);
        assert_null(class_report_compute(book, source, &r));
        assert_int_equal(num(r, "students"), 2);
        assert_int_equal(num(exercise(r, 0), "passed"), 2);
        assert_int_equal(num(exercise(r, 1), "passed"), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(exercise(r, 1), "failures"), 0),
                                                              "kind")),
                            "out-of-bounds");
        assert_float_equal(num(r, "score.mean"), 2, 1e-9);   /* (3 + 1) / 2 */
        json_decref(r);
        json_decref(book);
        free(source);
    }
    /* A text file that is not JSON: the file and line are named. */
    char *bad = path_join(dir, "gradebook.json");
    const char *text = "{\n  \"format\": oops\n}\n";
    assert_null(fs_write_file_atomic(bad, text, strlen(text)));
    json_t *book = NULL;
    char *source = NULL;
    Diag *d = class_report_load(bad, &book, &source);
    assert_non_null(d);
    assert_string_equal(d->file, bad);
    assert_int_equal(d->line, 2);
    diag_free(&d);
    free(source);
    /* A folder with neither file. */
    char *empty = path_join(dir, "empty");
    assert_null(fs_mkdir_p(empty));
    d = class_report_load(empty, &book, &source);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "neither grade.db nor gradebook.json"));
    diag_free(&d);
    free(source);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(empty);
    free(bad);
    free(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report__pass_and_fast_rates__count_every_student),
        cmocka_unit_test(report__median_attempts_and_time_to_pass__come_from_progress_up_to_the_first_pass),
        cmocka_unit_test(report__no_progress_anywhere__gives_null_medians_with_n_zero),
        cmocka_unit_test(report__failure_kinds__most_common_first_then_by_name),
        cmocka_unit_test(report__histogram_and_scores__of_total_over_max_total),
        cmocka_unit_test(median__odd_and_even_counts),
        cmocka_unit_test(compute__refuses_what_is_not_a_gradebook__naming_the_file),
        cmocka_unit_test(compute__wrong_types_in_a_student__are_taken_as_absent),
        cmocka_unit_test(html__escapes_hostile_names__and_fetches_nothing),
        cmocka_unit_test(html__is_written_atomically__and_a_bad_path_says_so),
        cmocka_unit_test(load__reads_a_grade_db_and_its_folder__and_refuses_other_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
