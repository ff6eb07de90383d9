/* tests/base/test_fs.c: reading takes only regular files up to a limit (a
 * FIFO never blocks, /dev/zero never fills memory), writing replaces only
 * regular files and never through a symlink or a device, and a "new" write
 * never overwrites what is there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fs.h"
#include "base/xalloc.h"

static char dir[] = "/tmp/cudojo-test-fs-XXXXXX";

static int setup(void **state) {
    (void)state;
    strcpy(dir, "/tmp/cudojo-test-fs-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char *cmd = xasprintf("rm -rf '%s'", dir);
    int rc = system(cmd);
    free(cmd);
    return rc == 0 ? 0 : -1;
}

static char *in_dir(const char *name) { return path_join(dir, name); }

static void read_file__refuses_a_fifo__without_blocking(void **state) {
    (void)state;
    char *p = in_dir("pipe.cu");
    assert_int_equal(mkfifo(p, 0644), 0);
    alarm(5);   /* a blocking open would hang the test: fail it instead */
    char *text = NULL;
    Diag *d = fs_read_file(p, &text, NULL);
    alarm(0);
    assert_non_null(d);
    assert_null(text);
    assert_non_null(strstr(d->message, "FIFO"));
    assert_non_null(strstr(d->message, "only regular files"));
    diag_free(&d);
    free(p);
}

static void read_file__refuses_a_symlink_to_dev_zero(void **state) {
    (void)state;
    char *p = in_dir("zero.cu");
    assert_int_equal(symlink("/dev/zero", p), 0);
    char *text = NULL;
    Diag *d = fs_read_file(p, &text, NULL);
    assert_non_null(d);
    assert_null(text);
    assert_non_null(strstr(d->message, "character device"));
    diag_free(&d);
    free(p);
}

static void read_file__refuses_a_directory_and_a_file_over_the_limit(void **state) {
    (void)state;
    char *text = NULL;
    Diag *d = fs_read_file(dir, &text, NULL);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "directory"));
    diag_free(&d);
    char *p = in_dir("big.cu");
    assert_null(fs_write_file_atomic(p, "0123456789", 10));
    d = fs_read_file_max(p, 9, &text, NULL);
    assert_non_null(d);
    assert_null(text);
    assert_non_null(strstr(d->message, "larger than"));
    diag_free(&d);
    size_t len = 0;
    assert_null(fs_read_file_max(p, 10, &text, &len));
    assert_int_equal(len, 10);
    assert_string_equal(text, "0123456789");
    free(text);
    free(p);
}

static void read_file__follows_a_symlink_to_a_regular_file(void **state) {
    (void)state;
    char *target = in_dir("real.cu"), *link = in_dir("link.cu");
    assert_null(fs_write_file_atomic(target, "abc", 3));
    assert_int_equal(symlink(target, link), 0);
    char *text = NULL;
    assert_null(fs_read_file(link, &text, NULL));
    assert_string_equal(text, "abc");
    free(text);
    free(target);
    free(link);
}

/* A student's folder: ch/k.cu is read; a file or a folder on the way
 * that is a link (swapped in after the caller's checks) is not. */
static void read_beneath__reads_a_file__and_follows_no_link_on_the_way(void **state) {
    (void)state;
    char *ch = in_dir("ch"), *k = in_dir("ch/k.cu"), *secret = in_dir("secret.cu"), *other = in_dir("other");
    assert_null(fs_mkdir_p(ch));
    assert_null(fs_mkdir_p(other));
    assert_null(fs_write_file_atomic(k, "mine", 4));
    assert_null(fs_write_file_atomic(secret, "solution", 8));
    char *text = NULL;
    size_t len = 0;
    assert_null(fs_read_file_beneath(dir, "ch/k.cu", 1 << 20, &text, &len));
    assert_string_equal(text, "mine");
    assert_int_equal(len, 4);
    free(text);
    /* the file swapped for a link */
    char *l = in_dir("ch/l.cu");
    assert_int_equal(symlink(secret, l), 0);
    Diag *d = fs_read_file_beneath(dir, "ch/l.cu", 1 << 20, &text, NULL);
    assert_non_null(d);
    assert_null(text);
    diag_free(&d);
    /* the folder swapped for a link to a folder holding the same name */
    char *lf = in_dir("linked"), *ok = in_dir("other/k.cu");
    assert_null(fs_write_file_atomic(ok, "solution", 8));
    assert_int_equal(symlink(other, lf), 0);
    d = fs_read_file_beneath(dir, "linked/k.cu", 1 << 20, &text, NULL);
    assert_non_null(d);
    assert_null(text);
    diag_free(&d);
    d = fs_read_file_beneath(ch, "../secret.cu", 1 << 20, &text, NULL);
    assert_non_null(d);
    assert_null(text);
    diag_free(&d);
    /* a FIFO is refused without blocking, as fs_read_file does */
    char *fifo = in_dir("ch/f.cu");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    d = fs_read_file_beneath(dir, "ch/f.cu", 1 << 20, &text, NULL);
    assert_non_null(d);
    diag_free(&d);
    free(fifo);
    free(lf);
    free(ok);
    free(l);
    free(ch);
    free(k);
    free(secret);
    free(other);
}

