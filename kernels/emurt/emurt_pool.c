/* kernels/emurt/emurt_pool.c: stream-ordered allocation — memory pools
 * (each device's default pool, pools made by cudaMemPoolCreate, the
 * device's current pool set by cudaDeviceSetMemPool), cudaMallocAsync,
 * cudaMallocFromPoolAsync, cudaFreeAsync, the pool attributes and
 * cudaMemPoolTrimTo.
 *
 * A pool holds blocks: emulator allocations it made, each either the
 * program's or free in the pool. cudaFree of a block frees it outright
 * (rt_pool_free_now: the pool's used counter keeps it, as on the H200).
 * cudaFreeAsync gives a block back in
 * stream order (behind a held stream it waits in the queue); the memory
 * stays mapped (reserved), as on a GPU, and a later cudaMallocAsync of the
 * same size reuses it — the same address — once the free has run: at once
 * on the stream that freed it, from another stream when opportunistic
 * reuse is allowed or after a synchronisation. A reused block is fresh
 * memory again (0xff, uninitialised). At each synchronisation
 * (cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize) a
 * pool holding more than its release threshold gives free blocks back;
 * cudaMemPoolTrimTo gives back down to what it is asked to keep. Reserved
 * memory is counted in 2 MiB pieces per block (the GPU maps pool memory in
 * 2 MiB pages), used memory exactly. Not modeled: access from other devices
 * (cudaMemPoolSetAccess), IPC export/import (stubs that say so), a kernel
 * touching a block free in its pool is not caught (a GPU does not either). */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"

#define POOL_MAGIC 0x504f4f4cu      /* "POOL" */
#define POOL_GRANULE ((size_t)2 << 20)

typedef struct PoolBlock {
    uintptr_t base;
    size_t size;
    bool free;                      /* given back by the program (cudaFreeAsync/cudaFree) */
    bool done;                      /* the free has run (it may wait in a stream's queue) */
    bool synced;                    /* a synchronisation since: any stream may reuse it */
    const RtStream *stream;         /* freed on (compared, never dereferenced: it may be destroyed) */
} PoolBlock;

typedef struct RtPool {
    uint32_t magic;
    int dev;
    bool is_default, destroyed;
    uint64_t release_threshold, reserved_high, used_high;
    uint64_t used_by_cudafree;      /* bytes of blocks cudaFree gave back: UsedMemCurrent keeps them */
    int reuse[3];                   /* FollowEventDependencies, AllowOpportunistic, AllowInternalDependencies */
    PoolBlock *blocks;
    int n, cap;
} RtPool;

static RtPool g_default[RT_MAX_DEVICES];
static RtPool *g_current[RT_MAX_DEVICES]; /* cudaDeviceSetMemPool; NULL: the default pool */
static RtPool **g_created;
static int g_n_created;
/* Counts each device's cudaDeviceReset: a free queued before one has nothing left to free. */
static uint64_t g_reset_gen[RT_MAX_DEVICES];

static RtPool *default_pool(int dev) {
    RtPool *p = &g_default[dev];
    if (p->magic != POOL_MAGIC) {
        memset(p, 0, sizeof *p);
        *p = (RtPool){.magic = POOL_MAGIC, .dev = dev, .is_default = true, .reuse = {1, 1, 1}};
    }
    return p;
}

static RtPool *current_pool(int dev) { return g_current[dev] ? g_current[dev] : default_pool(dev); }

static RtPool *pool_find(cudaMemPool_t h) {
    for (int d = 0; d < g_rt.n_dev; d++)
        if ((cudaMemPool_t)&g_default[d] == h) return default_pool(d);
    for (int i = 0; i < g_n_created; i++)
        if ((cudaMemPool_t)g_created[i] == h && !g_created[i]->destroyed) return g_created[i];
    return NULL;
}

static size_t granules(size_t n) { return (n + POOL_GRANULE - 1) / POOL_GRANULE * POOL_GRANULE; }

static uint64_t pool_reserved(const RtPool *p) {
    uint64_t r = 0;
    for (int i = 0; i < p->n; i++) r += granules(p->blocks[i].size);
    return r;
}

static uint64_t pool_used(const RtPool *p) {
    uint64_t u = p->used_by_cudafree;
    for (int i = 0; i < p->n; i++)
        if (!p->blocks[i].free) u += p->blocks[i].size;
    return u;
}

