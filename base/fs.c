/* base/fs.c: files and paths. */
#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"

Diag *fs_read_file(const char *path, char **out, size_t *len) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return diag_error("io", "cannot read %s: %s", path, strerror(errno));
    StrBuf sb;
    strbuf_init(&sb);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) strbuf_append_n(&sb, buf, n);
    int err = ferror(f);
    fclose(f);
    if (err) {
        strbuf_fini(&sb);
        return diag_error("io", "error while reading %s", path);
    }
    if (len) *len = sb.len;
    *out = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return NULL;
}

Diag *fs_write_file_atomic(const char *path, const void *data, size_t len) {
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        Diag *d = diag_error("io", "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return d;
    }
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            Diag *d = diag_error("io", "cannot write %s: %s", path, strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return d;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        Diag *d = diag_error("io", "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return d;
    }
    free(tmp);
    return NULL;
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
