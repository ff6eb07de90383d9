/* kernels/emurt/emurt_memory.c: memory — cudaMalloc and friends, copies
 * and memsets in every direction, symbols, pinned and managed memory.
 *
 * Device memory is the emulator's (red-zoned, bounds-checked allocations
 * of the device's Backend); the runtime keeps its own table of everything
 * it handed out (device, pinned, managed, module variables) so that
 * cudaMemcpyDefault, cudaPointerGetAttributes and the call records
 * ("alloc1+16") know what a pointer is. Copies are done here, at once and
 * in program order (results are exact), and put on the device's modeled
 * timeline (emu_model_copy). Fresh cudaMalloc memory is filled with 0xff
 * bytes (NaN as float, -1 as int): a GPU does not zero it, and a program
 * that forgets a copy or a memset should see garbage, not lucky zeros
 * (CUDOJO_EMU_POISON=0 turns this off). Pinned memory differs only in the
 * cost model; managed memory moves to the device the first time a kernel
 * uses it (one migration of the allocation on the timeline) and back to
 * the host only through cudaMemPrefetchAsync. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"

/* ---- the table ------------------------------------------------------------------------------- */
static int alloc_index(uintptr_t p) {
    int lo = 0, hi = g_rt.n_allocs - 1, best = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (g_rt.allocs[mid].base <= p) {
            best = mid;
            lo = mid + 1;
        } else hi = mid - 1;
    }
    return best;
}

RtAlloc *rt_alloc_find(const void *p) {
    int i = alloc_index((uintptr_t)p);
    if (i < 0) return NULL;
    RtAlloc *a = &g_rt.allocs[i];
    uintptr_t u = (uintptr_t)p;
    return u < a->base + (a->size ? a->size : 1) ? a : NULL;
}

RtAlloc *rt_alloc_add(uintptr_t base, size_t size, int dev, RtMemKind kind, const char *name) {
    if (g_rt.n_allocs == g_rt.cap_allocs) {
        g_rt.cap_allocs = g_rt.cap_allocs ? g_rt.cap_allocs * 2 : 64;
        g_rt.allocs = xrealloc(g_rt.allocs, sizeof *g_rt.allocs * (size_t)g_rt.cap_allocs);
    }
    int i = g_rt.n_allocs;
    while (i > 0 && g_rt.allocs[i - 1].base > base) {
        g_rt.allocs[i] = g_rt.allocs[i - 1];
        i--;
    }
    RtAlloc *a = &g_rt.allocs[i];
    memset(a, 0, sizeof *a);
    a->base = base;
    a->size = size;
    a->dev = dev;
    a->kind = kind;
    a->id = ++g_rt.next_alloc_id;
    a->preferred = a->last_prefetch = cudaInvalidDeviceId;
    if (name) snprintf(a->name, sizeof a->name, "%s", name);
    else {
        static const char *const PREFIX[] = {"alloc", "managed", "pinned", "symbol"};
        snprintf(a->name, sizeof a->name, "%s%d", PREFIX[kind], a->id);
    }
    g_rt.n_allocs++;
    return a;
}

void rt_alloc_remove(RtAlloc *a) {
    int i = (int)(a - g_rt.allocs);
    memmove(&g_rt.allocs[i], &g_rt.allocs[i + 1], sizeof *a * (size_t)(g_rt.n_allocs - i - 1));
    g_rt.n_allocs--;
}

static bool device_side(const RtAlloc *a) { return a && a->kind != RT_MEM_PINNED; }

/* Whether [p, p+n) lies inside one allocation of the device side. */
static bool device_range(const void *p, size_t n, RtAlloc **out) {
    RtAlloc *a = rt_alloc_find(p);
    *out = a;
    return device_side(a) && (uintptr_t)p - a->base <= a->size && n <= a->size - ((uintptr_t)p - a->base);
}

