/* app/archive.c: reading a student's submission archive safely, and writing
 * the one `cudojo submit` makes (see archive.h for the rules).
 *
 * Every file is created with openat() relative to a folder we opened
 * ourselves with O_NOFOLLOW, so no name in the archive (and nothing another
 * process puts in the folder meanwhile) can lead a write outside it. */
#include "app/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

/* Deeper than any chapter/exercise layout; a limit keeps the walk bounded. */
#define ARCHIVE_MAX_DEPTH 16
#define ARCHIVE_MAX_NAME 1024
/* The ratio check starts here: small archives of tar padding compress well. */
#define ARCHIVE_RATIO_FLOOR ((size_t)1 << 20)

SubmissionLimits submission_limits_default(void) {
    SubmissionLimits lim = {
        .max_member = (size_t)1 << 20,
        .max_total = (size_t)16 << 20,
        .max_members = 2000,
        .max_ratio = 100.0,
    };
    return lim;
}

bool submission_student_name_ok(const char *name) {
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > SUBMISSION_STUDENT_MAX || !bytes_is_utf8(name, n)) return false;
    if (!strcmp(name, ".") || !strcmp(name, "..")) return false;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '/') return false;
    return true;
}

/* ---- removing a tree ---- */

static bool archive_remove_at(int parent, const char *name, int depth) {
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return unlinkat(parent, name, 0) == 0 || errno == ENOENT;
    bool ok = depth < 64;
    DIR *d = ok ? fdopendir(fd) : NULL;
    if (!d) {
        close(fd);
        return false;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) ok &= archive_remove_at(dirfd(d), e->d_name, depth + 1);
    closedir(d);
    return unlinkat(parent, name, AT_REMOVEDIR) == 0 && ok;
}

bool archive_remove_tree(const char *dir) {
    if (!dir || !*dir) return false;
    return archive_remove_at(AT_FDCWD, dir, 0);
}

/* ---- recognising an archive ---- */

bool submission_is_archive(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return false;
    struct stat st;
    unsigned char h[512];
    ssize_t n = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) n = pread(fd, h, sizeof h, 0);
    close(fd);
    if (n < 4) return false;
    if (h[0] == 0x1f && h[1] == 0x8b) return true;                                /* gzip */
    if (h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd) return true; /* zstd */
    if (!memcmp(h, "BZh", 3)) return true;                                         /* bzip2 */
    if (n >= 6 && !memcmp(h, "\xfd" "7zXZ\0", 6)) return true;                     /* xz */
    if (!memcmp(h, "PK\3\4", 4) || !memcmp(h, "PK\5\6", 4)) return true;          /* zip */
    return n >= 262 && !memcmp(h + 257, "ustar", 5);                               /* tar (ustar, pax, GNU) */
}

/* ---- unpacking ---- */

typedef struct Unpack {
    const char *archive_path;
    SubmissionLimits lim;
    size_t archive_bytes;
    size_t total;
    int members;
    int root_fd;
} Unpack;

