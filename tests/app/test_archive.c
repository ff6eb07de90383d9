/* tests/app/test_archive.c: submission archives (app/archive.c). A good
 * archive written by the submit writer unpacks to the same bytes; tar.gz and
 * zip from a student's own tools are read too; and every kind of hostile
 * archive, built here with libarchive's writer, is refused with a message
 * naming the archive and the member, leaving nothing on disk: not in the
 * temp parent, not outside it. */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
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

#include "app/archive.h"
#include "base/fs.h"
#include "base/xalloc.h"

typedef struct Fx {
    char *dir;      /* fresh folder; holds the archives */
    char *parent;   /* dir/unpack: the tmp_parent given to submission_unpack */
} Fx;

static int fx_setup(void **state) {
    const char *tmp = getenv("TMPDIR");
    char *templ = xasprintf("%s/cudojo-archive-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(templ)) return -1;
    Fx *f = xcalloc(1, sizeof *f);
    f->dir = templ;
    f->parent = path_join(templ, "unpack");
    mkdir(f->parent, 0700);
    *state = f;
    return 0;
}

static int fx_teardown(void **state) {
    Fx *f = *state;
    archive_remove_tree(f->dir);
    free(f->dir);
    free(f->parent);
    free(f);
    return 0;
}

/* One member of a test archive. type 0 means a regular file. */
typedef struct Member {
    const char *name;
    const char *data;       /* NULL: size bytes of 'x' (or none for non-files) */
    size_t size;
    unsigned type;          /* AE_IFREG (0), AE_IFDIR, AE_IFLNK, AE_IFCHR, AE_IFIFO, AE_IFSOCK */
    const char *link;       /* symlink target */
    const char *hardlink;   /* hardlink target */
} Member;

enum { PLAIN = 0, GZIP = 1, ZSTD = 2 };
enum { TAR = 0, ZIP = 1 };

/* Writes members to dir/name as a tar (ustar, compressed by filter) or a zip. Caller frees the path. */
static char *make_archive(const Fx *f, const char *name, int filter, int format, const Member *m, int n) {
    char *path = path_join(f->dir, name);
    struct archive *a = archive_write_new();
    if (filter == GZIP) archive_write_add_filter_gzip(a);
    if (filter == ZSTD) archive_write_add_filter_zstd(a);
    if (format == ZIP) archive_write_set_format_zip(a);
    else archive_write_set_format_gnutar(a);
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    for (int i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_copy_pathname(e, m[i].name);
        unsigned type = m[i].type ? m[i].type : AE_IFREG;
        archive_entry_set_filetype(e, type);
        archive_entry_set_perm(e, type == AE_IFDIR ? 0755 : 0644);
        if (m[i].link) archive_entry_copy_symlink(e, m[i].link);
        if (m[i].hardlink) archive_entry_copy_hardlink(e, m[i].hardlink);
        size_t size = type == AE_IFREG && !m[i].hardlink ? (m[i].data ? strlen(m[i].data) : m[i].size) : 0;
        archive_entry_set_size(e, (la_int64_t)size);
        assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
        if (size) {
            char *buf = m[i].data ? xstrdup(m[i].data) : xmalloc(size);
            if (!m[i].data) memset(buf, 'x', size);
            assert_int_equal(archive_write_data(a, buf, size), (la_ssize_t)size);
            free(buf);
        }
        archive_entry_free(e);
    }
    assert_int_equal(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
    return path;
}

static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* Unpacking must fail with a Diag whose file is the archive and whose
 * message holds every needle; nothing may be left in the temp parent. */
static void expect_refused(const Fx *f, const char *archive, const SubmissionLimits *lim, const char *needle1,
                           const char *needle2) {
    char *out = NULL;
    Diag *d = submission_unpack(archive, f->parent, lim, &out);
    assert_non_null(d);
    assert_null(out);
    char *text = diag_format_all(d, false);
    if (!strstr(text, needle1) || (needle2 && !strstr(text, needle2))) {
        print_error("message lacks '%s'/'%s':\n%s\n", needle1, needle2 ? needle2 : "", text);
        fail();
    }
    assert_string_equal(d->file, archive);
    free(text);
    diag_free(&d);
    assert_int_equal(count_entries(f->parent), 0);
}

static char *read_text(const char *path) {
    char *data = NULL;
    Diag *d = fs_read_file(path, &data, NULL);
    assert_null(d);
    return data;
}

static void submission_writer__round_trips_every_file__when_unpacked(void **state) {
    Fx *f = *state;
    char *path = path_join(f->dir, "alice.cudojo.tar.zst");
    SubmissionWriter *w = NULL;
    assert_null(submission_writer_open(path, &w));
    const char *manifest = "{\"format\":\"cudojo-submission\"}";
    const char *kernel = "__global__ void k(float *x) { x[threadIdx.x] = 1; }\n";
    assert_null(submission_writer_add(w, SUBMISSION_MANIFEST, manifest, strlen(manifest), 1700000000));
    assert_null(submission_writer_add(w, "hello-gpu/vector-add.cu", kernel, strlen(kernel), 1700000000));
    assert_null(submission_writer_add(w, "hello-gpu/empty.cu", "", 0, 1700000000));
    assert_false(fs_exists(path));   /* nothing at the final path until closed */
    assert_null(submission_writer_close(&w));
    assert_null(w);
    assert_true(submission_is_archive(path));
    assert_int_equal(count_entries(f->dir), 2);   /* the archive and unpack/: no temporary left */

    char *out = NULL;
    assert_null(submission_unpack(path, f->parent, NULL, &out));
    assert_non_null(out);
    assert_int_equal(out[0], '/');
    char *p = path_join(out, "hello-gpu/vector-add.cu");
    char *got = read_text(p);
    assert_string_equal(got, kernel);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    free(got);
    free(p);
    p = path_join(out, "hello-gpu");
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    free(p);
    p = path_join(out, SUBMISSION_MANIFEST);
    got = read_text(p);
    assert_string_equal(got, manifest);
    free(got);
    free(p);
    assert_true(archive_remove_tree(out));
    assert_false(fs_exists(out));
    free(out);
    free(path);
}

static void submission_unpack__reads_tar_gz_and_zip__when_a_student_packs_by_hand(void **state) {
    Fx *f = *state;
    Member m[] = {{.name = "./hello-gpu/", .type = AE_IFDIR},
                  {.name = "./hello-gpu/vector-add.cu", .data = "int x;\n"}};
    const char *names[] = {"by-hand.tar.gz", "by-hand.zip", "by-hand.tar"};
    int filters[] = {GZIP, PLAIN, PLAIN}, formats[] = {TAR, ZIP, TAR};
    for (int i = 0; i < 3; i++) {
        char *a = make_archive(f, names[i], filters[i], formats[i], m, 2);
        assert_true(submission_is_archive(a));
        char *out = NULL;
        Diag *d = submission_unpack(a, f->parent, NULL, &out);
        if (d) {
            char *text = diag_format_all(d, false);
            print_error("%s: %s\n", names[i], text);
            free(text);
            fail();
        }
        char *p = path_join(out, "hello-gpu/vector-add.cu");
        char *got = read_text(p);
        assert_string_equal(got, "int x;\n");
        free(got);
        free(p);
        archive_remove_tree(out);
        free(out);
        free(a);
    }
}

static void submission_unpack__refuses_dotdot__and_writes_nothing_outside(void **state) {
    Fx *f = *state;
    Member m[] = {{.name = "hello-gpu/ok.cu", .data = "ok"}, {.name = "hello-gpu/../../evil.cu", .data = "evil"}};
    char *a = make_archive(f, "dotdot.tar.zst", ZSTD, TAR, m, 2);
    expect_refused(f, a, NULL, "hello-gpu/../../evil.cu", "'..'");
    char *evil = path_join(f->dir, "evil.cu");
    assert_false(fs_exists(evil));
    free(evil);
    free(a);
}

static void submission_unpack__refuses_absolute_path(void **state) {
    Fx *f = *state;
    char *target = path_join(f->dir, "abs-evil.cu");
    Member m[] = {{.name = target, .data = "evil"}};
    char *a = make_archive(f, "abs.tar", PLAIN, TAR, m, 1);
    expect_refused(f, a, NULL, "absolute path", "abs-evil.cu");
    assert_false(fs_exists(target));
    free(target);
    free(a);
}

static void submission_unpack__refuses_symlink__in_tar_and_zip(void **state) {
    Fx *f = *state;
    Member m[] = {{.name = "hello-gpu/vector-add.cu", .type = AE_IFLNK, .link = "/etc/passwd"}};
    char *a = make_archive(f, "symlink.tar.gz", GZIP, TAR, m, 1);
    expect_refused(f, a, NULL, "symbolic link", "hello-gpu/vector-add.cu");
    free(a);
    a = make_archive(f, "symlink.zip", PLAIN, ZIP, m, 1);   /* zip keeps links in its external attributes */
    expect_refused(f, a, NULL, "symbolic link", "hello-gpu/vector-add.cu");
    free(a);
}

static void submission_unpack__refuses_symlink_then_file_through_it(void **state) {
    Fx *f = *state;
    /* The classic: a link to outside, then a file "through" the link. */
    Member m[] = {{.name = "hello-gpu", .type = AE_IFLNK, .link = "/tmp"},
                  {.name = "hello-gpu/planted.cu", .data = "evil"}};
    char *a = make_archive(f, "linkdir.tar", PLAIN, TAR, m, 2);
    expect_refused(f, a, NULL, "symbolic link", "'hello-gpu'");
    assert_false(fs_exists("/tmp/planted.cu"));
    free(a);
}

static void submission_unpack__refuses_hardlink(void **state) {
    Fx *f = *state;
    Member m[] = {{.name = "a.cu", .data = "x"}, {.name = "b.cu", .hardlink = "a.cu"}};
    char *a = make_archive(f, "hardlink.tar", PLAIN, TAR, m, 2);
    expect_refused(f, a, NULL, "hard link", "'b.cu'");
    free(a);
}

static void submission_unpack__refuses_devices_and_fifos(void **state) {
    Fx *f = *state;
    struct {
        unsigned type;
        const char *word;
    } kinds[] = {{AE_IFCHR, "character device"}, {AE_IFBLK, "block device"}, {AE_IFIFO, "FIFO"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        Member m[] = {{.name = "hello-gpu/dev", .type = kinds[i].type}};
        char *a = make_archive(f, "dev.tar", PLAIN, TAR, m, 1);
        expect_refused(f, a, NULL, kinds[i].word, "hello-gpu/dev");
        unlink(a);
        free(a);
    }
}

static void submission_unpack__refuses_member_over_size_limit(void **state) {
    Fx *f = *state;
    Member m[] = {{.name = "big.cu", .size = 4096}};
    char *a = make_archive(f, "big.tar.zst", ZSTD, TAR, m, 1);
    SubmissionLimits lim = submission_limits_default();
    lim.max_member = 4095;
    expect_refused(f, a, &lim, "'big.cu'", "4095");
    lim.max_member = 4096;   /* exactly at the limit is fine */
    char *out = NULL;
    assert_null(submission_unpack(a, f->parent, &lim, &out));
    archive_remove_tree(out);
    free(out);
    free(a);
}

static void submission_unpack__counts_unpacked_bytes_against_total_limit(void **state) {
    Fx *f = *state;
    Member m[4];
    char names[4][16];
    for (int i = 0; i < 4; i++) {
        snprintf(names[i], sizeof names[i], "f%d.cu", i);
        m[i] = (Member){.name = names[i], .size = 3000};
    }
    char *a = make_archive(f, "total.zip", PLAIN, ZIP, m, 4);
    SubmissionLimits lim = submission_limits_default();
    lim.max_total = 10000;   /* each file fits; the fourth passes the total */
    expect_refused(f, a, &lim, "'f3.cu'", "more than 10000 bytes");
    free(a);
}

static void submission_unpack__refuses_bomb__by_compression_ratio(void **state) {
    Fx *f = *state;
    /* 3 MiB of one byte compresses to a few hundred bytes with zstd. */
    Member m[] = {{.name = "bomb.cu", .size = (size_t)3 << 20}};
    char *a = make_archive(f, "bomb.tar.zst", ZSTD, TAR, m, 1);
    SubmissionLimits lim = submission_limits_default();
    lim.max_member = (size_t)8 << 20;
    lim.max_total = (size_t)8 << 20;
    expect_refused(f, a, &lim, "archive bomb", "'bomb.cu'");
    free(a);
}

static void submission_unpack__refuses_more_members_than_limit(void **state) {
    Fx *f = *state;
    Member m[6];
    char names[6][16];
    for (int i = 0; i < 6; i++) {
        snprintf(names[i], sizeof names[i], "m%d.cu", i);
        m[i] = (Member){.name = names[i], .data = "x"};
    }
    char *a = make_archive(f, "many.tar", PLAIN, TAR, m, 6);
    SubmissionLimits lim = submission_limits_default();
    lim.max_members = 5;
    expect_refused(f, a, &lim, "more than 5 entries", "'m5.cu'");
    free(a);
}

static void submission_unpack__refuses_names_with_control_characters_or_bad_utf8(void **state) {
    Fx *f = *state;
    Member esc[] = {{.name = "hello-gpu/\033[2Jx.cu", .data = "x"}};
    char *a = make_archive(f, "esc.tar", PLAIN, TAR, esc, 1);
    expect_refused(f, a, NULL, "control character", "^[");   /* shown escaped, never raw */
    unlink(a);
    free(a);
    Member latin1[] = {{.name = "hello-gpu/caf\xe9.cu", .data = "x"}};
    a = make_archive(f, "latin1.tar", PLAIN, TAR, latin1, 1);
    expect_refused(f, a, NULL, "not UTF-8", "\\xE9");
    free(a);
}

static void submission_unpack__refuses_a_name_given_twice(void **state) {
    Fx *f = *state;
    Member m[] = {{.name = "hello-gpu/vector-add.cu", .data = "checked"},
                  {.name = "hello-gpu/vector-add.cu", .data = "swapped"}};
    char *a = make_archive(f, "twice.tar", PLAIN, TAR, m, 2);
    expect_refused(f, a, NULL, "given twice", "hello-gpu/vector-add.cu");
    free(a);
}

static void submission_unpack__refuses_file_then_folder_of_same_name(void **state) {
    Fx *f = *state;
    Member m[] = {{.name = "hello-gpu", .data = "a file"}, {.name = "hello-gpu/vector-add.cu", .data = "x"}};
    char *a = make_archive(f, "filedir.tar", PLAIN, TAR, m, 2);
    expect_refused(f, a, NULL, "not a folder", "hello-gpu/vector-add.cu");
    free(a);
}

static void submission_unpack__says_what_is_wrong__when_not_an_archive_or_empty(void **state) {
    Fx *f = *state;
    char *junk = path_join(f->dir, "junk.tar.zst");
    assert_null(fs_write_file_atomic(junk, "this is not an archive\n", 23));
    assert_false(submission_is_archive(junk));
    expect_refused(f, junk, NULL, "not an archive cudojo reads", NULL);
    char *empty = make_archive(f, "empty.tar", PLAIN, TAR, NULL, 0);
    expect_refused(f, empty, NULL, "holds no files", NULL);
    expect_refused(f, f->parent, NULL, "a directory", NULL);
    char *missing = path_join(f->dir, "missing.tar");
    expect_refused(f, missing, NULL, "cannot open it", NULL);
    free(missing);
    free(empty);
    free(junk);
}

static void submission_is_archive__judges_by_content_not_name(void **state) {
    Fx *f = *state;
    Member m[] = {{.name = "a.cu", .data = "x"}};
    char *a = make_archive(f, "looks-like-text.txt", ZSTD, TAR, m, 1);
    assert_true(submission_is_archive(a));
    char *text = path_join(f->dir, "fake.tar.gz");
    assert_null(fs_write_file_atomic(text, "hello\n", 6));
    assert_false(submission_is_archive(text));
    assert_false(submission_is_archive(f->dir));
    assert_false(submission_is_archive("/nonexistent/x.tar"));
    free(text);
    free(a);
}

static void submission_student_name_ok__refuses_slash_controls_and_long_names(void **state) {
    (void)state;
    assert_true(submission_student_name_ok("alice"));
    assert_true(submission_student_name_ok("Zhāng Wěi"));
    assert_false(submission_student_name_ok(""));
    assert_false(submission_student_name_ok(".."));
    assert_false(submission_student_name_ok("a/b"));
    assert_false(submission_student_name_ok("a\nb"));
    assert_false(submission_student_name_ok("caf\xe9"));
    char longname[SUBMISSION_STUDENT_MAX + 2];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    assert_false(submission_student_name_ok(longname));
    longname[SUBMISSION_STUDENT_MAX] = 0;
    assert_true(submission_student_name_ok(longname));
}

int main(void) {
    const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        T(submission_writer__round_trips_every_file__when_unpacked),
        T(submission_unpack__reads_tar_gz_and_zip__when_a_student_packs_by_hand),
        T(submission_unpack__refuses_dotdot__and_writes_nothing_outside),
        T(submission_unpack__refuses_absolute_path),
        T(submission_unpack__refuses_symlink__in_tar_and_zip),
        T(submission_unpack__refuses_symlink_then_file_through_it),
        T(submission_unpack__refuses_hardlink),
        T(submission_unpack__refuses_devices_and_fifos),
        T(submission_unpack__refuses_member_over_size_limit),
        T(submission_unpack__counts_unpacked_bytes_against_total_limit),
        T(submission_unpack__refuses_bomb__by_compression_ratio),
        T(submission_unpack__refuses_more_members_than_limit),
        T(submission_unpack__refuses_names_with_control_characters_or_bad_utf8),
        T(submission_unpack__refuses_a_name_given_twice),
        T(submission_unpack__refuses_file_then_folder_of_same_name),
        T(submission_unpack__says_what_is_wrong__when_not_an_archive_or_empty),
        T(submission_is_archive__judges_by_content_not_name),
        T(submission_student_name_ok__refuses_slash_controls_and_long_names),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