/* ---- copies ------------------------------------------------------------------------------------ */
static Backend *dev_backend(int dev) { return g_rt.dev[dev].b; }

static int stream_id_for(RtStream *s) { return s ? s->id : 0; }

/* A synchronous call from pinned memory still waits for its copy. */
static void host_waits(int dev, RtStream *s) {
    Backend *b = dev_backend(dev);
    Diag *d = b->ops->stream_synchronize(b, stream_id_for(s));
    diag_free(&d);
}

cudaError_t rt_memcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, RtStream *s, bool sync) {
    if (!n) return cudaSuccess;
    if (!dst || !src) return cudaErrorInvalidValue;
    if ((unsigned)kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    RtAlloc *da, *sa;
    bool dd = device_range(dst, n, &da), sd = device_range(src, n, &sa);
    if (kind == cudaMemcpyDefault) {
        bool dk = device_side(da), sk = device_side(sa);
        kind = sk ? (dk ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                  : (dk ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    }
    bool need_d = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool need_s = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    /* managed memory is fine on either side; a host pointer is never a device pointer */
    if ((need_d && !dd) || (need_s && !sd)) return cudaErrorInvalidValue;
    if (!need_d && da && da->kind == RT_MEM_DEVICE) return cudaErrorInvalidValue;
    if (!need_s && sa && sa->kind == RT_MEM_DEVICE) return cudaErrorInvalidValue;
    int dev = need_d ? da->dev : need_s ? sa->dev : (s ? s->dev : rt_current_device());
    if (s && s->capture) return rt_capture_copy(s, dst, src, n, kind);
    RtStream *eff = s ? s : rt_stream_legacy(dev);
    if (sync) rt_wait_stream(eff);
    else if (rt_queue_needed(eff)) {
        rt_queue_copy(eff, dst, src, n, kind);
        return cudaSuccess;
    }
    memmove(dst, src, n);
    if (kind == cudaMemcpyHostToHost) return cudaSuccess;
    CopyDir dir = kind == cudaMemcpyHostToDevice ? COPY_H2D : kind == cudaMemcpyDeviceToHost ? COPY_D2H : COPY_D2D;
    RtAlloc *host = dir == COPY_H2D ? sa : dir == COPY_D2H ? da : NULL;
    bool pinned = host && host->kind == RT_MEM_PINNED;
    RtAlloc *dv = dir == COPY_H2D ? da : sa;
    char name[160];
    snprintf(name, sizeof name, dir == COPY_H2D ? "copy %s -> device" : dir == COPY_D2H ? "copy %s -> host"
                                                                                        : "copy %s on device",
             dv->name);
    if (s && s->dev != dev) s = NULL;
    emu_model_copy(dev_backend(dev), dir, stream_id_for(s), n, pinned, name);
    if (sync && (pinned || dir == COPY_D2D)) host_waits(dev, s);
    return cudaSuccess;
}

cudaError_t rt_memset(void *dst, int value, size_t n, RtStream *s, bool sync) {
    (void)sync;
    if (!n) return cudaSuccess;
    RtAlloc *a;
    if (!dst || !device_range(dst, n, &a)) return cudaErrorInvalidValue;
    if (s && s->capture) return rt_capture_memset(s, dst, value, n);
    RtStream *eff = s ? s : rt_stream_legacy(a->dev);
    if (rt_queue_needed(eff)) {
        rt_queue_memset(eff, dst, value, n);
        return cudaSuccess;
    }
    memset(dst, value, n);
    char name[160];
    snprintf(name, sizeof name, "memset %s", a->name);
    if (s && s->dev != a->dev) s = NULL;
    /* cudaMemset is asynchronous to the host too (device memory) */
    emu_model_memset(dev_backend(a->dev), stream_id_for(s), n, true, name);
    return cudaSuccess;
}

/* ---- allocation -------------------------------------------------------------------------------- */
static bool poison(void) {
    const char *v = getenv("CUDOJO_EMU_POISON");
    return !(v && v[0] == '0');
}

static cudaError_t device_alloc(void **p, size_t size, RtMemKind kind, RtAlloc **out) {
    int dev = rt_current_device();
    Backend *b = dev_backend(dev);
    DevPtr d = 0;
    char label[32];
    snprintf(label, sizeof label, "%s%d", kind == RT_MEM_MANAGED ? "managed" : kind == RT_MEM_PINNED ? "pinned" : "alloc",
             g_rt.next_alloc_id + 1);
    Diag *e = b->ops->mem_alloc(b, size, label, 0, &d);
    if (e) {
        diag_free(&e);
        *p = NULL;
        return cudaErrorMemoryAllocation;
    }
    *p = (void *)(uintptr_t)d;
    RtAlloc *a = rt_alloc_add((uintptr_t)d, size, dev, kind, label);
    g_rt.dev[dev].used += size;
    if (out) *out = a;
    return cudaSuccess;
}

static cudaError_t device_free(RtAlloc *a) {
    Backend *b = dev_backend(a->dev);
    Diag *d = b->ops->mem_free(b, a->base);
    if (d) {
        diag_free(&d);
        return cudaErrorInvalidValue;
    }
    g_rt.dev[a->dev].used -= a->size < g_rt.dev[a->dev].used ? a->size : g_rt.dev[a->dev].used;
    rt_alloc_remove(a);
    return cudaSuccess;
}

/* "alloc1" for what an allocation call hands back. */
static const char *out_name(const void *p) {
    RtAlloc *a = p ? rt_alloc_find(p) : NULL;
    return a ? a->name : "NULL";
}

#define STICKY_SYNC(fn, fmt, ...)                                                        \
    do {                                                                                 \
        cudaError_t st_ = rt_sticky(rt_current_device(), true);                          \
        if (st_) return rt_leave(fn, st_, 0, fmt, __VA_ARGS__);                          \
    } while (0)

cudaError_t cudaMalloc(void **p, size_t size) {
    rt_enter();
    STICKY_SYNC("cudaMalloc", "%p, %zu", (void *)p, size);
    cudaError_t rc = cudaSuccess;
    if (!p) rc = cudaErrorInvalidValue;
    else if (!size) *p = NULL;
    else {
        RtAlloc *a = NULL;
        rc = device_alloc(p, size, RT_MEM_DEVICE, &a);
        if (!rc && poison()) memset(*p, 0xff, size);
    }
    return rt_leave("cudaMalloc", rc, 0, "&%s, %zu", rc || !p ? "?" : out_name(*p), size);
}

cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!p || !pitch) rc = cudaErrorInvalidValue;
    else {
        *pitch = (width + 511) / 512 * 512;
        if (!*pitch || !height) *p = NULL;
        else {
            rc = device_alloc(p, *pitch * height, RT_MEM_DEVICE, NULL);
            if (!rc && poison()) memset(*p, 0xff, *pitch * height);
        }
    }
    return rt_leave("cudaMallocPitch", rc, 0, "&%s, &pitch=%zu, %zu, %zu", rc || !p ? "?" : out_name(*p),
                    pitch ? *pitch : 0, width, height);
}

cudaError_t cudaFree(void *p) {
    rt_enter();
    const char *name = rt_ptr(p);
    STICKY_SYNC("cudaFree", "%s", name);
    rt_wait_device(-1); /* cudaFree waits for the work that may still use the memory */
    cudaError_t rc = cudaSuccess;
    if (p) {
        RtAlloc *a = rt_alloc_find(p);
        if (!a || a->base != (uintptr_t)p || a->kind == RT_MEM_PINNED || a->kind == RT_MEM_SYMBOL)
            rc = cudaErrorInvalidValue;
        else rc = device_free(a);
    }
    return rt_leave("cudaFree", rc, 0, "%s", name);
}

cudaError_t cudaMallocHost(void **p, size_t size) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!p) rc = cudaErrorInvalidValue;
    else if (!size) *p = NULL;
    else rc = device_alloc(p, size, RT_MEM_PINNED, NULL); /* mapped: kernels may use it (zero-copy) */
    return rt_leave("cudaMallocHost", rc, 0, "&%s, %zu", rc || !p ? "?" : out_name(*p), size);
}