static void note_high(RtPool *p) {
    uint64_t r = pool_reserved(p), u = pool_used(p);
    if (r > p->reserved_high) p->reserved_high = r;
    if (u > p->used_high) p->used_high = u;
}

static PoolBlock *block_of(RtPool *p, uintptr_t base) {
    for (int i = 0; i < p->n; i++)
        if (p->blocks[i].base == base) return &p->blocks[i];
    return NULL;
}

/* Gives block i's memory back (the emulator frees it). */
static void block_release(RtPool *p, int i) {
    RtAlloc *a = rt_alloc_find_any((void *)p->blocks[i].base);
    if (a) {
        a->pool_free = false;
        a->pool = NULL;
        cudaError_t rc = rt_device_free(a);
        (void)rc;
    }
    p->blocks[i] = p->blocks[--p->n];
}

static void pool_free_struct(RtPool *p) {
    for (int i = 0; i < g_n_created; i++)
        if (g_created[i] == p) {
            g_created[i] = g_created[--g_n_created];
            break;
        }
    free(p->blocks);
    free(p);
}

/* Free blocks whose free has run go back until at most `keep` bytes stay reserved. */
static void pool_trim(RtPool *p, uint64_t keep) {
    for (int i = p->n - 1; i >= 0 && pool_reserved(p) > keep; i--)
        if (p->blocks[i].free && p->blocks[i].done) block_release(p, i);
    if (p->destroyed && !p->n) pool_free_struct(p);
}

/* A block of the program's back in its pool (its free has run). */
static void block_freed(RtPool *p, uintptr_t base) {
    PoolBlock *b = block_of(p, base);
    if (!b) return;
    b->done = true;
    RtAlloc *a = rt_alloc_find_any((void *)base);
    if (a) a->pool_free = true;
    if (p->destroyed) pool_trim(p, 0);
}

typedef struct QueuedFree {
    RtPool *pool;                   /* NULL: a cudaMalloc allocation, freed outright */
    uintptr_t base;
    int dev;
    uint64_t reset_gen;             /* g_reset_gen[dev] when queued */
} QueuedFree;

static void free_run(const QueuedFree *q) {
    /* a cudaDeviceReset since freed the pool and the memory (which a later
       allocation may have again: it is not this free's) */
    if (q->reset_gen != g_reset_gen[q->dev]) return;
    if (q->pool) {
        block_freed(q->pool, q->base);
        return;
    }
    RtAlloc *a = rt_alloc_find((void *)q->base);
    if (a && a->base == q->base) {
        cudaError_t rc = rt_device_free(a);
        (void)rc;
    }
}

static void run_queued_free(RtStream *s, RtQOp *op) {
    (void)s;
    free_run(op->blob);
}

/* cudaFree of a pool's block: the memory goes back at once, not to the pool
 * (no reuse: NVIDIA's cuMemFree says to use cuMemFreeAsync "for best
 * performance and memory reuse"), and the pool's ReservedMemCurrent drops;
 * its UsedMemCurrent does not: after cudaFree, a synchronisation and
 * cudaMemPoolTrimTo(0) the H200 said reserved 0, used not 0 (session 9),
 * and right after cudaFree used was not 0 either (session 8). */
cudaError_t rt_pool_free_now(RtAlloc *a) {
    RtPool *p = a->pool;
    PoolBlock *b = block_of(p, a->base);
    if (!b || b->free) return cudaErrorInvalidValue;
    if (!p->destroyed) p->used_by_cudafree += b->size;
    block_release(p, (int)(b - p->blocks));   /* frees a */
    if (p->destroyed && !p->n) pool_free_struct(p);
    return cudaSuccess;
}

/* cudaFree lives here, above the allocation table (emurt_memory.c): an
 * allocation a pool made goes back to its pool, any other to the table. */
cudaError_t cudaFree(void *p) {
    rt_enter();
    const char *name = rt_ptr(p);
    STICKY_SYNC("cudaFree", "%s", name);
    cudaError_t rc = rt_capture_unsafe_call();
    if (!rc) rt_wait_device(-1); /* cudaFree waits for the work that may still use the memory */
    if (!rc && p) {
        RtAlloc *a = rt_alloc_find(p);
        if (!a || a->base != (uintptr_t)p || a->kind == RT_MEM_PINNED || a->kind == RT_MEM_SYMBOL)
            rc = cudaErrorInvalidValue;
        else if (a->pool) rc = rt_pool_free_now(a); /* a stream-ordered allocation: its pool's counters */
        else rc = rt_device_free(a);
    }
    return rt_leave("cudaFree", rc, 0, "%s", name);
}

