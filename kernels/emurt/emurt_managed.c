/* kernels/emurt/emurt_managed.c: managed memory beyond cudaMallocManaged
 * — prefetch, advice, range attributes, the migrations a kernel's use
 * costs on the timeline — and stream-ordered allocation (cudaMallocAsync,
 * cudaFreeAsync, the default pool). Allocations from cudaMallocManaged
 * follow the page model of emurt_um.c (page faults on the GPU and the CPU,
 * read-mostly duplicates); __managed__ variables, which it does not track,
 * move whole: to the device the first time a kernel uses them, back only
 * through cudaMemPrefetchAsync to the CPU. Preferred location and
 * accessed-by advice are kept, not modeled. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"

cudaError_t cudaMemPrefetchAsync(const void *p, size_t count, struct cudaMemLocation loc, unsigned int flags,
                                 cudaStream_t stream) {
    rt_enter();
    RtStream *s = rt_stream(stream, false);
    RtAlloc *a = rt_alloc_find(p);
    cudaError_t rc = cudaSuccess;
    bool to_dev = loc.type == cudaMemLocationTypeDevice;
    if (!s) rc = cudaErrorInvalidResourceHandle;
    else if (!a || a->kind != RT_MEM_MANAGED || count > a->size - ((uintptr_t)p - a->base)) rc = cudaErrorInvalidValue;
    else if (to_dev && (loc.id < 0 || loc.id >= g_rt.n_dev)) rc = cudaErrorInvalidDevice;
    else if (!to_dev && loc.type != cudaMemLocationTypeHost) rc = cudaErrorInvalidValue;
    else if ((a->last_prefetch = to_dev ? loc.id : cudaCpuDeviceId), rt_um_tracked(p)) {
        size_t moved = rt_um_prefetch(p, count, to_dev);
        if (moved) {
            char name[160];
            snprintf(name, sizeof name, "prefetch %s -> %s", a->name, to_dev ? "device" : "host");
            emu_model_copy(rt_backend(a->dev), to_dev ? COPY_H2D : COPY_D2H, s->dev == a->dev ? s->id : 0, moved,
                           true, name);
        }
    } else if (a->on_device != to_dev && count) {
        char name[160];
        snprintf(name, sizeof name, "prefetch %s -> %s", a->name, to_dev ? "device" : "host");
        emu_model_copy(rt_backend(a->dev), to_dev ? COPY_H2D : COPY_D2H, s->dev == a->dev ? s->id : 0, count, true,
                       name);
        a->on_device = to_dev;
    }
    return rt_leave("cudaMemPrefetchAsync", rc, s ? s->id : 0, "%s, %zu, %s %d, %u, %s", rt_ptr(p), count,
                    to_dev ? "device" : "host", loc.id, flags, s ? rt_stream_name(s) : "?");
}

static int location_id(struct cudaMemLocation loc) {
    return loc.type == cudaMemLocationTypeDevice ? loc.id : loc.type == cudaMemLocationTypeHost ? cudaCpuDeviceId
                                                                                              : cudaInvalidDeviceId;
}

cudaError_t cudaMemAdvise(const void *p, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation loc) {
    rt_enter();
    RtAlloc *a = rt_alloc_find(p);
    cudaError_t rc = cudaSuccess;
    if (!a || a->kind != RT_MEM_MANAGED || count > a->size - ((uintptr_t)p - a->base)) rc = cudaErrorInvalidValue;
    else if (loc.type == cudaMemLocationTypeDevice && (loc.id < 0 || loc.id >= g_rt.n_dev)) rc = cudaErrorInvalidDevice;
    else {
        /* advice is kept per allocation (a GPU keeps it per page range); the cost model does not use it */
        switch (advice) {
        case cudaMemAdviseSetReadMostly: a->read_mostly = true; rt_um_set_read_mostly(p, true); break;
        case cudaMemAdviseUnsetReadMostly: a->read_mostly = false; rt_um_set_read_mostly(p, false); break;
        case cudaMemAdviseSetPreferredLocation: a->preferred = location_id(loc); break;
        case cudaMemAdviseUnsetPreferredLocation: a->preferred = cudaInvalidDeviceId; break;
        case cudaMemAdviseSetAccessedBy: case cudaMemAdviseUnsetAccessedBy: break;
        default: rc = cudaErrorInvalidValue; break;
        }
    }
    return rt_leave("cudaMemAdvise", rc, 0, "%s, %zu, %d, location %d", rt_ptr(p), count, (int)advice, loc.id);
}

