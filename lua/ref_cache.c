/* lua/ref_cache.c: the cache of costly references (ref_cache.h says what
 * and why). An entry's file:
 *
 *   "cudojo-ref\n\0"  u32 format  key[16]  u64 length  u64 0    (48 bytes)
 *   the answer's bytes (length)
 *   XXH3-128 of everything before it                         (16 bytes)
 *
 * written without fsync: a crash can leave a torn file under its final
 * name only if the rename was persisted before the data, and the length
 * and checksum catch exactly that. */
#include "lua/ref_cache.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"

#define MAGIC "cudojo-ref\n"   /* 11 chars + NUL = 12 bytes */
#define FORMAT 1u
#define HEADER 48
#define TRAILER 16
#define SECRET_SIZE 192
#define SECRET_FILE "secret"
/* A temporary file older than this was left by a process that died. */
#define STALE_TMP_S 600
/* What a hit costs beyond hashing: opening the file, and reading plus
 * checksumming the answer (measured ~2 GB/s cold in page cache on the
 * 2-core machine; faster elsewhere, so this errs towards not storing). */
#define HIT_FIXED_MS 0.05
#define HIT_BYTES_PER_MS 2e6

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

RefCacheMode ref_cache_mode(void) {
    const char *e = getenv("CUDOJO_REF_CACHE");
    if (!e || !*e) return REF_CACHE_AUTO;
    if (!strcmp(e, "0") || !strcmp(e, "off")) return REF_CACHE_OFF;
    if (!strcmp(e, "always")) return REF_CACHE_ALWAYS;
    return REF_CACHE_AUTO;
}

char *ref_cache_dir(void) {
    char *base = xdg_cache_dir();
    char *dir = path_join(base, "refs");
    free(base);
    return dir;
}

/* ---- this binary's build id: the reference code's identity ---- */

static unsigned char g_build_id[64];
static size_t g_build_id_len;
static pthread_once_t g_build_id_once = PTHREAD_ONCE_INIT;

/* dl_iterate_phdr's callback: the GNU build id note of the object that
 * holds this function (the program, or a shared library linking us). */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    uintptr_t self = (uintptr_t)&find_build_id;
    bool mine = false;
    for (int i = 0; i < info->dlpi_phnum && !mine; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        mine = ph->p_type == PT_LOAD && self >= lo && self < lo + ph->p_memsz;
    }
    if (!mine) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *n;
            const unsigned char *desc = (const unsigned char *)name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                n->n_descsz <= sizeof g_build_id && (const char *)desc + n->n_descsz <= end) {
                memcpy(g_build_id, desc, n->n_descsz);
                g_build_id_len = n->n_descsz;
                return 1;
            }
            p = (const char *)desc + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 1;
}

static void build_id_init(void) { dl_iterate_phdr(find_build_id, NULL); }

/* ---- the secret ---- */

/* Reads dir's secret, making one when there is none; a damaged one (of
 * the wrong size) is replaced. Of two processes making one at once, both
 * read the winner's (the write never replaces). */
static bool secret_load(const char *dir, unsigned char *out) {
    char *path = path_join(dir, SECRET_FILE);
    bool ok = false;
    for (int attempt = 0; attempt < 3 && !ok; attempt++) {
        char *buf = NULL;
        size_t len = 0;
        Diag *d = fs_read_file_max(path, 4096, &buf, &len);
        ok = !d && len == SECRET_SIZE;
        if (ok) memcpy(out, buf, SECRET_SIZE);
        free(buf);
        diag_free(&d);
        if (ok || attempt == 2) break;
        unsigned char fresh[SECRET_SIZE];
        if (getrandom(fresh, sizeof fresh, 0) != (ssize_t)sizeof fresh) break;
        d = attempt == 0 ? fs_write_file_new(path, fresh, sizeof fresh)
                         : fs_write_file_atomic(path, fresh, sizeof fresh);
        diag_free(&d);
    }
    free(path);
    return ok;
}

/* The secrets this process has loaded, one per cache folder (XDG_CACHE_HOME
 * may change between calls: tests), never freed: a call's hash state keeps
 * a pointer to its secret. */
typedef struct FolderSecret {
    struct FolderSecret *next;
    char *dir;
    unsigned char secret[SECRET_SIZE];
} FolderSecret;