void rt_pool_sync(int dev) {
    for (int d = 0; d < g_rt.n_dev; d++) {
        if (dev >= 0 && d != dev) continue;
        RtPool *p = default_pool(d);
        for (int i = 0; i < p->n; i++)
            if (p->blocks[i].free && p->blocks[i].done) p->blocks[i].synced = true;
        pool_trim(p, p->release_threshold);
    }
    for (int k = g_n_created - 1; k >= 0; k--) {
        RtPool *p = g_created[k];
        if (dev >= 0 && p->dev != dev) continue;
        for (int i = 0; i < p->n; i++)
            if (p->blocks[i].free && p->blocks[i].done) p->blocks[i].synced = true;
        pool_trim(p, p->release_threshold);
    }
}

void rt_pool_reset(int dev) {
    /* the allocations themselves are freed by cudaDeviceReset; frees still
       queued in held streams find the generation changed and do nothing */
    g_reset_gen[dev]++;
    for (int i = 0; i < g_rt.n_allocs; i++)
        if (g_rt.allocs[i].dev == dev) {
            g_rt.allocs[i].pool = NULL;
            g_rt.allocs[i].pool_free = false;
        }
    free(g_default[dev].blocks);
    g_default[dev].blocks = NULL;
    g_default[dev].n = g_default[dev].cap = 0;
    g_default[dev].magic = 0; /* the default pool's attributes start afresh */
    g_current[dev] = NULL;
    for (int k = g_n_created - 1; k >= 0; k--)
        if (g_created[k]->dev == dev) pool_free_struct(g_created[k]);
}

/* size bytes from pool p for use on s: a free block of that size whose free
 * has run (on s, or anywhere when opportunistic reuse is allowed or after
 * a synchronisation), else a new one. */
static cudaError_t pool_alloc(RtPool *p, void **out, size_t size, RtStream *s, const char *fn) {
    for (int i = 0; i < p->n; i++) {
        PoolBlock *b = &p->blocks[i];
        if (!b->free || !b->done || b->size != size) continue;
        if (b->stream != s && !b->synced && !p->reuse[1]) continue;
        RtAlloc *a = rt_alloc_find_any((void *)b->base);
        if (!a) continue;
        b->free = b->done = b->synced = false;
        b->stream = NULL;
        a->pool_free = false;
        Backend *be = rt_backend(p->dev);
        if (be->ops->mem_track_init) {
            /* fresh memory again: a kernel reading it before writing is reported */
            Diag *e = be->ops->mem_track_init(be, b->base, size, false);
            diag_free(&e);
        }
        if (rt_poison()) memset((void *)b->base, 0xff, size);
        rt_alloc_name(a, fn);
        *out = (void *)b->base;
        note_high(p);
        return cudaSuccess;
    }
    int dev = rt_current_device();
    rt_set_current_device(p->dev);
    RtAlloc *a = NULL;
    cudaError_t rc = rt_device_alloc(out, size, RT_MEM_DEVICE, fn, &a);
    rt_set_current_device(dev);
    if (rc) return rc;
    a->pool = p;
    if (rt_poison()) memset(*out, 0xff, size);
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 8;
        p->blocks = xrealloc(p->blocks, sizeof *p->blocks * (size_t)p->cap);
    }
    p->blocks[p->n++] = (PoolBlock){(uintptr_t)*out, size, false, false, false, NULL};
    note_high(p);
    return cudaSuccess;
}

/* ---- pools -------------------------------------------------------------------------------------------------- */
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int dev) {
    rt_enter();
    cudaError_t rc = !pool ? cudaErrorInvalidValue : dev < 0 || dev >= g_rt.n_dev ? cudaErrorInvalidDevice : cudaSuccess;
    if (!rc) *pool = (cudaMemPool_t)default_pool(dev);
    return rt_leave("cudaDeviceGetDefaultMemPool", rc, 0, "&pool, %d", dev);
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int dev) {
    rt_enter();
    cudaError_t rc = !pool ? cudaErrorInvalidValue : dev < 0 || dev >= g_rt.n_dev ? cudaErrorInvalidDevice : cudaSuccess;
    if (!rc) *pool = (cudaMemPool_t)current_pool(dev);
    return rt_leave("cudaDeviceGetMemPool", rc, 0, "&pool, %d", dev);
}