cudaError_t cudaMemRangeGetAttribute(void *data, size_t size, enum cudaMemRangeAttribute attr, const void *p,
                                     size_t count) {
    rt_enter();
    RtAlloc *a = rt_alloc_find(p);
    cudaError_t rc = cudaSuccess;
    if (!data || !a || a->kind != RT_MEM_MANAGED || count > a->size - ((uintptr_t)p - a->base)) rc = cudaErrorInvalidValue;
    else if (attr == cudaMemRangeAttributeReadMostly || attr == cudaMemRangeAttributePreferredLocation ||
             attr == cudaMemRangeAttributeLastPrefetchLocation) {
        if (size != sizeof(int)) rc = cudaErrorInvalidValue;
        else {
            int v = attr == cudaMemRangeAttributeReadMostly ? a->read_mostly
                    : attr == cudaMemRangeAttributePreferredLocation ? a->preferred : a->last_prefetch;
            memcpy(data, &v, sizeof v);
        }
    } else rc = cudaErrorInvalidValue;
    return rt_leave("cudaMemRangeGetAttribute", rc, 0, "data, %zu, %d, %s, %zu", size, (int)attr, rt_ptr(p), count);
}

/* Managed memory a kernel is about to use moves to the device first; the
 * kernel waits for its page faults, and reads pinned memory over the link. */
void rt_managed_touch(const unsigned char *params, size_t psize, RtStream *s, LaunchConfig *cfg) {
    cfg->extra_us = rt_um_kernel(params, psize, s);
    cfg->host_fraction = rt_um_host_fraction(params, psize);
    for (size_t off = 0; off + 8 <= psize; off += 8) {
        uintptr_t v;
        memcpy(&v, params + off, 8);
        RtAlloc *a = v ? rt_alloc_find((void *)v) : NULL;
        if (!a || a->kind != RT_MEM_MANAGED || a->on_device || rt_um_tracked((void *)v)) continue;
        char name[160];
        snprintf(name, sizeof name, "migrate %s -> device", a->name);
        emu_model_copy(rt_backend(a->dev), COPY_H2D, s->dev == a->dev ? s->id : 0, a->size, true, name);
        a->on_device = true;
    }
}

/* ---- stream-ordered allocation ------------------------------------------------------------------------------- */
/* One default pool per device; its attributes are kept, not modeled (every
 * cudaMallocAsync is a fresh allocation, every cudaFreeAsync frees once the
 * stream's earlier work is done). */
typedef struct RtPool {
    int dev;
    uint64_t release_threshold, reserved_high, used_high;
    int reuse[3];
} RtPool;

static RtPool g_pools[RT_MAX_DEVICES];