cudaError_t cudaHostAlloc(void **p, size_t size, unsigned int flags) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!p || flags > 0xf) rc = cudaErrorInvalidValue;
    else if (!size) *p = NULL;
    else {
        RtAlloc *a = NULL;
        rc = device_alloc(p, size, RT_MEM_PINNED, &a);
        if (!rc) a->flags = flags;
    }
    return rt_leave("cudaHostAlloc", rc, 0, "&%s, %zu, %u", rc || !p ? "?" : out_name(*p), size, flags);
}

cudaError_t cudaFreeHost(void *p) {
    rt_enter();
    const char *name = rt_ptr(p);
    cudaError_t rc = cudaSuccess;
    if (p) {
        RtAlloc *a = rt_alloc_find(p);
        if (!a || a->base != (uintptr_t)p || a->kind != RT_MEM_PINNED || a->registered) rc = cudaErrorInvalidValue;
        else rc = device_free(a);
    }
    return rt_leave("cudaFreeHost", rc, 0, "%s", name);
}

cudaError_t cudaHostRegister(void *p, size_t size, unsigned int flags) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!p || !size) rc = cudaErrorInvalidValue;
    else if (rt_alloc_find(p)) rc = cudaErrorHostMemoryAlreadyRegistered;
    else rt_alloc_add((uintptr_t)p, size, rt_current_device(), RT_MEM_PINNED, NULL)->registered = true;
    return rt_leave("cudaHostRegister", rc, 0, "%s, %zu, %u", rt_ptr(p), size, flags);
}

