/* base/fs.c: files and paths. */
#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/xalloc.h"

const char *fs_kind_name(unsigned mode) {
    switch (mode & S_IFMT) {
    case S_IFREG: return N_("a regular file");
    case S_IFDIR: return N_("a directory");
    case S_IFIFO: return N_("a FIFO (named pipe)");
    case S_IFCHR: return N_("a character device");
    case S_IFBLK: return N_("a block device");
    case S_IFSOCK: return N_("a socket");
    case S_IFLNK: return N_("a symbolic link");
    }
    return N_("not a regular file");
}

static void mib_text(char *buf, size_t n, size_t bytes) {
    if (bytes >= ((size_t)1 << 20)) snprintf(buf, n, "%.1f MiB", (double)bytes / (1 << 20));
    else snprintf(buf, n, "%zu bytes", bytes);
}

static Diag *too_big(const char *path, size_t max) {
    char lim[32];
    mib_text(lim, sizeof lim, max);
    return diag_error("io", "%s is larger than %s, the most cudojo reads from one file", path, lim);
}

/* Reads the open file fd (shown as `path`) whole, then closes it: a regular
 * file of at most max bytes, else an error saying what it is. */
static Diag *read_fd_max(int fd, const char *path, size_t max, char **out, size_t *len) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
        Diag *d = diag_error("io", "cannot read %s: %s", path, strerror(errno));
        close(fd);
        return d;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return diag_error("io", "cannot read %s: it is %s; cudojo reads only regular files", path,
                          fs_kind_name(st.st_mode));
    }
    if ((unsigned long long)st.st_size > max) {
        close(fd);
        return too_big(path, max);
    }
    StrBuf sb;
    strbuf_init(&sb);
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            Diag *d = diag_error("io", "error while reading %s: %s", path, strerror(errno));
            close(fd);
            strbuf_fini(&sb);
            return d;
        }
        if (n == 0) break;
        if (sb.len + (size_t)n > max) {   /* it grew while we read */
            close(fd);
            strbuf_fini(&sb);
            return too_big(path, max);
        }
        strbuf_append_n(&sb, buf, (size_t)n);
    }
    close(fd);
    if (len) *len = sb.len;
    *out = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return NULL;
}

Diag *fs_read_file_max(const char *path, size_t max, char **out, size_t *len) {
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return diag_error("io", "cannot read %s: %s", path, strerror(errno));
    return read_fd_max(fd, path, max, out, len);
}

Diag *fs_read_file_beneath(const char *dir, const char *rel, size_t max, char **out, size_t *len) {
    *out = NULL;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return diag_error("io", "cannot read %s: %s", dir, strerror(errno));
    char *copy = xstrdup(rel), *save = NULL;
    char *part = strtok_r(copy, "/", &save);
    while (part && fd >= 0) {
        char *next = strtok_r(NULL, "/", &save);
        int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (next ? O_DIRECTORY : O_NONBLOCK | O_NOCTTY);
        bool up = !strcmp(part, "..");
        int nfd = up ? -1 : openat(fd, part, flags), e = up ? EACCES : nfd < 0 ? errno : 0;
        close(fd);
        fd = nfd;
        if (fd < 0) {
            Diag *d = diag_error("io", "cannot read %s in %s: %s", rel, dir,
                                 e == ELOOP || e == ENOTDIR ? N_("a link or not a folder on the way") : strerror(e));
            free(copy);
            return d;
        }
        part = next;
    }
    free(copy);
    return read_fd_max(fd, rel, max, out, len);
}

Diag *fs_read_file(const char *path, char **out, size_t *len) { return fs_read_file_max(path, FS_READ_MAX, out, len); }

/* Writes data to a fresh temporary file beside path (created exclusively,
 * fsynced); *tmp_out is its name (caller frees). */
