/* tests/kernels/test_program_confine.c: the options that carry a
 * program's cage to the trampoline a tool starts (kernels/program_confine.c,
 * kernels/confine/main.c): what program_confine_args writes,
 * program_confine_parse reads back the same; anything else is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/program_internal.h"

static int count(char **v) {
    int n = 0;
    while (v && v[n]) n++;
    return n;
}

static void args__read_back_as_the_same_limits__when_the_cage_is_a_graded_programs(void **state) {
    (void)state;
    const char *r[] = {"/usr/lib", "/opt/run dir/with space", NULL}, *w[] = {"/tmp/run", "/dev/null", NULL};
    ChildLimits l = {.cpu_s = 35, .fsize = 1ll << 30, .as_bytes = 3ll << 30, .nproc = 700, .no_fork = true,
                     .no_unix = true, .confine = true, .landlock_abi = 6, .read_paths = r, .write_paths = w};
    char **a = program_confine_args("/x/cudojo-confine", &l);
    int n = count(a);
    assert_string_equal(a[0], "/x/cudojo-confine");
    assert_string_equal(a[n - 1], "--");
    /* the program and its arguments follow, and may look like options */
    char **argv = calloc((size_t)n + 3, sizeof *argv);
    for (int i = 0; i < n; i++) argv[i] = a[i];
    argv[n] = "/run/prog";
    argv[n + 1] = "--cpu";
    ChildLimits got;
    char **gr = NULL, **gw = NULL, err[256] = "";
    int at = program_confine_parse(n + 2, argv, &got, &gr, &gw, err, sizeof err);
    assert_int_equal(at, n);
    assert_string_equal(argv[at], "/run/prog");
    assert_int_equal(got.cpu_s, 35);
    assert_int_equal(got.fsize, 1ll << 30);
    assert_int_equal(got.as_bytes, 3ll << 30);
    assert_int_equal(got.nproc, 700);
    assert_true(got.no_fork && got.no_unix && got.confine);
    assert_int_equal(got.landlock_abi, 6);
    assert_int_equal(count(gr), 2);
    assert_string_equal(gr[1], "/opt/run dir/with space");
    assert_int_equal(count(gw), 2);
    assert_string_equal(got.write_paths[0], "/tmp/run");
    program_confine_args_free(&gr);
    program_confine_args_free(&gw);
    free(argv);
    program_confine_args_free(&a);
}

static void args__carry_no_landlock__when_the_program_is_not_confined(void **state) {
    (void)state;
    ChildLimits l = {.cpu_s = 5, .no_fork = true};
    char **a = program_confine_args("/x/cudojo-confine", &l);
    int n = count(a);
    for (int i = 0; i < n; i++) assert_true(strcmp(a[i], "--landlock") && strcmp(a[i], "--read"));
    char *argv[8] = {0};
    for (int i = 0; i < n; i++) argv[i] = a[i];
    argv[n] = "/bin/true";
    ChildLimits got;
    char **gr = NULL, **gw = NULL, err[256] = "";
    assert_int_equal(program_confine_parse(n + 1, argv, &got, &gr, &gw, err, sizeof err), n);
    assert_false(got.confine);
    assert_true(got.no_fork);
    assert_null(gr);
    assert_null(gw);
    program_confine_args_free(&a);
}

static void parse__refuses_with_a_message__when_the_options_are_not_ones_it_wrote(void **state) {
    (void)state;
    static const struct {
        const char *argv[6];
        const char *says;
    } bad[] = {
        {{"c", "--frobnicate", "--", "/bin/true"}, "unknown option '--frobnicate'"},
        {{"c", "--cpu"}, "--cpu needs a value"},
        {{"c", "--cpu", "-3", "--", "/bin/true"}, "positive whole number (got '-3')"},
        {{"c", "--fsize", "12k", "--", "/bin/true"}, "positive whole number (got '12k')"},
        {{"c", "--landlock", "6", "--read", "usr", "--"}, "absolute path (got 'usr')"},
        {{"c", "--no-fork", "/bin/true"}, "unknown option '/bin/true'"},
        {{"c", "--no-fork", "--"}, "usage:"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = 0;
        while (argc < 6 && bad[i].argv[argc]) argc++;
        ChildLimits got;
        char **gr = NULL, **gw = NULL, err[256] = "";
        assert_int_equal(program_confine_parse(argc, (char **)bad[i].argv, &got, &gr, &gw, err, sizeof err), -1);
        if (!strstr(err, bad[i].says)) fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].says);
        assert_null(gr);
        assert_null(gw);
        assert_false(got.confine);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(args__read_back_as_the_same_limits__when_the_cage_is_a_graded_programs),
        cmocka_unit_test(args__carry_no_landlock__when_the_program_is_not_confined),
        cmocka_unit_test(parse__refuses_with_a_message__when_the_options_are_not_ones_it_wrote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