static Diag *unpack_error(const Unpack *u, const char *member, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static Diag *unpack_error(const Unpack *u, const char *member, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *why = xvasprintf(fmt, ap);
    va_end(ap);
    Diag *d;
    if (member) {
        char *shown = bytes_printable(member);
        d = diag_new(DIAG_ERROR, "submission", u->archive_path, 0, 0,
                     "submission archive: member '%s': %s; nothing was unpacked", shown, why);
        free(shown);
    } else {
        d = diag_new(DIAG_ERROR, "submission", u->archive_path, 0, 0, "submission archive: %s", why);
    }
    free(why);
    return d;
}

/* Checks a member's name and splits it into components (stored in parts,
 * which point into buf). Leading "./" and "." components are dropped; a
 * trailing '/' is allowed. */
static Diag *unpack_split_name(const Unpack *u, const char *name, char *buf, char **parts, int *n_parts) {
    size_t len = strlen(name);
    if (len == 0) return unpack_error(u, name, "an empty name");
    if (len > ARCHIVE_MAX_NAME) return unpack_error(u, name, "a name longer than %d bytes", ARCHIVE_MAX_NAME);
    if (!bytes_is_utf8(name, len)) return unpack_error(u, name, "the name is not UTF-8");
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f) return unpack_error(u, name, "the name holds a control character");
    if (name[0] == '/') return unpack_error(u, name, "an absolute path");
    if (strchr(name, '\\')) return unpack_error(u, name, "a backslash in the name (a Windows path?)");
    memcpy(buf, name, len + 1);
    *n_parts = 0;
    char *save = NULL;
    for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, ".")) continue;
        if (!strcmp(c, "..")) return unpack_error(u, name, "a '..' component (path traversal)");
        if (*n_parts == ARCHIVE_MAX_DEPTH) return unpack_error(u, name, "nested deeper than %d folders", ARCHIVE_MAX_DEPTH);
        parts[(*n_parts)++] = c;
    }
    if (*n_parts == 0) return unpack_error(u, name, "a name with no file in it");
    return NULL;
}

/* Opens (making when missing) the folders parts[0..n) below the root;
 * returns an fd or -1 with *err set. */
static int unpack_open_dirs(const Unpack *u, const char *name, char **parts, int n, Diag **err) {
    int fd = dup(u->root_fd);
    for (int i = 0; fd >= 0 && i < n; i++) {
        if (mkdirat(fd, parts[i], 0700) != 0 && errno != EEXIST) {
            *err = unpack_error(u, name, "cannot make folder '%s' (%s)", parts[i], strerror(errno));
            close(fd);
            return -1;
        }
        int next = openat(fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            *err = unpack_error(u, name, "'%s' is a file earlier in the archive, not a folder", parts[i]);
            close(fd);
            return -1;
        }
        close(fd);
        fd = next;
    }
    if (fd < 0) *err = unpack_error(u, name, "cannot open the unpack folder (%s)", strerror(errno));
    return fd;
}

static const char *unpack_kind_name(mode_t type) {
    switch (type) {
    case AE_IFLNK: return "a symbolic link";
    case AE_IFCHR: return "a character device";
    case AE_IFBLK: return "a block device";
    case AE_IFIFO: return "a FIFO";
    case AE_IFSOCK: return "a socket";
    default: return "not a regular file or folder";
    }
}

/* Copies the member's data into fd, counting every byte against the limits. */
static Diag *unpack_copy_data(Unpack *u, struct archive *a, const char *name, int fd) {
    size_t member = 0;
    char buf[16384];
    for (;;) {
        la_ssize_t n = archive_read_data(a, buf, sizeof buf);
        if (n == 0) return NULL;
        if (n < 0) return unpack_error(u, name, "cannot read its data (%s)", archive_error_string(a));
        member += (size_t)n;
        u->total += (size_t)n;
        if (member > u->lim.max_member)
            return unpack_error(u, name, "more than %zu bytes (the limit for one file)", u->lim.max_member);
        if (u->total > u->lim.max_total)
            return unpack_error(u, name, "the archive unpacks to more than %zu bytes (the limit)", u->lim.max_total);
        if (u->total > ARCHIVE_RATIO_FLOOR && u->archive_bytes > 0 &&
            (double)u->total > u->lim.max_ratio * (double)u->archive_bytes)
            return unpack_error(u, name,
                                "the archive unpacks to over %.0f times its own size (%zu bytes): an archive bomb",
                                u->lim.max_ratio, u->archive_bytes);
        for (size_t off = 0; off < (size_t)n;) {
            ssize_t w = write(fd, buf + off, (size_t)n - off);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return unpack_error(u, name, "cannot write it (%s)", strerror(errno));
            off += (size_t)w;
        }
    }
}