cudaError_t cudaHostUnregister(void *p) {
    rt_enter();
    const char *name = rt_ptr(p);
    RtAlloc *a = rt_alloc_find(p);
    cudaError_t rc = cudaSuccess;
    if (!a || !a->registered || a->base != (uintptr_t)p) rc = cudaErrorHostMemoryNotRegistered;
    else rt_alloc_remove(a);
    return rt_leave("cudaHostUnregister", rc, 0, "%s", name);
}

cudaError_t cudaHostGetDevicePointer(void **pdev, void *phost, unsigned int flags) {
    rt_enter();
    RtAlloc *a = rt_alloc_find(phost);
    cudaError_t rc = cudaSuccess;
    if (!pdev || flags) rc = cudaErrorInvalidValue;
    else if (!a || a->kind != RT_MEM_PINNED) rc = cudaErrorInvalidValue;
    else *pdev = phost; /* unified addressing: the same address */
    return rt_leave("cudaHostGetDevicePointer", rc, 0, "&devptr, %s, %u", rt_ptr(phost), flags);
}

cudaError_t cudaHostGetFlags(unsigned int *flags, void *phost) {
    rt_enter();
    RtAlloc *a = rt_alloc_find(phost);
    cudaError_t rc = cudaSuccess;
    if (!flags || !a || a->kind != RT_MEM_PINNED) rc = cudaErrorInvalidValue;
    else *flags = a->flags | cudaHostAllocMapped; /* unified addressing maps all pinned memory */
    return rt_leave("cudaHostGetFlags", rc, 0, "&flags, %s", rt_ptr(phost));
}