static FolderSecret *g_secrets;
static pthread_mutex_t g_secrets_lock = PTHREAD_MUTEX_INITIALIZER;

/* dir's secret, made and read once per folder (the folder too), whichever
 * thread asks first; NULL when the folder or its secret cannot be made
 * (tried again on the next call). */
static const unsigned char *secret_for(const char *dir) {
    pthread_mutex_lock(&g_secrets_lock);
    FolderSecret *f = g_secrets;
    while (f && strcmp(f->dir, dir)) f = f->next;
    if (!f) {
        Diag *d = fs_mkdir_p(dir);
        f = xcalloc(1, sizeof *f);
        if (!d && secret_load(dir, f->secret)) {
            f->dir = xstrdup(dir);
            f->next = g_secrets;
            g_secrets = f;
        } else {
            free(f);
            f = NULL;
        }
        diag_free(&d);
    }
    pthread_mutex_unlock(&g_secrets_lock);
    return f ? f->secret : NULL;
}

/* ---- a call ---- */

void ref_cache_begin(RefCacheCall *c, const char *fn, int ver, double work) {
    memset(c, 0, sizeof *c);
    c->t_begin = now_ms();
    c->mode = ref_cache_mode();
    if (c->mode == REF_CACHE_OFF || (c->mode == REF_CACHE_AUTO && work < REF_CACHE_MIN_WORK)) return;
    pthread_once(&g_build_id_once, build_id_init);
    if (!g_build_id_len) return;   /* no way to tell this code from another build's: never cache */
    char *dir = ref_cache_dir();
    const unsigned char *secret = secret_for(dir);
    if (!secret) {
        free(dir);
        return;
    }
    c->dir = dir;
    c->active = true;
    c->t_begin = now_ms();   /* a lookup's cost from here: making the directory or the secret is once */
    XXH3_128bits_reset_withSecret(&c->st, secret, SECRET_SIZE);
    ref_cache_add(c, "build", g_build_id, g_build_id_len);
    ref_cache_add(c, "fn", fn, strlen(fn));
    ref_cache_add_u64(c, "version", (uint64_t)ver);
}

void ref_cache_add(RefCacheCall *c, const char *tag, const void *data, size_t len) {
    if (!c->active) return;
    uint64_t n = len;
    XXH3_128bits_update(&c->st, tag, strlen(tag) + 1);
    XXH3_128bits_update(&c->st, &n, sizeof n);
    if (len) XXH3_128bits_update(&c->st, data, len);
}

void ref_cache_add_u64(RefCacheCall *c, const char *tag, uint64_t v) { ref_cache_add(c, tag, &v, sizeof v); }

void ref_cache_add_f64(RefCacheCall *c, const char *tag, double v) { ref_cache_add(c, tag, &v, sizeof v); }

char *ref_cache_entry_path(const RefCacheCall *c) { return path_join(c->dir, c->name); }

static void header_fill(unsigned char h[HEADER], const unsigned char key[16], uint64_t len) {
    memset(h, 0, HEADER);
    memcpy(h, MAGIC, sizeof MAGIC);
    uint32_t f = FORMAT;
    memcpy(h + 12, &f, 4);
    memcpy(h + 16, key, 16);
    memcpy(h + 32, &len, 8);
}

static bool read_full(int fd, void *buf, size_t len) {
    char *p = buf;
    while (len > 0) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        p += r;
        len -= (size_t)r;
    }
    return true;
}

/* out's len bytes from the entry at path, when it is whole and c's. */
static bool entry_read(const RefCacheCall *c, const char *path, void *out, size_t len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    struct stat st;
    unsigned char h[HEADER], want[HEADER], sum[TRAILER];
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == HEADER + (uint64_t)len + TRAILER &&
              read_full(fd, h, HEADER);
    header_fill(want, c->key, len);
    ok = ok && !memcmp(h, want, HEADER) && read_full(fd, out, len) && read_full(fd, sum, TRAILER);
    if (ok) {
        XXH3_state_t s;
        XXH3_128bits_reset(&s);
        XXH3_128bits_update(&s, h, HEADER);
        XXH3_128bits_update(&s, out, len);
        XXH128_canonical_t got;
        XXH128_canonicalFromHash(&got, XXH3_128bits_digest(&s));
        ok = !memcmp(got.digest, sum, TRAILER);
    }
    if (ok) futimens(fd, NULL);   /* least recently used goes first */
    close(fd);
    return ok;
}