/* Validates one entry and unpacks it. */
static Diag *unpack_entry(Unpack *u, struct archive *a, struct archive_entry *e) {
    const char *name = archive_entry_pathname_utf8(e);
    if (!name) name = archive_entry_pathname(e);
    if (!name) return unpack_error(u, NULL, "entry %d has no name", u->members);
    if (++u->members > u->lim.max_members)
        return unpack_error(u, name, "the archive has more than %d entries (the limit)", u->lim.max_members);
    char *buf = xmalloc(strlen(name) + 1);
    char *parts[ARCHIVE_MAX_DEPTH];
    int n_parts = 0;
    Diag *err = unpack_split_name(u, name, buf, parts, &n_parts);
    mode_t type = archive_entry_filetype(e);
    if (!err && archive_entry_hardlink(e)) err = unpack_error(u, name, "a hard link (refused)");
    if (!err && archive_entry_symlink(e) && type != AE_IFLNK) err = unpack_error(u, name, "a link (refused)");
    if (!err && type != AE_IFREG && type != AE_IFDIR)
        err = unpack_error(u, name, "%s (only files and folders are unpacked)", unpack_kind_name(type));
    if (!err && type == AE_IFREG && archive_entry_size_is_set(e) && archive_entry_size(e) > (la_int64_t)u->lim.max_member)
        err = unpack_error(u, name, "%lld bytes, over the limit of %zu for one file", (long long)archive_entry_size(e),
                           u->lim.max_member);
    int dir_fd = -1;
    if (!err) dir_fd = unpack_open_dirs(u, name, parts, type == AE_IFDIR ? n_parts : n_parts - 1, &err);
    if (!err && type == AE_IFREG) {
        int fd = openat(dir_fd, parts[n_parts - 1], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST) err = unpack_error(u, name, "the name is given twice in the archive");
        else if (fd < 0) err = unpack_error(u, name, "cannot create it (%s)", strerror(errno));
        else {
            err = unpack_copy_data(u, a, name, fd);
            if (close(fd) != 0 && !err) err = unpack_error(u, name, "cannot write it (%s)", strerror(errno));
        }
    }
    if (dir_fd >= 0) close(dir_fd);
    free(buf);
    return err;
}

/* The archive's formats: tar and zip, compressed or not. */
static struct archive *unpack_reader_new(void) {
    struct archive *a = archive_read_new();
    archive_read_support_filter_none(a);
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_zstd(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_zip(a);
    return a;
}

static Diag *unpack_all(Unpack *u) {
    int fd = open(u->archive_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0) return unpack_error(u, NULL, "cannot open it (%s)", strerror(errno));
    if (fstat(fd, &st) != 0) st.st_mode = 0;
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return unpack_error(u, NULL, "it is %s, not an archive file", fs_kind_name(st.st_mode));
    }
    u->archive_bytes = (size_t)st.st_size;
    struct archive *a = unpack_reader_new();
    Diag *err = NULL;
    if (archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK)
        err = unpack_error(u, NULL, "not an archive cudojo reads (tar, tar.gz, tar.zst or zip): %s",
                           archive_error_string(a));
    while (!err) {
        struct archive_entry *e = NULL;
        int rc = archive_read_next_header(a, &e);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) {
            err = unpack_error(u, NULL, "damaged after %d entries: %s", u->members, archive_error_string(a));
            break;
        }
        err = unpack_entry(u, a, e);
    }
    if (!err && u->members == 0) err = unpack_error(u, NULL, "it holds no files");
    archive_read_free(a);
    close(fd);
    return err;
}

