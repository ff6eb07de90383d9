/* kernels/host_pool.c: a backend's pool of big host buffers for the Lua
 * arrays (kernels/host_pool.h). A handful of buffers at a time, so plain
 * arrays and linear searches. */
#include "kernels/host_pool.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/number.h"
#include "base/xalloc.h"

typedef struct PoolBuf {
    void *p;
    size_t bytes;            /* its capacity */
    int tag;                 /* the alloc function's */
    unsigned long long seq;  /* when it was given back (idle ones: LRU order) */
} PoolBuf;

struct HostPool {
    size_t cap;
    HostPoolAllocFn alloc;
    HostPoolFreeFn free_fn;
    void *ud;
    PoolBuf *idle, *busy;
    int n_idle, n_busy, cap_idle, cap_busy;
    size_t idle_bytes, busy_bytes;
    unsigned long long seq;
    long long reused, made, freed;
};

HostPool *host_pool_new(size_t cap, HostPoolAllocFn alloc, HostPoolFreeFn free_fn, void *ud) {
    HostPool *p = xcalloc(1, sizeof *p);
    p->cap = cap;
    p->alloc = alloc;
    p->free_fn = free_fn;
    p->ud = ud;
    return p;
}

void host_pool_free(HostPool **pp) {
    HostPool *p = *pp;
    if (!p) return;
    for (int i = 0; i < p->n_idle; i++) p->free_fn(p->ud, p->idle[i].p, p->idle[i].bytes, p->idle[i].tag);
    for (int i = 0; i < p->n_busy; i++) p->free_fn(p->ud, p->busy[i].p, p->busy[i].bytes, p->busy[i].tag);
    free(p->idle);
    free(p->busy);
    free(p);
    *pp = NULL;
}

size_t host_piece_bytes_of(const char *mib) {
    long long mb = 128;
    number_whole(mib, 1, 4096, &mb);
    return (size_t)mb << 20;
}

size_t host_piece_bytes(void) {
    static size_t bytes;
    if (!bytes) bytes = host_piece_bytes_of(getenv("CUDOJO_HOST_PIECE_MB"));
    return bytes;
}

size_t host_piece_len(uintptr_t at, size_t left) {
    size_t to_edge = HOST_PIECE_BYTES - (size_t)(at % HOST_PIECE_BYTES);
    return left < to_edge ? left : to_edge;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23      /* Linux 5.14 */
#endif

void host_pool_populate(void *p, size_t bytes) {
    if (!bytes || madvise(p, bytes, MADV_POPULATE_WRITE) == 0) return;
    /* an older kernel (EINVAL): one write per page does the same */
    long page = sysconf(_SC_PAGESIZE);
    size_t step = page > 0 ? (size_t)page : 4096;
    volatile char *c = p;
    for (size_t at = 0; at < bytes; at += step) c[at] = 0;
}

size_t host_pool_default_cap(void) {
    const char *env = getenv("CUDOJO_HOST_POOL_MB");
    if (env && *env) {
        char *end = NULL;
        unsigned long long mb = strtoull(env, &end, 10);
        if (end && !*end) return mb > (SIZE_MAX >> 20) ? SIZE_MAX : (size_t)mb << 20;
    }
    return host_pool_share_cap(1);
}

size_t host_pool_share_cap(int processes) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t quarter = pages > 0 && page > 0 ? (size_t)pages / 4 * (size_t)page : 0;
    if (processes > 1) quarter /= (size_t)processes;
    return quarter && quarter < HOST_POOL_DEFAULT_CAP ? quarter : HOST_POOL_DEFAULT_CAP;
}

static void push(PoolBuf **v, int *n, int *cap, PoolBuf b) {
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *v = xrealloc(*v, (size_t)*cap * sizeof **v);
    }
    (*v)[(*n)++] = b;
}

void *host_pool_take(HostPool *p, size_t bytes, bool *zeroed) {
    if (!bytes) bytes = 1;
    int best = -1;
    for (int i = 0; i < p->n_idle; i++) {
        size_t b = p->idle[i].bytes;
        if (b < bytes || b / 2 > bytes) continue;
        /* the smallest that fits; of equal ones the most recently given back (still in cache) */
        if (best < 0 || b < p->idle[best].bytes || (b == p->idle[best].bytes && p->idle[i].seq > p->idle[best].seq))
            best = i;
    }
    PoolBuf got;
    if (best >= 0) {
        got = p->idle[best];
        p->idle[best] = p->idle[--p->n_idle];
        p->idle_bytes -= got.bytes;
        p->reused++;
        *zeroed = false;
    } else {
        bool z = false;
        int tag = 0;
        void *m = p->alloc(p->ud, bytes, &z, &tag);
        if (!m) return NULL;
        got = (PoolBuf){m, bytes, tag, 0};
        p->made++;
        *zeroed = z;
    }
    push(&p->busy, &p->n_busy, &p->cap_busy, got);
    p->busy_bytes += got.bytes;
    return got.p;
}

/* Frees idle buffers, least recently given back first, until the idle
 * bytes fit the cap. */
static void trim(HostPool *p) {
    while (p->idle_bytes > p->cap && p->n_idle) {
        int old = 0;
        for (int i = 1; i < p->n_idle; i++)
            if (p->idle[i].seq < p->idle[old].seq) old = i;
        PoolBuf b = p->idle[old];
        p->idle[old] = p->idle[--p->n_idle];
        p->idle_bytes -= b.bytes;
        p->free_fn(p->ud, b.p, b.bytes, b.tag);
        p->freed++;
    }
}

void host_pool_give(HostPool *p, void *buf) {
    if (!buf) return;
    int at = -1;
    for (int i = p->n_busy - 1; i >= 0; i--)
        if (p->busy[i].p == buf) {
            at = i;
            break;
        }
    assert(at >= 0);   /* else not ours: a double give, or a buffer from elsewhere */
    if (at < 0) return;
    PoolBuf b = p->busy[at];
    p->busy[at] = p->busy[--p->n_busy];
    p->busy_bytes -= b.bytes;
    b.seq = ++p->seq;
    push(&p->idle, &p->n_idle, &p->cap_idle, b);
    p->idle_bytes += b.bytes;
    trim(p);
}

void host_pool_stats(const HostPool *p, HostPoolStats *out) {
    *out = (HostPoolStats){p->idle_bytes, p->busy_bytes, p->n_idle, p->n_busy, p->reused, p->made, p->freed, p->cap};
}
