/* kernels/emurt/emurt_managed.c: managed memory beyond cudaMallocManaged
 * — prefetch, advice, range attributes, the migrations a kernel's use
 * costs on the timeline. Allocations from cudaMallocManaged
 * follow the page model of emurt_um.c (page faults on the GPU and the CPU,
 * read-mostly duplicates); __managed__ variables, which it does not track,
 * move whole: to the device the first time a kernel uses them, back only
 * through cudaMemPrefetchAsync to the CPU. Preferred location and
 * accessed-by advice are kept, not modeled. Stream-ordered allocation
 * (cudaMallocAsync, pools) is emurt_pool.c. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"

/* A prefetch, validated (arguments for the stream's queue too). */
typedef struct Prefetch {
    const void *p;
    size_t count;
    bool to_dev;
    int dev;                        /* the destination device (to_dev) */
} Prefetch;

static void prefetch_do(const Prefetch *pf, RtStream *s) {
    RtAlloc *a = rt_alloc_find(pf->p);
    if (!a || a->kind != RT_MEM_MANAGED) return; /* freed while it waited */
    a->last_prefetch = pf->to_dev ? pf->dev : cudaCpuDeviceId;
    if (rt_um_tracked(pf->p)) {
        size_t moved = rt_um_prefetch(pf->p, pf->count, pf->to_dev);
        if (moved) {
            char name[160];
            snprintf(name, sizeof name, "prefetch %s -> %s", a->name, pf->to_dev ? "device" : "host");
            emu_model_copy(rt_backend(a->dev), pf->to_dev ? COPY_H2D : COPY_D2H, s->dev == a->dev ? s->id : 0, moved,
                           true, name);
        }
    } else if (a->on_device != pf->to_dev && pf->count) {
        char name[160];
        snprintf(name, sizeof name, "prefetch %s -> %s", a->name, pf->to_dev ? "device" : "host");
        emu_model_copy(rt_backend(a->dev), pf->to_dev ? COPY_H2D : COPY_D2H, s->dev == a->dev ? s->id : 0,
                       pf->count, true, name);
        a->on_device = pf->to_dev;
    }
}

static void run_queued_prefetch(RtStream *s, RtQOp *op) { prefetch_do(op->blob, s); }

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
    else {
        /* in stream order: behind a held stream the pages move when its turn comes */
        Prefetch pf = {p, count, to_dev, loc.id};
        if (rt_queue_needed(s)) rt_queue_call(s, &pf, sizeof pf, run_queued_prefetch);
        else prefetch_do(&pf, s);
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
