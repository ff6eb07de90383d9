/* kernels/emurt/emurt_memory.c: memory the runtime hands out — cudaMalloc
 * and friends, pinned and managed allocations — and the runtime's table of
 * it.
 *
 * Device memory is the emulator's (red-zoned, bounds-checked allocations
 * of the device's Backend); the runtime keeps its own table of everything
 * it handed out (device, pinned, managed, module variables) so that
 * cudaMemcpyDefault, cudaPointerGetAttributes and the call records
 * ("alloc1+16") know what a pointer is. Fresh cudaMalloc memory is filled
 * with 0xff bytes (NaN as float, -1 as int): a GPU does not promise zeros,
 * and a program that forgets a copy or a memset should see garbage, not
 * lucky zeros (CUDOJO_EMU_POISON=0 turns this off). Pinned memory is
 * emulator memory too (kernels may read it: zero-copy) and differs from
 * pageable memory only in the cost model. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"

/* ---- the table (looked up by emurt_state.c's rt_alloc_find) ----------------------------------- */
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

bool rt_device_side(const RtAlloc *a) { return a && a->kind != RT_MEM_PINNED; }

bool rt_in_alloc(const RtAlloc *a, const void *p, size_t n) {
    return a && (uintptr_t)p >= a->base && (uintptr_t)p - a->base <= a->size && n <= a->size - ((uintptr_t)p - a->base);
}

/* Whether [p, p+n) lies inside one allocation of the device side. */
bool rt_device_range(const void *p, size_t n, RtAlloc **out) {
    RtAlloc *a = rt_alloc_find(p);
    *out = a;
    return rt_device_side(a) && (uintptr_t)p - a->base <= a->size && n <= a->size - ((uintptr_t)p - a->base);
}

/* ---- allocation -------------------------------------------------------------------------------- */
bool rt_poison(void) {
    const char *v = getenv("CUDOJO_EMU_POISON");
    return !(v && v[0] == '0');
}

/* Device memory the runtime itself wrote: the emulator stops treating those
 * bytes as uninitialised. No-op for other memory. Only rt_mem_copy and
 * rt_mem_fill write, so none can forget it. */
static void mark_written(const void *dst, size_t n) {
    RtAlloc *a = dst && n ? rt_alloc_find(dst) : NULL;
    if (!a || a->kind != RT_MEM_DEVICE) return;
    Backend *b = rt_backend(a->dev);
    if (!b->ops->mem_track_init) return;
    Diag *d = b->ops->mem_track_init(b, (DevPtr)(uintptr_t)dst, n, true);
    diag_free(&d);
}

void rt_mem_copy(void *dst, const void *src, size_t n) {
    if (!n) return;
    memmove(dst, src, n);
    mark_written(dst, n);
}

void rt_mem_fill(void *dst, unsigned value, size_t elem, size_t n) {
    if (!n) return;
    if (elem <= 1) {
        memset(dst, (int)(value & 0xff), n);
    } else {
        unsigned char *p = dst, pat[4];
        memcpy(pat, &value, sizeof pat);     /* the element's bytes, as the program's own store puts them */
        size_t e = elem > sizeof pat ? sizeof pat : elem;
        for (size_t b = 0; b + e <= n; b += e) memcpy(p + b, pat, e);
    }
    mark_written(dst, n);
}

cudaError_t rt_device_alloc(void **p, size_t size, RtMemKind kind, const char *fn, RtAlloc **out) {
    int dev = rt_current_device();
    Backend *b = rt_backend(dev);
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
    if (kind == RT_MEM_DEVICE && b->ops->mem_track_init) {
        /* cudaMalloc memory holds nothing yet: a kernel reading it before a
         * copy, memset or store is reported (uninit-global) */
        e = b->ops->mem_track_init(b, d, size, false);
        diag_free(&e);
    }
    RtAlloc *a = rt_alloc_add((uintptr_t)d, size, dev, kind, label);
    g_rt.dev[dev].used += size;
    if (fn) rt_alloc_name(a, fn);
    if (out) *out = a;
    return cudaSuccess;
}

cudaError_t rt_device_free(RtAlloc *a) {
    if (a->kind == RT_MEM_MANAGED) rt_um_forget(a->base);
    Backend *b = rt_backend(a->dev);
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
const char *rt_out_name(const void *p) {
    RtAlloc *a = p ? rt_alloc_find(p) : NULL;
    return a ? a->name : "NULL";
}

cudaError_t cudaMalloc(void **p, size_t size) {
    rt_enter();
    STICKY_SYNC("cudaMalloc", "%p, %zu", (void *)p, size);
    cudaError_t rc = rt_capture_unsafe_call(); /* it may synchronise: not while a global capture runs */
    if (!rc && !p) rc = cudaErrorInvalidValue;
    else if (!rc && !size) *p = NULL;
    else if (!rc) {
        RtAlloc *a = NULL;
        rc = rt_device_alloc(p, size, RT_MEM_DEVICE, "cudaMalloc", &a);
        if (!rc && rt_poison()) memset(*p, 0xff, size);
    }
    return rt_leave("cudaMalloc", rc, 0, "&%s, %zu", rc || !p ? "?" : rt_out_name(*p), size);
}

cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!p || !pitch) rc = cudaErrorInvalidValue;
    else {
        *pitch = (width + 511) / 512 * 512;
        size_t bytes;
        if (*pitch < width || __builtin_mul_overflow(*pitch, height, &bytes))
            rc = cudaErrorMemoryAllocation;     /* no machine has that much (the product wrapped) */
        else if (!*pitch || !height) *p = NULL;
        else {
            rc = rt_device_alloc(p, *pitch * height, RT_MEM_DEVICE, "cudaMallocPitch", NULL);
            if (!rc && rt_poison()) memset(*p, 0xff, *pitch * height);
        }
    }
    return rt_leave("cudaMallocPitch", rc, 0, "&%s, &pitch=%zu, %zu, %zu", rc || !p ? "?" : rt_out_name(*p),
                    pitch ? *pitch : 0, width, height);
}