cudaError_t cudaMallocManaged(void **p, size_t size, unsigned int flags) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!p || !size || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)) rc = cudaErrorInvalidValue;
    else rc = device_alloc(p, size, RT_MEM_MANAGED, NULL); /* zero-filled, as fresh managed pages are */
    return rt_leave("cudaMallocManaged", rc, 0, "&%s, %zu, %u", rc || !p ? "?" : out_name(*p), size, flags);
}

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
    else if ((a->last_prefetch = to_dev ? loc.id : cudaCpuDeviceId), a->on_device != to_dev && count) {
        char name[160];
        snprintf(name, sizeof name, "prefetch %s -> %s", a->name, to_dev ? "device" : "host");
        emu_model_copy(dev_backend(a->dev), to_dev ? COPY_H2D : COPY_D2H, s->dev == a->dev ? s->id : 0, count, true,
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
        case cudaMemAdviseSetReadMostly: a->read_mostly = true; break;
        case cudaMemAdviseUnsetReadMostly: a->read_mostly = false; break;
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

/* Managed memory a kernel is about to use moves to the device first. */
void rt_managed_touch(const unsigned char *params, size_t psize, RtStream *s) {
    for (size_t off = 0; off + 8 <= psize; off += 8) {
        uintptr_t v;
        memcpy(&v, params + off, 8);
        RtAlloc *a = v ? rt_alloc_find((void *)v) : NULL;
        if (!a || a->kind != RT_MEM_MANAGED || a->on_device) continue;
        char name[160];
        snprintf(name, sizeof name, "migrate %s -> device", a->name);
        emu_model_copy(dev_backend(a->dev), COPY_H2D, s->dev == a->dev ? s->id : 0, a->size, true, name);
        a->on_device = true;
    }
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
    rt_enter();
    DeviceInfo info;
    Backend *b = dev_backend(rt_current_device());
    b->ops->device_info(b, &info);
    size_t used = g_rt.dev[rt_current_device()].used;
    if (free_bytes) *free_bytes = info.global_mem > used ? info.global_mem - used : 0;
    if (total) *total = info.global_mem;
    return rt_leave("cudaMemGetInfo", free_bytes && total ? cudaSuccess : cudaErrorInvalidValue, 0, "&free, &total");
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *p) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!attr) rc = cudaErrorInvalidValue;
    else {
        RtAlloc *a = p ? rt_alloc_find(p) : NULL;
        memset(attr, 0, sizeof *attr);
        attr->type = cudaMemoryTypeUnregistered;
        attr->device = -2;
        if (a) {
            attr->device = a->dev;
            attr->type = a->kind == RT_MEM_PINNED ? cudaMemoryTypeHost
                         : a->kind == RT_MEM_MANAGED ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
            attr->devicePointer = (void *)p;
            if (a->kind == RT_MEM_PINNED || a->kind == RT_MEM_MANAGED) attr->hostPointer = (void *)p;
        }
    }
    return rt_leave("cudaPointerGetAttributes", rc, 0, "&attr, %s", rt_ptr(p));
}

/* ---- copies and memsets --------------------------------------------------------------------------- */
static cudaError_t copy_call(const char *fn, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                             cudaStream_t stream, bool async, bool ptsz) {
    rt_enter();
    char dn[96], sn[96];
    snprintf(dn, sizeof dn, "%s", rt_ptr(dst));
    snprintf(sn, sizeof sn, "%s", rt_ptr(src));
    RtStream *s = async || ptsz ? rt_stream(stream, ptsz) : NULL;
    cudaError_t rc = (async || ptsz) && !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    int sid = s ? s->id : 0;
    if (!rc) rc = rt_sticky(s ? s->dev : rt_current_device(), !async);
    if (!rc) {
        if (!async) rt_flush_output();
        rc = rt_memcpy(dst, src, n, kind, s, !async);
    }
    if (async) return rt_leave(fn, rc, sid, "%s, %s, %zu, %s, %s", dn, sn, n, rt_kind_name(kind), s ? rt_stream_name(s) : "?");
    return rt_leave(fn, rc, sid, "%s, %s, %zu, %s", dn, sn, n, rt_kind_name(kind));
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) {
    return copy_call("cudaMemcpy", dst, src, n, kind, NULL, false, false);
}
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) {
    return copy_call("cudaMemcpy", dst, src, n, kind, cudaStreamPerThread, false, true);
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t st) {
    return copy_call("cudaMemcpyAsync", dst, src, n, kind, st, true, false);
}
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t st);
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t st) {
    return copy_call("cudaMemcpyAsync", dst, src, n, kind, st, true, true);
}