cudaError_t cudaDeviceSetMemPool(int dev, cudaMemPool_t pool) {
    rt_enter();
    RtPool *p = pool_find(pool);
    cudaError_t rc = dev < 0 || dev >= g_rt.n_dev ? cudaErrorInvalidDevice
                     : !p || p->dev != dev        ? cudaErrorInvalidValue
                                                  : cudaSuccess;
    if (!rc) g_current[dev] = p->is_default ? NULL : p;
    return rt_leave("cudaDeviceSetMemPool", rc, 0, "%d, pool", dev);
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const struct cudaMemPoolProps *props) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!pool || !props || props->allocType != cudaMemAllocationTypePinned) rc = cudaErrorInvalidValue;
    else if (props->location.type != cudaMemLocationTypeDevice) {
        fflush(stdout);
        fprintf(stderr, "cudojo's emulator runtime: cudaMemPoolCreate makes pools of device memory only "
                        "(location type %d is not supported)\n", (int)props->location.type);
        rc = cudaErrorNotSupported;
    } else if (props->location.id < 0 || props->location.id >= g_rt.n_dev) rc = cudaErrorInvalidDevice;
    else {
        RtPool *p = xcalloc(1, sizeof *p);
        *p = (RtPool){.magic = POOL_MAGIC, .dev = props->location.id, .reuse = {1, 1, 1}};
        g_created = xrealloc(g_created, sizeof *g_created * (size_t)(g_n_created + 1));
        g_created[g_n_created++] = p;
        *pool = (cudaMemPool_t)p;
    }
    return rt_leave("cudaMemPoolCreate", rc, 0, "&pool, {device %d}", props ? props->location.id : -1);
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
    rt_enter();
    RtPool *p = pool_find(pool);
    cudaError_t rc = !p || p->is_default ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        /* the device's current pool goes back to the default one; blocks the
           program still holds are given back when it frees them */
        if (g_current[p->dev] == p) g_current[p->dev] = NULL;
        p->destroyed = true;
        pool_trim(p, 0);
    }
    return rt_leave("cudaMemPoolDestroy", rc, 0, "pool");
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    rt_enter();
    RtPool *p = pool_find(pool);
    cudaError_t rc = !p || !value ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        switch (attr) {
        case cudaMemPoolReuseFollowEventDependencies: p->reuse[0] = *(int *)value != 0; break;
        case cudaMemPoolReuseAllowOpportunistic: p->reuse[1] = *(int *)value != 0; break;
        case cudaMemPoolReuseAllowInternalDependencies: p->reuse[2] = *(int *)value != 0; break;
        case cudaMemPoolAttrReleaseThreshold: p->release_threshold = *(uint64_t *)value; break;
        /* a high watermark can only be reset (to the current value), by setting 0 */
        case cudaMemPoolAttrReservedMemHigh:
            if (*(uint64_t *)value) rc = cudaErrorInvalidValue;
            else p->reserved_high = pool_reserved(p);
            break;
        case cudaMemPoolAttrUsedMemHigh:
            if (*(uint64_t *)value) rc = cudaErrorInvalidValue;
            else p->used_high = pool_used(p);
            break;
        default: rc = cudaErrorInvalidValue; break; /* the current figures are read-only */
        }
    }
    return rt_leave("cudaMemPoolSetAttribute", rc, 0, "pool, %d, value", (int)attr);
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    rt_enter();
    RtPool *p = pool_find(pool);
    cudaError_t rc = !p || !value ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        switch (attr) {
        case cudaMemPoolReuseFollowEventDependencies: *(int *)value = p->reuse[0]; break;
        case cudaMemPoolReuseAllowOpportunistic: *(int *)value = p->reuse[1]; break;
        case cudaMemPoolReuseAllowInternalDependencies: *(int *)value = p->reuse[2]; break;
        case cudaMemPoolAttrReleaseThreshold: *(uint64_t *)value = p->release_threshold; break;
        case cudaMemPoolAttrReservedMemCurrent: *(uint64_t *)value = pool_reserved(p); break;
        case cudaMemPoolAttrReservedMemHigh: *(uint64_t *)value = p->reserved_high; break;
        case cudaMemPoolAttrUsedMemCurrent: *(uint64_t *)value = pool_used(p); break;
        case cudaMemPoolAttrUsedMemHigh: *(uint64_t *)value = p->used_high; break;
        default: rc = cudaErrorInvalidValue; break;
        }
    }
    return rt_leave("cudaMemPoolGetAttribute", rc, 0, "pool, %d, &value", (int)attr);
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep) {
    rt_enter();
    RtPool *p = pool_find(pool);
    if (p) pool_trim(p, keep);
    return rt_leave("cudaMemPoolTrimTo", p ? cudaSuccess : cudaErrorInvalidValue, 0, "pool, %zu", keep);
}

