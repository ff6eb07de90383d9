/* kernels/program_cache.c: the on-disk cache of compiled programs,
 * $XDG_CACHE_HOME/cudojo/nvcc/<sha256>/{<name>, warnings.json}.
 *
 * An entry is built as <sha256>.partXXXXXX beside its final place and
 * renamed whole, so a reader (another worker, another cudojo) sees all of
 * it or nothing; when two compiles of the same program race, the second
 * rename fails, the first entry stands and the second is dropped. A hit
 * touches the entry, and the least recently used go once there are more
 * than CACHE_KEEP; work directories older than an hour (a compile that
 * died) go too.
 *
 * <sha256>.lock beside an entry is its lock (program_cache_lock): a
 * compile that misses holds it while nvcc runs and until the entry is
 * published, so a second compile of the same program (`cudojo grade`'s
 * compile ahead and the worker that reaches the same file) waits for the
 * first and takes its entry instead of running nvcc again. Its holder
 * touches it, and removes it once the entry is there; a failed compile's
 * goes with the dead work dirs after an hour. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/program_internal.h"

/* `cudojo verify --mutants` builds a few hundred programs per pass over the
 * course (each solution and its mutants); with fewer entries the least
 * recently used would be gone by the next pass. An entry is ~60 KB
 * (-cudart shared), so this is ~60 MB at most. */
#define CACHE_KEEP 1024
#define STALE_TEMP_S 3600

typedef struct Entry {
    char *path;
    long long mtime_ns;
} Entry;

static int cmp_mtime(const void *a, const void *b) {
    long long x = ((const Entry *)a)->mtime_ns, y = ((const Entry *)b)->mtime_ns;
    return x < y ? -1 : x > y;
}

static bool is_key_name(const char *s) {
    if (strlen(s) != 64) return false;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'))) return false;
    return true;
}

void program_cache_prune(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    Entry *v = NULL;
    size_t n = 0, cap = 0;
    long long now = (long long)time(NULL) * 1000000000LL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char *p = path_join(dir, e->d_name);
        size_t len = strlen(e->d_name);
        bool lock = len > 5 && !strcmp(e->d_name + len - 5, ".lock");
        if (!strncmp(e->d_name, "tmp-", 4) || strstr(e->d_name, ".part") || lock) {
            if (now - fs_mtime_ns(p) > STALE_TEMP_S * 1000000000LL) {
                if (lock) unlink(p);
                else proc_remove_tree(p);
            }
            free(p);
            continue;
        }
        if (!is_key_name(e->d_name)) {
            free(p);
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            v = xrealloc(v, cap * sizeof *v);
        }
        v[n].path = p;
        v[n].mtime_ns = fs_mtime_ns(p);
        n++;
    }
    closedir(d);
    if (n > CACHE_KEEP) {
        qsort(v, n, sizeof *v, cmp_mtime);
        for (size_t i = 0; i < n - CACHE_KEEP * 3 / 4; i++) proc_remove_tree(v[i].path);
    }
    for (size_t i = 0; i < n; i++) free(v[i].path);
    free(v);
}

Diag *program_cache_warnings(const char *entry) {
    char *p = path_join(entry, "warnings.json");
    json_t *j = json_load_file(p, 0, NULL);
    free(p);
    Diag *w = j ? diag_from_json(j) : NULL;
    json_decref(j);
    return w;
}

static void warnings_store(const char *entry, const Diag *w) {
    char *p = path_join(entry, "warnings.json");
    json_t *j = diag_to_json(w);
    json_dump_file(j, p, JSON_COMPACT);
    json_decref(j);
    free(p);
}

char *program_cache_publish(const char *dir, const char *key, const char *built, const char *name,
                           const Diag *warnings) {
    char *entry = path_join(dir, key);
    char *tmpl = xasprintf("%s.partXXXXXX", entry);
    char *exe = NULL;
    if (mkdtemp(tmpl)) {
        char *dst = path_join(tmpl, name);
        if (rename(built, dst) == 0) {
            warnings_store(tmpl, warnings);
            chmod(tmpl, 0755);
            if (rename(tmpl, entry) == 0 || fs_is_dir(entry))
                exe = path_join(entry, name);
            else
                rename(dst, built);     /* keep it where it was */
        }
        free(dst);
        if (fs_is_dir(tmpl)) proc_remove_tree(tmpl);     /* another compile got there first */
    }
    free(tmpl);
    free(entry);
    return exe;
}


int program_cache_lock(const char *dir, const char *key, double max_wait_ms, double *waited_ms) {
    *waited_ms = 0;
    char *name = xasprintf("%s/%s.lock", dir, key);
    int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    free(name);
    if (fd < 0) return -1;
    double t0 = proc_now_ms();
    /* Polled, not a blocking flock: the wait has a bound, and a signal
       (the grader's Ctrl-C) does not leave it half taken. */
    for (long sleep_ms = 1; flock(fd, LOCK_EX | LOCK_NB) != 0; sleep_ms = sleep_ms < 20 ? sleep_ms * 2 : 20) {
        int e = errno;
        *waited_ms = proc_now_ms() - t0;
        if ((e != EWOULDBLOCK && e != EINTR) || *waited_ms >= max_wait_ms) {
            close(fd);
            return -1;
        }
        nanosleep(&(struct timespec){.tv_nsec = sleep_ms * 1000000L}, NULL);
        *waited_ms = proc_now_ms() - t0;
    }
    futimens(fd, NULL);     /* in use: not stale */
    return fd;
}

void program_cache_unlock(const char *dir, const char *key, int *fd, bool published) {
    if (*fd < 0) return;
    if (published) {
        /* Whoever waits on it finds the entry once it has the lock; whoever comes later finds
           the entry before looking for a lock. A failed compile's stays (stale in an hour). */
        char *name = xasprintf("%s/%s.lock", dir, key);
        unlink(name);
        free(name);
    }
    close(*fd);     /* lets go of the flock */
    *fd = -1;
}