static cudaError_t memset_call(const char *fn, void *dst, int value, size_t n, cudaStream_t stream, bool async,
                               bool ptsz) {
    rt_enter();
    char dn[96];
    snprintf(dn, sizeof dn, "%s", rt_ptr(dst));
    RtStream *s = async || ptsz ? rt_stream(stream, ptsz) : NULL;
    cudaError_t rc = (async || ptsz) && !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc) rc = rt_sticky(s ? s->dev : rt_current_device(), false);
    if (!rc) rc = rt_memset(dst, value, n, s, !async);
    if (async) return rt_leave(fn, rc, s ? s->id : 0, "%s, %d, %zu, %s", dn, value, n, s ? rt_stream_name(s) : "?");
    return rt_leave(fn, rc, 0, "%s, %d, %zu", dn, value, n);
}

cudaError_t cudaMemset(void *dst, int value, size_t n) { return memset_call("cudaMemset", dst, value, n, NULL, false, false); }
cudaError_t cudaMemset_ptds(void *dst, int value, size_t n);
cudaError_t cudaMemset_ptds(void *dst, int value, size_t n) {
    return memset_call("cudaMemset", dst, value, n, cudaStreamPerThread, false, true);
}
cudaError_t cudaMemsetAsync(void *dst, int value, size_t n, cudaStream_t st) {
    return memset_call("cudaMemsetAsync", dst, value, n, st, true, false);
}
cudaError_t cudaMemsetAsync_ptsz(void *dst, int value, size_t n, cudaStream_t st);
cudaError_t cudaMemsetAsync_ptsz(void *dst, int value, size_t n, cudaStream_t st) {
    return memset_call("cudaMemsetAsync", dst, value, n, st, true, true);
}

