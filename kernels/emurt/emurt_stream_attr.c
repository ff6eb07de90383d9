/* kernels/emurt/emurt_stream_attr.c: calls that tune the GPU rather than
 * compute — stream attributes (the L2 access policy window, the
 * synchronization policy, the priority), cudaCtxResetPersistingL2Cache,
 * cudaStreamAttachMemAsync, cudaThreadExchangeStreamCaptureMode, the PCI
 * bus id, the deprecated shared memory bank configuration. Each is checked
 * as CUDA checks it and kept, so a program reads back what it set; none
 * changes the model (the emulator has no persisting L2 lines, every stream
 * is waited for the same way, attached managed memory stays global). */
#include <stdio.h>
#include <string.h>

#include "kernels/emurt/emurt_internal.h"

static cudaError_t stream_get_attr(cudaStream_t st, cudaStreamAttrID attr, cudaStreamAttrValue *v, bool ptsz) {
    rt_enter_pure();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !v ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        memset(v, 0, sizeof *v);
        switch (attr) {
        case cudaStreamAttributeAccessPolicyWindow: v->accessPolicyWindow = s->apw; break;
        case cudaStreamAttributeSynchronizationPolicy: v->syncPolicy = (enum cudaSynchronizationPolicy)s->sync_policy; break;
        case cudaStreamAttributePriority: v->priority = s->priority; break;
        case cudaStreamAttributeMemSyncDomainMap: v->memSyncDomainMap.remote = 1; break;
        case cudaStreamAttributeMemSyncDomain: break;
        default: rc = cudaErrorInvalidValue; break;
        }
    }
    return rt_leave("cudaStreamGetAttribute", rc, s ? s->id : 0, "%s, %d, &value", s ? rt_stream_name(s) : "?",
                    (int)attr);
}

cudaError_t cudaStreamGetAttribute(cudaStream_t st, cudaStreamAttrID attr, cudaStreamAttrValue *v) {
    return stream_get_attr(st, attr, v, false);
}
cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t st, cudaStreamAttrID attr, cudaStreamAttrValue *v);
cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t st, cudaStreamAttrID attr, cudaStreamAttrValue *v) {
    return stream_get_attr(st, attr, v, true);
}

/* The window's limits are the device's (accessPolicyMaxWindowSize). */
static cudaError_t window_check(const struct cudaAccessPolicyWindow *w) {
    struct cudaDeviceProp p;
    rt_device_props(rt_current_device(), &p);
    if (w->num_bytes > (size_t)p.accessPolicyMaxWindowSize || !(w->hitRatio >= 0.0f && w->hitRatio <= 1.0f)) return cudaErrorInvalidValue;
    if ((unsigned)w->hitProp > cudaAccessPropertyPersisting || (unsigned)w->missProp > cudaAccessPropertyPersisting)
        return cudaErrorInvalidValue;
    if (w->missProp == cudaAccessPropertyPersisting) return cudaErrorInvalidValue;
    return cudaSuccess;
}

static cudaError_t stream_set_attr(cudaStream_t st, cudaStreamAttrID attr, const cudaStreamAttrValue *v, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !v ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        switch (attr) {
        case cudaStreamAttributeAccessPolicyWindow:
            rc = window_check(&v->accessPolicyWindow);
            if (!rc) s->apw = v->accessPolicyWindow;
            break;
        case cudaStreamAttributeSynchronizationPolicy:
            rc = (unsigned)v->syncPolicy > cudaSyncPolicyBlockingSync ? cudaErrorInvalidValue : cudaSuccess;
            if (!rc) s->sync_policy = (int)v->syncPolicy;
            break;
        case cudaStreamAttributePriority:
            /* clamped to the device's range, as at creation */
            s->priority = v->priority > 0 ? 0 : v->priority < -5 ? -5 : v->priority;
            break;
        case cudaStreamAttributeMemSyncDomainMap:
        case cudaStreamAttributeMemSyncDomain: break;
        default: rc = cudaErrorInvalidValue; break;
        }
    }
    return rt_leave("cudaStreamSetAttribute", rc, s ? s->id : 0, "%s, %d, &value", s ? rt_stream_name(s) : "?",
                    (int)attr);
}

cudaError_t cudaStreamSetAttribute(cudaStream_t st, cudaStreamAttrID attr, const cudaStreamAttrValue *v) {
    return stream_set_attr(st, attr, v, false);
}
cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t st, cudaStreamAttrID attr, const cudaStreamAttrValue *v);
cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t st, cudaStreamAttrID attr, const cudaStreamAttrValue *v) {
    return stream_set_attr(st, attr, v, true);
}

static cudaError_t stream_copy_attrs(cudaStream_t dst, cudaStream_t src, bool ptsz) {
    rt_enter();
    RtStream *d = rt_stream(dst, ptsz), *s = rt_stream(src, ptsz);
    cudaError_t rc = !d || !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc) {
        d->apw = s->apw;
        d->sync_policy = s->sync_policy;
        d->priority = s->priority;
    }
    return rt_leave("cudaStreamCopyAttributes", rc, d ? d->id : 0, "%s, %s", d ? rt_stream_name(d) : "?",
                    s ? rt_stream_name(s) : "?");
}

cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) { return stream_copy_attrs(dst, src, false); }
cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src);
cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src) { return stream_copy_attrs(dst, src, true); }

/* No persisting lines to reset: the emulator's L2 model has none. */
cudaError_t cudaCtxResetPersistingL2Cache(void) {
    rt_enter();
    return rt_leave("cudaCtxResetPersistingL2Cache", rt_sticky(rt_current_device(), false), 0, "%s", "");
}

/* Managed memory attached to a stream (UnifiedMemoryStreams): checked and
 * accepted; every managed allocation stays visible to every stream. */
static cudaError_t attach_mem(cudaStream_t st, void *p, size_t length, unsigned flags, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    RtAlloc *a = rt_alloc_find(p);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : rt_sticky(s->dev, false);
    /* the whole allocation holding p: length 0 or its size (not a part of it) */
    if (!rc && (!a || a->kind != RT_MEM_MANAGED || (length && length != a->size)))
        rc = cudaErrorInvalidValue;
    if (!rc && flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle)
        rc = cudaErrorInvalidValue;
    if (!rc && flags == cudaMemAttachSingle && !s->id) rc = cudaErrorInvalidValue;
    return rt_leave("cudaStreamAttachMemAsync", rc, s ? s->id : 0, "%s, %s, %zu, %u", s ? rt_stream_name(s) : "?",
                    rt_ptr(p), length, flags);
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t st, void *p, size_t length, unsigned int flags) {
    return attach_mem(st, p, length, flags, false);
}
cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t st, void *p, size_t length, unsigned int flags);
cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t st, void *p, size_t length, unsigned int flags) {
    return attach_mem(st, p, length, flags, true);
}

/* The calling thread's capture interaction mode (CUDA's default: global). */
static __thread int t_capture_mode = cudaStreamCaptureModeGlobal;

int rt_thread_capture_mode(void) { return t_capture_mode; }

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode) {
    rt_enter_pure();
    cudaError_t rc = !mode || (unsigned)*mode > cudaStreamCaptureModeRelaxed ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        int old = t_capture_mode;
        t_capture_mode = (int)*mode;
        *mode = (enum cudaStreamCaptureMode)old;
    }
    return rt_leave("cudaThreadExchangeStreamCaptureMode", rc, 0, "&mode");
}

/* "0000:18:00.0": domain, bus, device of cudaGetDeviceProperties. */
cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int dev) {
    rt_enter_pure();
    struct cudaDeviceProp p;
    cudaError_t rc = !id || len <= 0 ? cudaErrorInvalidValue : dev < 0 || dev >= g_rt.n_dev ? cudaErrorInvalidDevice
                                                                                            : cudaSuccess;
    if (!rc) rt_device_props(dev, &p);
    if (!rc) snprintf(id, (size_t)len, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
    return rt_leave("cudaDeviceGetPCIBusId", rc, 0, "id, %d, %d", len, dev);
}

/* "domain:bus:device.function" or "bus:device.function", hexadecimal. */
cudaError_t cudaDeviceGetByPCIBusId(int *dev, const char *id) {
    rt_enter_pure();
    unsigned dom = 0, bus = 0, devno = 0, fn = 0;
    cudaError_t rc = !dev || !id ? cudaErrorInvalidValue : cudaErrorInvalidDevice;
    if (!rc || rc == cudaErrorInvalidDevice) {
        if (sscanf(id, "%x:%x:%x.%x", &dom, &bus, &devno, &fn) < 3) {
            dom = 0;
            if (sscanf(id, "%x:%x.%x", &bus, &devno, &fn) < 2) rc = cudaErrorInvalidValue;
        }
    }
    for (int d = 0; rc == cudaErrorInvalidDevice && d < g_rt.n_dev; d++) {
        struct cudaDeviceProp p;
        rt_device_props(d, &p);
        if ((unsigned)p.pciDomainID == dom && (unsigned)p.pciBusID == bus &&
            (unsigned)p.pciDeviceID == devno) {
            *dev = d;
            rc = cudaSuccess;
        }
    }
    return rt_leave("cudaDeviceGetByPCIBusId", rc, 0, "&dev, \"%s\"", id ? id : "(null)");
}

/* Bank size: fixed 4 bytes since Maxwell; setting it is accepted and changes nothing. */
cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config) {
    rt_enter_pure();
    cudaError_t rc = (unsigned)config > cudaSharedMemBankSizeEightByte ? cudaErrorInvalidValue : cudaSuccess;
    return rt_leave("cudaDeviceSetSharedMemConfig", rc, 0, "%d", (int)config);
}

cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *config) {
    rt_enter_pure();
    if (config) *config = cudaSharedMemBankSizeFourByte;
    return rt_leave("cudaDeviceGetSharedMemConfig", config ? cudaSuccess : cudaErrorInvalidValue, 0, "&config");
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config) {
    rt_enter_pure();
    cudaError_t rc = !rt_func_find(func) ? cudaErrorInvalidDeviceFunction
                     : (unsigned)config > cudaSharedMemBankSizeEightByte ? cudaErrorInvalidValue : cudaSuccess;
    return rt_leave("cudaFuncSetSharedMemConfig", rc, 0, "func, %d", (int)config);
}