static Diag *write_temp_beside(const char *path, const void *data, size_t len, char **tmp_out) {
    static unsigned counter;
    *tmp_out = NULL;
    char *tmp = NULL;
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        free(tmp);
        unsigned c = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
        tmp = xasprintf("%s.tmp.%ld.%u", path, (long)getpid(), c);
        /* O_EXCL: never write through something already at the temporary name. */
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        Diag *d = diag_error("io", "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return d;
    }
    const char *p = data;
    size_t left = len;
    bool ok = true;
    while (ok && left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            ok = false;
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    ok = ok && fsync(fd) == 0;
    int err = errno;
    ok = close(fd) == 0 && ok;
    if (!ok) {
        if (err == 0) err = errno;
        unlink(tmp);
        free(tmp);
        return diag_error("io", "cannot write %s: %s", path, strerror(err ? err : EIO));
    }
    *tmp_out = tmp;
    return NULL;
}

Diag *fs_write_file_atomic(const char *path, const void *data, size_t len) {
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return diag_error("io", "cannot write %s: it is %s, and cudojo replaces only regular files", path,
                          fs_kind_name(st.st_mode));
    char *tmp;
    Diag *d = write_temp_beside(path, data, len, &tmp);
    if (d) return d;
    if (rename(tmp, path) != 0) {
        d = diag_error("io", "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return d;
}

Diag *fs_write_file_new(const char *path, const void *data, size_t len) {
    char *tmp;
    Diag *d = write_temp_beside(path, data, len, &tmp);
    if (d) return d;
    /* No-replace rename (or link() where the file system lacks it) fails with
       EEXIST rather than replace: two writers never overwrite each other. */
    int rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE);
    int err = errno;
    if (rc != 0 && (err == EINVAL || err == ENOSYS)) {
        rc = link(tmp, path);
        err = errno;
        unlink(tmp);
    }
    if (rc != 0) {
        d = err == EEXIST ? diag_error("exists", "%s already exists", path)
                          : diag_error("io", "cannot write %s: %s", path, strerror(err));
        unlink(tmp);
    }
    free(tmp);
    return d;
}

Diag *fs_mkdir_p(const char *path) {
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            Diag *d = diag_error("io", "cannot create directory %s: %s", p, strerror(errno));
            free(p);
            return d;
        }
        *s = '/';
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST) {
        Diag *d = diag_error("io", "cannot create directory %s: %s", p, strerror(errno));
        free(p);
        return d;
    }
    free(p);
    if (!fs_is_dir(path)) return diag_error("io", "%s exists and is not a directory", path);
    return NULL;
}

Diag *fs_copy_file(const char *src, const char *dst) {
    char *data;
    size_t len;
    Diag *d = fs_read_file(src, &data, &len);
    if (d) return d;
    d = fs_write_file_atomic(dst, data, len);
    free(data);
    return d;
}

Diag *fs_copy_file_new(const char *src, const char *dst) {
    char *data;
    size_t len;
    Diag *d = fs_read_file(src, &data, &len);
    if (d) return d;
    d = fs_write_file_new(dst, data, len);
    free(data);
    return d;
}

bool fs_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

bool fs_is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

long long fs_mtime_ns(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

char *path_join(const char *a, const char *b) {
    if (!a || !*a) return xstrdup(b);
    if (b[0] == '/') return xstrdup(b);
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/') la--;
    if (la == 1 && a[0] == '/') return xasprintf("/%s", b);   /* the root: "/etc", not "//etc" */
    return xasprintf("%.*s/%s", (int)la, a, b);
}

char *path_dirname(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return xstrdup(".");
    if (slash == path) return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

const char *path_basename(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *path_absolute(const char *path) {
    char buf[PATH_MAX];
    if (realpath(path, buf)) return xstrdup(buf);
    if (path[0] == '/') return xstrdup(path);
    if (!getcwd(buf, sizeof buf)) return xstrdup(path);
    return path_join(buf, path);
}

static char *xdg_dir(const char *env, const char *fallback) {
    const char *v = getenv(env);
    if (v && v[0] == '/') return path_join(v, "cudojo");
    const char *home = getenv("HOME");
    if (!home || !*home) home = "/tmp";
    char *base = path_join(home, fallback);
    char *dir = path_join(base, "cudojo");
    free(base);
    return dir;
}

char *xdg_data_dir(void) { return xdg_dir("XDG_DATA_HOME", ".local/share"); }

char *xdg_cache_dir(void) { return xdg_dir("XDG_CACHE_HOME", ".cache"); }

typedef struct LruEntry {
    char *path;
    long long mtime_ns;
    uint64_t bytes;
} LruEntry;

static int cmp_lru_entry(const void *a, const void *b) {
    long long x = ((const LruEntry *)a)->mtime_ns, y = ((const LruEntry *)b)->mtime_ns;
    return x < y ? -1 : x > y;
}

void fs_prune_lru(const char *dir, const char *suffix, size_t keep, uint64_t max_bytes, long stale_s) {
    DIR *d = opendir(dir);
    if (!d) return;
    char *tmp_infix = xasprintf("%s.tmp.", suffix);
    size_t sl = strlen(suffix);
    LruEntry *v = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t nl = strlen(e->d_name);
        bool entry = nl > sl && !strcmp(e->d_name + nl - sl, suffix);
        bool tmp = stale_s > 0 && strstr(e->d_name, tmp_infix) != NULL;
        if (!entry && !tmp) continue;
        char *p = path_join(dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        if (tmp) {
            if (now - st.st_mtime > stale_s) unlink(p);
            free(p);
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            v = xrealloc(v, cap * sizeof *v);
        }
        v[n++] = (LruEntry){p, (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, (uint64_t)st.st_size};
        total += (uint64_t)st.st_size;
    }
    closedir(d);
    free(tmp_infix);
    if (n > keep || total > max_bytes) {
        qsort(v, n, sizeof *v, cmp_lru_entry);
        size_t left = n;
        for (size_t i = 0; i < n && (left > keep * 3 / 4 || total > max_bytes / 4 * 3); i++) {
            unlink(v[i].path);
            left--;
            total -= v[i].bytes;
        }
    }
    for (size_t i = 0; i < n; i++) free(v[i].path);
    free(v);
}