Diag *submission_unpack(const char *archive_path, const char *tmp_parent, const SubmissionLimits *lim,
                        char **dir_out) {
    *dir_out = NULL;
    Unpack u = {.archive_path = archive_path, .lim = lim ? *lim : submission_limits_default(), .root_fd = -1};
    char *parent = path_absolute(tmp_parent);
    char *dir = xasprintf("%s/cudojo-submission-XXXXXX", parent);
    free(parent);
    if (!mkdtemp(dir)) {
        Diag *d = diag_new(DIAG_ERROR, "io", tmp_parent, 0, 0, "cannot make a folder to unpack %s into (%s)",
                           archive_path, strerror(errno));
        free(dir);
        return d;
    }
    u.root_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    Diag *err = u.root_fd < 0 ? unpack_error(&u, NULL, "cannot open %s (%s)", dir, strerror(errno)) : unpack_all(&u);
    if (u.root_fd >= 0) close(u.root_fd);
    if (err) {
        archive_remove_tree(dir);
        free(dir);
        return err;
    }
    *dir_out = dir;
    return NULL;
}

/* ---- writing ---- */

struct SubmissionWriter {
    struct archive *a;
    char *path;
    char *tmp_path;
    int fd;
};

static Diag *writer_error(const SubmissionWriter *w, const char *what) {
    return diag_new(DIAG_ERROR, "io", w->path, 0, 0, "cannot write the submission archive: %s (%s)", what,
                    w->a ? archive_error_string(w->a) : strerror(errno));
}

Diag *submission_writer_open(const char *path, SubmissionWriter **out) {
    *out = NULL;
    SubmissionWriter *w = xcalloc(1, sizeof *w);
    w->path = xstrdup(path);
    w->tmp_path = xasprintf("%s.tmp-XXXXXX", path);
    w->fd = mkstemp(w->tmp_path);
    if (w->fd < 0) {
        Diag *d = diag_new(DIAG_ERROR, "io", path, 0, 0, "cannot write the submission archive here (%s)",
                           strerror(errno));
        free(w->tmp_path);
        w->tmp_path = NULL;
        submission_writer_abort(&w);
        return d;
    }
    fchmod(w->fd, 0644);
    w->a = archive_write_new();
    Diag *err = NULL;
    if (archive_write_add_filter_zstd(w->a) != ARCHIVE_OK || archive_write_set_format_pax_restricted(w->a) != ARCHIVE_OK)
        err = writer_error(w, "zstd or tar is not available in this libarchive");
    else if (archive_write_open_fd(w->a, w->fd) != ARCHIVE_OK)
        err = writer_error(w, "opening");
    if (err) {
        submission_writer_abort(&w);
        return err;
    }
    *out = w;
    return NULL;
}

Diag *submission_writer_add(SubmissionWriter *w, const char *name, const void *data, size_t len,
                            long long mtime_unix) {
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname_utf8(e, name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, (la_int64_t)len);
    archive_entry_set_mtime(e, (time_t)mtime_unix, 0);
    Diag *err = NULL;
    if (archive_write_header(w->a, e) != ARCHIVE_OK) err = writer_error(w, name);
    else if (len && archive_write_data(w->a, data, len) != (la_ssize_t)len) err = writer_error(w, name);
    archive_entry_free(e);
    return err;
}

Diag *submission_writer_close(SubmissionWriter **wp) {
    SubmissionWriter *w = *wp;
    Diag *err = NULL;
    if (archive_write_close(w->a) != ARCHIVE_OK) err = writer_error(w, "finishing it");
    archive_write_free(w->a);
    w->a = NULL;
    if (!err && fsync(w->fd) != 0) err = writer_error(w, "syncing it");
    if (close(w->fd) != 0 && !err) err = writer_error(w, "closing it");
    w->fd = -1;
    if (!err && rename(w->tmp_path, w->path) != 0) err = writer_error(w, "renaming it into place");
    if (err) {
        submission_writer_abort(wp);
        return err;
    }
    free(w->tmp_path);
    free(w->path);
    free(w);
    *wp = NULL;
    return NULL;
}

void submission_writer_abort(SubmissionWriter **wp) {
    SubmissionWriter *w = *wp;
    if (!w) return;
    if (w->a) archive_write_free(w->a);
    if (w->fd >= 0) close(w->fd);
    if (w->tmp_path) unlink(w->tmp_path);
    free(w->tmp_path);
    free(w->path);
    free(w);
    *wp = NULL;
}