cudaError_t cudaMallocHost(void **p, size_t size) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!p) rc = cudaErrorInvalidValue;
    else if (!size) *p = NULL;
    else rc = rt_device_alloc(p, size, RT_MEM_PINNED, "cudaMallocHost|cudaHostAlloc", NULL); /* mapped: kernels may use it (zero-copy) */
    return rt_leave("cudaMallocHost", rc, 0, "&%s, %zu", rc || !p ? "?" : rt_out_name(*p), size);
}

cudaError_t cudaHostAlloc(void **p, size_t size, unsigned int flags) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!p || flags > 0xf) rc = cudaErrorInvalidValue;
    else if (!size) *p = NULL;
    else {
        RtAlloc *a = NULL;
        rc = rt_device_alloc(p, size, RT_MEM_PINNED, "cudaHostAlloc|cudaMallocHost", &a);
        if (!rc) a->flags = flags;
    }
    return rt_leave("cudaHostAlloc", rc, 0, "&%s, %zu, %u", rc || !p ? "?" : rt_out_name(*p), size, flags);
}

cudaError_t cudaFreeHost(void *p) {
    rt_enter();
    const char *name = rt_ptr(p);
    cudaError_t rc = cudaSuccess;
    if (p) {
        RtAlloc *a = rt_alloc_find(p);
        if (!a || a->base != (uintptr_t)p || a->kind != RT_MEM_PINNED || a->registered) rc = cudaErrorInvalidValue;
        else rc = rt_device_free(a);
    }
    return rt_leave("cudaFreeHost", rc, 0, "%s", name);
}

cudaError_t cudaHostRegister(void *p, size_t size, unsigned int flags) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!p || !size) rc = cudaErrorInvalidValue;
    else if (rt_alloc_find(p)) rc = cudaErrorHostMemoryAlreadyRegistered;
    else {
        /* kernels may use it in place (zero copy through cudaHostGetDevicePointer) */
        Backend *b = rt_backend(rt_current_device());
        Diag *d = b->ops->mem_register ? b->ops->mem_register(b, p, size, "registered") : NULL;
        if (d) rc = cudaErrorMemoryAllocation;
        else rt_alloc_add((uintptr_t)p, size, rt_current_device(), RT_MEM_PINNED, NULL)->registered = true;
        diag_free(&d);
    }
    return rt_leave("cudaHostRegister", rc, 0, "%s, %zu, %u", rt_ptr(p), size, flags);
}

cudaError_t cudaHostUnregister(void *p) {
    rt_enter();
    const char *name = rt_ptr(p);
    RtAlloc *a = rt_alloc_find(p);
    cudaError_t rc = cudaSuccess;
    if (!a || !a->registered || a->base != (uintptr_t)p) rc = cudaErrorHostMemoryNotRegistered;
    else {
        Backend *b = rt_backend(a->dev);
        if (b->ops->mem_unregister) b->ops->mem_unregister(b, p);
        rt_alloc_remove(a);
    }
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
    /* what the H200 answered for cudaHostAllocMapped | cudaHostAllocPortable: 0x2 (the driver keeps
     * the mapping, not the portability, which unified addressing implies) */
    else *flags = (a->flags & ~(unsigned)cudaHostAllocPortable) | cudaHostAllocMapped;
    return rt_leave("cudaHostGetFlags", rc, 0, "&flags, %s", rt_ptr(phost));
}

cudaError_t cudaMallocManaged(void **p, size_t size, unsigned int flags) {
    rt_enter();
    cudaError_t rc = cudaSuccess;
    if (!p || !size || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)) rc = cudaErrorInvalidValue;
    else {
        RtAlloc *a = NULL;
        rc = rt_device_alloc(p, size, RT_MEM_MANAGED, "cudaMallocManaged", &a); /* zero-filled, as fresh managed pages are */
        if (!rc && a) rt_um_add(a); /* its pages: where they are, their faults (emurt_um.c) */
    }
    return rt_leave("cudaMallocManaged", rc, 0, "&%s, %zu, %u", rc || !p ? "?" : rt_out_name(*p), size, flags);
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
    rt_enter();
    DeviceInfo info;
    Backend *b = rt_backend(rt_current_device());
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