bool ref_cache_lookup(RefCacheCall *c, void *out, size_t len) {
    if (!c->active) return false;
    XXH128_canonical_t k;
    XXH128_canonicalFromHash(&k, XXH3_128bits_digest(&c->st));
    memcpy(c->key, k.digest, sizeof c->key);
    for (int i = 0; i < 16; i++) snprintf(c->name + 2 * i, 3, "%02x", c->key[i]);
    strcpy(c->name + 32, ".ref");
    c->hash_ms = now_ms() - c->t_begin;
    char *path = ref_cache_entry_path(c);
    c->hit = entry_read(c, path, out, len);
    free(path);
    c->t_compute = now_ms();
    return c->hit;
}

/* ---- storing and pruning ---- */

/* Keeps the folder within REF_CACHE_KEEP entries (CUDOJO_REF_CACHE_KEEP,
 * for tests) and REF_CACHE_MAX_BYTES, least recently used first, and
 * removes the temporary files of processes that died. */
static void cache_prune(const char *dir) {
    const char *ke = getenv("CUDOJO_REF_CACHE_KEEP");
    size_t keep = ke && atol(ke) > 0 ? (size_t)atol(ke) : REF_CACHE_KEEP;
    fs_prune_lru(dir, ".ref", keep, REF_CACHE_MAX_BYTES, STALE_TMP_S);
}

/* Writes the entry beside its final name and renames it there. */
static bool entry_write(const RefCacheCall *c, const void *data, size_t len) {
    static unsigned counter;
    unsigned char h[HEADER];
    header_fill(h, c->key, len);
    XXH3_state_t s;
    XXH3_128bits_reset(&s);
    XXH3_128bits_update(&s, h, HEADER);
    XXH3_128bits_update(&s, data, len);
    XXH128_canonical_t sum;
    XXH128_canonicalFromHash(&sum, XXH3_128bits_digest(&s));
    char *path = ref_cache_entry_path(c);
    char *tmp = xasprintf("%s.tmp.%ld.%u", path, (long)getpid(), __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 && errno == ENOENT) {   /* the folder, made once per process, was removed since */
        Diag *d = fs_mkdir_p(c->dir);
        diag_free(&d);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    }
    bool ok = fd >= 0;
    if (ok) {
        struct iovec iov[3] = {{h, HEADER}, {(void *)data, len}, {sum.digest, TRAILER}};
        size_t want = HEADER + len + TRAILER, done = 0;
        int k = 0;
        while (ok && done < want) {
            ssize_t w = writev(fd, iov + k, 3 - k);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                ok = false;
                break;
            }
            done += (size_t)w;
            for (size_t left = (size_t)w; left > 0;) {   /* advance past what was written */
                size_t t = left < iov[k].iov_len ? left : iov[k].iov_len;
                iov[k].iov_base = (char *)iov[k].iov_base + t;
                iov[k].iov_len -= t;
                left -= t;
                if (iov[k].iov_len == 0 && k < 2) k++;
            }
        }
        ok = close(fd) == 0 && ok;
        ok = ok && rename(tmp, path) == 0;
        if (!ok) unlink(tmp);
    }
    free(tmp);
    free(path);
    return ok;
}

void ref_cache_store(RefCacheCall *c, const void *data, size_t len) {
    if (c->active && !c->hit && (uint64_t)len + HEADER + TRAILER <= REF_CACHE_MAX_BYTES / 4) {
        double compute_ms = now_ms() - c->t_compute;
        double hit_ms = c->hash_ms + HIT_FIXED_MS + (double)len / HIT_BYTES_PER_MS;
        if (c->mode == REF_CACHE_ALWAYS || compute_ms >= REF_CACHE_GAIN * hit_ms) {
            c->stored = entry_write(c, data, len);
            cache_prune(c->dir);
        }
    }
    ref_cache_end(c);
}

void ref_cache_end(RefCacheCall *c) {
    free(c->dir);
    c->dir = NULL;
    c->active = false;
}