/* ---- allocation and free in stream order ---------------------------------------------------------------------- */
static cudaError_t malloc_async(const char *fn, void **p, size_t size, cudaMemPool_t pool, bool from_pool,
                                cudaStream_t stream, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(stream, ptsz);
    RtPool *pl = from_pool ? pool_find(pool) : s ? current_pool(s->dev) : NULL;
    cudaError_t rc = !p || (from_pool && !pl) ? cudaErrorInvalidValue : !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc) rc = rt_sticky(s->dev, false);
    if (!rc && s->capture) rc = cudaErrorStreamCaptureUnsupported;
    if (!rc && !size) *p = NULL;
    else if (!rc) rc = pool_alloc(pl, p, size, s, "cudaMallocAsync|cudaMallocFromPoolAsync");
    return rt_leave(fn, rc, s ? s->id : 0, "&%s, %zu, %s", rc || !p ? "?" : rt_out_name(*p), size,
                    s ? rt_stream_name(s) : "?");
}

cudaError_t cudaMallocAsync(void **p, size_t size, cudaStream_t stream) {
    return malloc_async("cudaMallocAsync", p, size, NULL, false, stream, false);
}
cudaError_t cudaMallocAsync_ptsz(void **p, size_t size, cudaStream_t stream);
cudaError_t cudaMallocAsync_ptsz(void **p, size_t size, cudaStream_t stream) {
    return malloc_async("cudaMallocAsync", p, size, NULL, false, stream, true);
}
cudaError_t cudaMallocFromPoolAsync(void **p, size_t size, cudaMemPool_t pool, cudaStream_t stream) {
    return malloc_async("cudaMallocFromPoolAsync", p, size, pool, true, stream, false);
}
cudaError_t cudaMallocFromPoolAsync_ptsz(void **p, size_t size, cudaMemPool_t pool, cudaStream_t stream);
cudaError_t cudaMallocFromPoolAsync_ptsz(void **p, size_t size, cudaMemPool_t pool, cudaStream_t stream) {
    return malloc_async("cudaMallocFromPoolAsync", p, size, pool, true, stream, true);
}

static cudaError_t free_async(void *p, cudaStream_t stream, bool ptsz) {
    rt_enter();
    const char *name = rt_ptr(p);
    RtStream *s = rt_stream(stream, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc && s->capture) rc = cudaErrorStreamCaptureUnsupported;
    if (!rc && p) {
        RtAlloc *a = rt_alloc_find(p);
        PoolBlock *b = a && a->pool ? block_of(a->pool, a->base) : NULL;
        if (!a || a->base != (uintptr_t)p || a->kind != RT_MEM_DEVICE || (b && b->free)) rc = cudaErrorInvalidValue;
        else {
            /* given back now (a second free is refused), usable again once
               the stream's earlier work is done: the free keeps stream order */
            QueuedFree q = {a->pool, a->base, a->dev, g_reset_gen[a->dev]};
            if (b) *b = (PoolBlock){b->base, b->size, true, false, false, s};
            if (rt_queue_needed(s)) rt_queue_call(s, &q, sizeof q, run_queued_free);
            else free_run(&q);
        }
    }
    return rt_leave("cudaFreeAsync", rc, s ? s->id : 0, "%s, %s", name, s ? rt_stream_name(s) : "?");
}

cudaError_t cudaFreeAsync(void *p, cudaStream_t stream) { return free_async(p, stream, false); }
cudaError_t cudaFreeAsync_ptsz(void *p, cudaStream_t stream);
cudaError_t cudaFreeAsync_ptsz(void *p, cudaStream_t stream) { return free_async(p, stream, true); }