static RtPool *pool_find(cudaMemPool_t p) {
    for (int i = 0; i < g_rt.n_dev; i++)
        if ((cudaMemPool_t)&g_pools[i] == p) return &g_pools[i];
    return NULL;
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int dev) {
    rt_enter();
    cudaError_t rc = !pool ? cudaErrorInvalidValue : dev < 0 || dev >= g_rt.n_dev ? cudaErrorInvalidDevice : cudaSuccess;
    if (!rc) {
        g_pools[dev].dev = dev;
        *pool = (cudaMemPool_t)&g_pools[dev];
    }
    return rt_leave("cudaDeviceGetDefaultMemPool", rc, 0, "&pool, %d", dev);
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int dev) {
    rt_enter();
    cudaError_t rc = !pool ? cudaErrorInvalidValue : dev < 0 || dev >= g_rt.n_dev ? cudaErrorInvalidDevice : cudaSuccess;
    if (!rc) *pool = (cudaMemPool_t)&g_pools[dev];
    return rt_leave("cudaDeviceGetMemPool", rc, 0, "&pool, %d", dev);
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    rt_enter();
    RtPool *p = pool_find(pool);
    cudaError_t rc = !p || !value ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        switch (attr) {
        case cudaMemPoolReuseFollowEventDependencies: p->reuse[0] = *(int *)value; break;
        case cudaMemPoolReuseAllowOpportunistic: p->reuse[1] = *(int *)value; break;
        case cudaMemPoolReuseAllowInternalDependencies: p->reuse[2] = *(int *)value; break;
        case cudaMemPoolAttrReleaseThreshold: p->release_threshold = *(uint64_t *)value; break;
        case cudaMemPoolAttrReservedMemHigh: p->reserved_high = 0; break;
        case cudaMemPoolAttrUsedMemHigh: p->used_high = 0; break;
        default: rc = cudaErrorInvalidValue; break;
        }
    }
    return rt_leave("cudaMemPoolSetAttribute", rc, 0, "pool, %d, value", (int)attr);
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    rt_enter();
    RtPool *p = pool_find(pool);
    cudaError_t rc = !p || !value ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        uint64_t used = g_rt.dev[p->dev].used;
        switch (attr) {
        case cudaMemPoolReuseFollowEventDependencies: *(int *)value = p->reuse[0]; break;
        case cudaMemPoolReuseAllowOpportunistic: *(int *)value = p->reuse[1]; break;
        case cudaMemPoolReuseAllowInternalDependencies: *(int *)value = p->reuse[2]; break;
        case cudaMemPoolAttrReleaseThreshold: *(uint64_t *)value = p->release_threshold; break;
        case cudaMemPoolAttrReservedMemCurrent: case cudaMemPoolAttrUsedMemCurrent: *(uint64_t *)value = used; break;
        case cudaMemPoolAttrReservedMemHigh: case cudaMemPoolAttrUsedMemHigh: *(uint64_t *)value = used; break;
        default: rc = cudaErrorInvalidValue; break;
        }
    }
    return rt_leave("cudaMemPoolGetAttribute", rc, 0, "pool, %d, &value", (int)attr);
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep) {
    rt_enter();
    return rt_leave("cudaMemPoolTrimTo", pool_find(pool) ? cudaSuccess : cudaErrorInvalidValue, 0, "pool, %zu", keep);
}

static cudaError_t malloc_async(void **p, size_t size, cudaStream_t stream, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(stream, ptsz);
    cudaError_t rc = !p ? cudaErrorInvalidValue : !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc && s->capture) rc = cudaErrorStreamCaptureUnsupported;
    if (!rc && !size) *p = NULL;
    else if (!rc) {
        int dev = rt_current_device();
        rt_set_current_device(s->dev);
        rc = rt_device_alloc(p, size, RT_MEM_DEVICE, "cudaMallocAsync", NULL);
        rt_set_current_device(dev);
        if (!rc && rt_poison()) memset(*p, 0xff, size);
    }
    return rt_leave("cudaMallocAsync", rc, s ? s->id : 0, "&%s, %zu, %s", rc || !p ? "?" : rt_out_name(*p), size,
                    s ? rt_stream_name(s) : "?");
}

cudaError_t cudaMallocAsync(void **p, size_t size, cudaStream_t stream) { return malloc_async(p, size, stream, false); }
cudaError_t cudaMallocAsync_ptsz(void **p, size_t size, cudaStream_t stream);
cudaError_t cudaMallocAsync_ptsz(void **p, size_t size, cudaStream_t stream) { return malloc_async(p, size, stream, true); }

static cudaError_t free_async(void *p, cudaStream_t stream, bool ptsz) {
    rt_enter();
    const char *name = rt_ptr(p);
    RtStream *s = rt_stream(stream, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc && s->capture) rc = cudaErrorStreamCaptureUnsupported;
    if (!rc && p) {
        RtAlloc *a = rt_alloc_find(p);
        if (!a || a->base != (uintptr_t)p || a->kind != RT_MEM_DEVICE) rc = cudaErrorInvalidValue;
        else {
            rt_wait_stream(s); /* the stream's earlier work may still use it */
            a = rt_alloc_find(p);
            rc = a ? rt_device_free(a) : cudaErrorInvalidValue;
        }
    }
    return rt_leave("cudaFreeAsync", rc, s ? s->id : 0, "%s, %s", name, s ? rt_stream_name(s) : "?");
}

cudaError_t cudaFreeAsync(void *p, cudaStream_t stream) { return free_async(p, stream, false); }
cudaError_t cudaFreeAsync_ptsz(void *p, cudaStream_t stream);
cudaError_t cudaFreeAsync_ptsz(void *p, cudaStream_t stream) { return free_async(p, stream, true); }