/* 2D copies: each side's rows `pitch` apart; done row by row, modeled as one copy. */
static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                          enum cudaMemcpyKind kind, RtStream *s, bool sync) {
    if (!width || !height) return cudaSuccess;
    if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
    if (!dst || !src) return cudaErrorInvalidValue;
    /* validate both whole extents first, as one copy of each side's span */
    size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
    RtAlloc *da, *sa;
    bool dd = device_range(dst, dspan, &da), sd = device_range(src, sspan, &sa);
    if (kind == cudaMemcpyDefault)
        kind = device_side(sa) ? (device_side(da) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                               : (device_side(da) ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    if ((unsigned)kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    if (((kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice) && !dd) ||
        ((kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice) && !sd))
        return cudaErrorInvalidValue;
    for (size_t r = 0; r < height; r++)
        memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    if (kind == cudaMemcpyHostToHost) return cudaSuccess;
    CopyDir dir = kind == cudaMemcpyHostToDevice ? COPY_H2D : kind == cudaMemcpyDeviceToHost ? COPY_D2H : COPY_D2D;
    RtAlloc *dv = dir == COPY_H2D || dir == COPY_D2D ? da : sa;
    RtAlloc *host = dir == COPY_H2D ? sa : dir == COPY_D2H ? da : NULL;
    bool pinned = host && host->kind == RT_MEM_PINNED;
    char name[160];
    snprintf(name, sizeof name, "copy2D %s (%zu x %zu)", dv->name, width, height);
    if (s && s->dev != dv->dev) s = NULL;
    emu_model_copy(dev_backend(dv->dev), dir, stream_id_for(s), width * height, pinned, name);
    if (sync && (pinned || dir == COPY_D2D)) host_waits(dv->dev, s);
    return cudaSuccess;
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
    rt_enter();
    char dn[96];
    snprintf(dn, sizeof dn, "%s", rt_ptr(dst));
    cudaError_t rc = rt_sticky(rt_current_device(), true);
    if (!rc) {
        rt_wait_stream(rt_stream_legacy(rt_current_device()));
        rt_flush_output();
        rc = copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, true);
    }
    return rt_leave("cudaMemcpy2D", rc, 0, "%s, %zu, %s, %zu, %zu, %zu, %s", dn, dpitch, rt_ptr(src), spitch, width,
                    height, rt_kind_name(kind));
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t stream) {
    rt_enter();
    char dn[96];
    snprintf(dn, sizeof dn, "%s", rt_ptr(dst));
    RtStream *s = rt_stream(stream, false);
    cudaError_t rc = s ? rt_sticky(s->dev, false) : cudaErrorInvalidResourceHandle;
    if (!rc && s->capture) rc = cudaErrorStreamCaptureUnsupported;
    if (!rc) rc = copy2d(dst, dpitch, src, spitch, width, height, kind, s, false);
    return rt_leave("cudaMemcpy2DAsync", rc, s ? s->id : 0, "%s, %zu, %s, %zu, %zu, %zu, %s, %s", dn, dpitch,
                    rt_ptr(src), spitch, width, height, rt_kind_name(kind), s ? rt_stream_name(s) : "?");
}

cudaError_t cudaMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    RtAlloc *a;
    if (width > pitch) rc = cudaErrorInvalidValue;
    else if (width && height && !device_range(dst, pitch * (height - 1) + width, &a)) rc = cudaErrorInvalidValue;
    else if (width && height) {
        for (size_t r = 0; r < height; r++) memset((char *)dst + r * pitch, value, width);
        emu_model_memset(dev_backend(a->dev), 0, width * height, true, "memset2D");
    }
    return rt_leave("cudaMemset2D", rc, 0, "%s, %zu, %d, %zu, %zu", rt_ptr(dst), pitch, value, width, height);
}

/* ---- symbols ------------------------------------------------------------------------------------------- */
static cudaError_t symbol_copy(const char *fn, const void *symbol, void *host, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, bool to_symbol, cudaStream_t stream, bool async) {
    rt_enter();
    RtVar *v = rt_var_find(symbol);
    RtStream *s = async ? rt_stream(stream, false) : NULL;
    uintptr_t addr = 0;
    size_t size = 0;
    cudaError_t rc = async && !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc) rc = rt_sticky(s ? s->dev : rt_current_device(), !async);
    if (!rc) rc = rt_symbol_address(symbol, &addr, &size);
    if (!rc && (offset > size || count > size - offset)) rc = cudaErrorInvalidValue;
    if (!rc) {
        if (to_symbol && kind == cudaMemcpyDeviceToHost) rc = cudaErrorInvalidMemcpyDirection;
        else if (!to_symbol && kind == cudaMemcpyHostToDevice) rc = cudaErrorInvalidMemcpyDirection;
    }
    if (!rc) {
        if (!async) rt_flush_output();
        void *dev = (void *)(addr + offset);
        rc = to_symbol ? rt_memcpy(dev, host, count, kind, s, !async) : rt_memcpy(host, dev, count, kind, s, !async);
    }
    return rt_leave(fn, rc, s ? s->id : 0, "%s, %s, %zu, %zu, %s", v ? v->name : "(not a symbol)", rt_ptr(host), count,
                    offset, rt_kind_name(kind));
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
    return symbol_copy("cudaMemcpyToSymbol", symbol, (void *)src, count, offset, kind, true, NULL, false);
}
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
    return symbol_copy("cudaMemcpyFromSymbol", symbol, dst, count, offset, kind, false, NULL, false);
}
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
    return symbol_copy("cudaMemcpyToSymbolAsync", symbol, (void *)src, count, offset, kind, true, stream, true);
}
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
    return symbol_copy("cudaMemcpyFromSymbolAsync", symbol, dst, count, offset, kind, false, stream, true);
}

