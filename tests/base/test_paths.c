/* tests/base/test_paths.c: path arithmetic (join tolerant of trailing
 * slashes, dirname, basename, absolute), the XDG data and cache
 * directories with and without their variables, mkdir -p, copies and
 * modification times. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fs.h"
#include "base/xalloc.h"

static char dir[] = "/tmp/cudojo-test-paths-XXXXXX";

static int setup(void **state) {
    (void)state;
    strcpy(dir, "/tmp/cudojo-test-paths-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char *cmd = xasprintf("rm -rf '%s'", dir);
    int rc = system(cmd);
    free(cmd);
    return rc == 0 ? 0 : -1;
}

static void assert_join(const char *a, const char *b, const char *want) {
    char *p = path_join(a, b);
    assert_string_equal(p, want);
    free(p);
}

static void join__puts_one_slash_between__whatever_trails_the_first(void **state) {
    (void)state;
    assert_join("lessons", "01-hello-gpu", "lessons/01-hello-gpu");
    assert_join("lessons/", "01-hello-gpu", "lessons/01-hello-gpu");
    assert_join("lessons///", "x.lua", "lessons/x.lua");
    assert_join("/", "etc", "/etc");
}

static void join__keeps_the_second__when_it_is_absolute_or_the_first_is_empty(void **state) {
    (void)state;
    assert_join("lessons", "/tmp/x.cu", "/tmp/x.cu");
    assert_join("", "x.cu", "x.cu");
    assert_join(NULL, "x.cu", "x.cu");
}

static void assert_dirname(const char *path, const char *want) {
    char *p = path_dirname(path);
    assert_string_equal(p, want);
    free(p);
}

static void dirname__is_the_part_before_the_last_slash(void **state) {
    (void)state;
    assert_dirname("lessons/01/vector-add.cu", "lessons/01");
    assert_dirname("/vector-add.cu", "/");
    assert_dirname("vector-add.cu", ".");
}

static void basename__is_the_last_component__inside_the_path(void **state) {
    (void)state;
    const char *p = "lessons/01/vector-add.cu";
    assert_string_equal(path_basename(p), "vector-add.cu");
    assert_ptr_equal(path_basename(p), p + strlen("lessons/01/"));
    assert_string_equal(path_basename("x.cu"), "x.cu");
    assert_string_equal(path_basename("dir/"), "");
}

static void absolute__resolves_what_exists__and_joins_the_cwd_to_what_does_not(void **state) {
    (void)state;
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    char *p = path_absolute(".");
    char *real = realpath(".", NULL);
    assert_string_equal(p, real);
    free(p);
    free(real);
    p = path_absolute("no-such-file-here.cu");
    char *want = path_join(cwd, "no-such-file-here.cu");
    assert_string_equal(p, want);
    free(p);
    free(want);
    p = path_absolute("/no/such/absolute.cu");
    assert_string_equal(p, "/no/such/absolute.cu");
    free(p);
}

static void xdg__uses_the_variable__when_it_is_an_absolute_path(void **state) {
    (void)state;
    setenv("XDG_DATA_HOME", "/srv/data", 1);
    setenv("XDG_CACHE_HOME", "/srv/cache/", 1);
    char *d = xdg_data_dir(), *c = xdg_cache_dir();
    assert_string_equal(d, "/srv/data/cudojo");
    assert_string_equal(c, "/srv/cache/cudojo");
    free(d);
    free(c);
}

static void xdg__falls_back_under_home__when_the_variable_is_unset_or_relative(void **state) {
    (void)state;
    setenv("HOME", "/home/learner", 1);
    unsetenv("XDG_DATA_HOME");
    setenv("XDG_CACHE_HOME", "relative/cache", 1);   /* the spec says: ignore it */
    char *d = xdg_data_dir(), *c = xdg_cache_dir();
    assert_string_equal(d, "/home/learner/.local/share/cudojo");
    assert_string_equal(c, "/home/learner/.cache/cudojo");
    free(d);
    free(c);
}

static void mkdir_p__makes_every_level__and_accepts_what_exists(void **state) {
    (void)state;
    char *deep = xasprintf("%s/a/b/c", dir);
    Diag *d = fs_mkdir_p(deep);
    assert_null(d);
    assert_true(fs_is_dir(deep));
    d = fs_mkdir_p(deep);   /* again: nothing to do, no error */
    assert_null(d);
    free(deep);
}

static void mkdir_p__says_so__when_a_file_is_in_the_way(void **state) {
    (void)state;
    char *file = xasprintf("%s/plain", dir);
    assert_null(fs_write_file_atomic(file, "x", 1));
    Diag *d = fs_mkdir_p(file);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "plain"));
    diag_free(&d);
    char *below = xasprintf("%s/plain/sub", dir);
    d = fs_mkdir_p(below);
    assert_non_null(d);
    diag_free(&d);
    assert_false(fs_is_dir(file));
    free(file);
    free(below);
}

static void copy__copies_the_bytes__and_copy_new_refuses_an_existing_target(void **state) {
    (void)state;
    char *src = xasprintf("%s/src.bin", dir), *dst = xasprintf("%s/dst.bin", dir);
    const char data[] = "bytes\0with a NUL";
    assert_null(fs_write_file_atomic(src, data, sizeof data));
    assert_false(fs_exists(dst));
    assert_null(fs_copy_file_new(src, dst));
    char *back;
    size_t len;
    assert_null(fs_read_file(dst, &back, &len));
    assert_int_equal(len, sizeof data);
    assert_memory_equal(back, data, sizeof data);
    free(back);
    Diag *d = fs_copy_file_new(src, dst);
    assert_non_null(d);
    assert_string_equal(d->code, "exists");
    diag_free(&d);
    assert_null(fs_write_file_atomic(src, "new", 3));
    assert_null(fs_copy_file(src, dst));   /* the plain copy replaces */
    assert_null(fs_read_file(dst, &back, &len));
    assert_string_equal(back, "new");
    free(back);
    free(src);
    free(dst);
}

static void mtime__is_zero_for_a_missing_file__and_positive_for_one_that_exists(void **state) {
    (void)state;
    char *f = xasprintf("%s/t", dir);
    assert_int_equal(fs_mtime_ns(f), 0);
    assert_false(fs_exists(f));
    assert_null(fs_write_file_atomic(f, "x", 1));
    assert_true(fs_exists(f));
    assert_false(fs_is_dir(f));
    assert_true(fs_mtime_ns(f) > 0);
    free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(join__puts_one_slash_between__whatever_trails_the_first),
        cmocka_unit_test(join__keeps_the_second__when_it_is_absolute_or_the_first_is_empty),
        cmocka_unit_test(dirname__is_the_part_before_the_last_slash),
        cmocka_unit_test(basename__is_the_last_component__inside_the_path),
        cmocka_unit_test(absolute__resolves_what_exists__and_joins_the_cwd_to_what_does_not),
        cmocka_unit_test(xdg__uses_the_variable__when_it_is_an_absolute_path),
        cmocka_unit_test(xdg__falls_back_under_home__when_the_variable_is_unset_or_relative),
        cmocka_unit_test_setup_teardown(mkdir_p__makes_every_level__and_accepts_what_exists, setup, teardown),
        cmocka_unit_test_setup_teardown(mkdir_p__says_so__when_a_file_is_in_the_way, setup, teardown),
        cmocka_unit_test_setup_teardown(copy__copies_the_bytes__and_copy_new_refuses_an_existing_target, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(mtime__is_zero_for_a_missing_file__and_positive_for_one_that_exists, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