static void write_atomic__refuses_to_replace_what_is_not_a_regular_file(void **state) {
    (void)state;
    char *fifo = in_dir("fifo.json"), *sub = in_dir("sub.json"), *link = in_dir("link.json"),
         *victim = in_dir("victim");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_null(fs_write_file_atomic(victim, "keep", 4));
    assert_int_equal(symlink(victim, link), 0);
    const char *targets[] = {fifo, sub, link, "/dev/full", "/dev/null"};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        struct stat before, after;
        assert_int_equal(lstat(targets[i], &before), 0);
        Diag *d = fs_write_file_atomic(targets[i], "{}", 2);
        assert_non_null(d);
        assert_non_null(strstr(d->message, "replaces only regular files"));
        diag_free(&d);
        assert_int_equal(lstat(targets[i], &after), 0);
        assert_int_equal(before.st_mode, after.st_mode);
        assert_int_equal(before.st_ino, after.st_ino);
    }
    char *text = NULL;
    assert_null(fs_read_file(victim, &text, NULL));
    assert_string_equal(text, "keep");
    free(text);
    free(fifo);
    free(sub);
    free(link);
    free(victim);
}

static void write_atomic__replaces_a_regular_file_and_leaves_no_temporary(void **state) {
    (void)state;
    char *p = in_dir("out.json");
    assert_null(fs_write_file_atomic(p, "old", 3));
    assert_null(fs_write_file_atomic(p, "new!", 4));
    char *text = NULL;
    assert_null(fs_read_file(p, &text, NULL));
    assert_string_equal(text, "new!");
    free(text);
    char *cmd = xasprintf("ls '%s' | grep -c tmp", dir);
    FILE *f = popen(cmd, "r");
    char buf[16] = "";
    assert_non_null(fgets(buf, sizeof buf, f));
    pclose(f);
    assert_string_equal(buf, "0\n");
    free(cmd);
    free(p);
}

static void write_new__never_overwrites__and_says_exists(void **state) {
    (void)state;
    char *p = in_dir("backup.cu");
    assert_null(fs_write_file_new(p, "first", 5));
    Diag *d = fs_write_file_new(p, "second", 6);
    assert_non_null(d);
    assert_string_equal(d->code, "exists");
    diag_free(&d);
    char *text = NULL;
    assert_null(fs_read_file(p, &text, NULL));
    assert_string_equal(text, "first");
    free(text);
    free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(read_file__refuses_a_fifo__without_blocking, setup, teardown),
        cmocka_unit_test_setup_teardown(read_file__refuses_a_symlink_to_dev_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(read_file__refuses_a_directory_and_a_file_over_the_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(read_file__follows_a_symlink_to_a_regular_file, setup, teardown),
        cmocka_unit_test_setup_teardown(read_beneath__reads_a_file__and_follows_no_link_on_the_way, setup, teardown),
        cmocka_unit_test_setup_teardown(write_atomic__refuses_to_replace_what_is_not_a_regular_file, setup, teardown),
        cmocka_unit_test_setup_teardown(write_atomic__replaces_a_regular_file_and_leaves_no_temporary, setup, teardown),
        cmocka_unit_test_setup_teardown(write_new__never_overwrites__and_says_exists, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