cudaError_t cudaGetSymbolAddress(void **dev, const void *symbol) {
    rt_enter();
    uintptr_t addr = 0;
    size_t size = 0;
    cudaError_t rc = dev ? rt_symbol_address(symbol, &addr, &size) : cudaErrorInvalidValue;
    if (!rc) *dev = (void *)addr;
    RtVar *v = rt_var_find(symbol);
    return rt_leave("cudaGetSymbolAddress", rc, 0, "&devptr, %s", v ? v->name : "(not a symbol)");
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
    rt_enter();
    uintptr_t addr = 0;
    size_t sz = 0;
    cudaError_t rc = size ? rt_symbol_address(symbol, &addr, &sz) : cudaErrorInvalidValue;
    if (!rc) *size = sz;
    RtVar *v = rt_var_find(symbol);
    return rt_leave("cudaGetSymbolSize", rc, 0, "&size, %s", v ? v->name : "(not a symbol)");
}

/* ---- peers ------------------------------------------------------------------------------------------ */
static cudaError_t peer_copy(const char *fn, void *dst, int ddev, const void *src, int sdev, size_t n,
                             cudaStream_t stream, bool async) {
    rt_enter();
    RtStream *s = async ? rt_stream(stream, false) : NULL;
    cudaError_t rc = async && !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    RtAlloc *da, *sa;
    if (!rc && (ddev < 0 || ddev >= g_rt.n_dev || sdev < 0 || sdev >= g_rt.n_dev)) rc = cudaErrorInvalidDevice;
    if (!rc && n && (!device_range(dst, n, &da) || !device_range(src, n, &sa) || da->dev != ddev || sa->dev != sdev))
        rc = cudaErrorInvalidValue;
    if (!rc && n) {
        memmove(dst, src, n);
        char name[200];
        snprintf(name, sizeof name, "peer copy %s (device %d) -> %s (device %d)", sa->name, sdev, da->name, ddev);
        emu_model_copy(dev_backend(sdev), COPY_D2D, s && s->dev == sdev ? s->id : 0, n, true, name);
    }
    return rt_leave(fn, rc, s ? s->id : 0, "%s, %d, %s, %d, %zu", rt_ptr(dst), ddev, rt_ptr(src), sdev, n);
}

cudaError_t cudaMemcpyPeer(void *dst, int ddev, const void *src, int sdev, size_t n) {
    return peer_copy("cudaMemcpyPeer", dst, ddev, src, sdev, n, NULL, false);
}
cudaError_t cudaMemcpyPeerAsync(void *dst, int ddev, const void *src, int sdev, size_t n, cudaStream_t stream) {
    return peer_copy("cudaMemcpyPeerAsync", dst, ddev, src, sdev, n, stream, true);
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
        rc = device_alloc(p, size, RT_MEM_DEVICE, NULL);
        rt_set_current_device(dev);
        if (!rc && poison()) memset(*p, 0xff, size);
    }
    return rt_leave("cudaMallocAsync", rc, s ? s->id : 0, "&%s, %zu, %s", rc || !p ? "?" : out_name(*p), size,
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
            rc = a ? device_free(a) : cudaErrorInvalidValue;
        }
    }
    return rt_leave("cudaFreeAsync", rc, s ? s->id : 0, "%s, %s", name, s ? rt_stream_name(s) : "?");
}

cudaError_t cudaFreeAsync(void *p, cudaStream_t stream) { return free_async(p, stream, false); }
cudaError_t cudaFreeAsync_ptsz(void *p, cudaStream_t stream);
cudaError_t cudaFreeAsync_ptsz(void *p, cudaStream_t stream) { return free_async(p, stream, true); }
