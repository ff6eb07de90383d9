/* kernels/emurt/emurt_device.c: devices and kernels' attributes —
 * cudaGetDeviceCount/SetDevice/GetDevice over CUDOJO_EMU_DEVICES emulated
 * devices, cudaGetDeviceProperties and cudaDeviceGetAttribute from the
 * emulator's sm_90 profile (an H100/H200-class part), versions, peers,
 * cudaDeviceReset (allocations freed, modules loaded afresh, sticky errors
 * cleared). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/emurt/emurt_internal.h"

static void info_of(int dev, DeviceInfo *o) {
    Backend *b = g_rt.dev[dev].b;
    b->ops->device_info(b, o);
}

cudaError_t cudaGetDeviceCount(int *count) {
    rt_enter_pure();
    if (count) *count = g_rt.n_dev;
    cudaError_t rc = !count ? cudaErrorInvalidValue : g_rt.n_dev ? cudaSuccess : cudaErrorNoDevice;
    return rt_leave("cudaGetDeviceCount", rc, 0, "&count = %d", g_rt.n_dev);
}

cudaError_t cudaGetDevice(int *dev) {
    rt_enter_pure();
    if (dev) *dev = rt_current_device();
    return rt_leave("cudaGetDevice", dev ? cudaSuccess : cudaErrorInvalidValue, 0, "&device = %d", rt_current_device());
}

cudaError_t cudaSetDevice(int dev) {
    rt_enter();
    cudaError_t rc = dev < 0 || dev >= g_rt.n_dev ? cudaErrorInvalidDevice : cudaSuccess;
    if (!rc) rt_set_current_device(dev);
    return rt_leave("cudaSetDevice", rc, 0, "%d", dev);
}

cudaError_t cudaInitDevice(int dev, unsigned int deviceFlags, unsigned int flags) {
    rt_enter();
    cudaError_t rc = dev < 0 || dev >= g_rt.n_dev ? cudaErrorInvalidDevice : cudaSuccess;
    return rt_leave("cudaInitDevice", rc, 0, "%d, %u, %u", dev, deviceFlags, flags);
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    rt_enter();
    g_rt.dev[rt_current_device()].flags = flags;
    return rt_leave("cudaSetDeviceFlags", cudaSuccess, 0, "%u", flags);
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
    rt_enter();
    if (flags) *flags = g_rt.dev[rt_current_device()].flags;
    return rt_leave("cudaGetDeviceFlags", flags ? cudaSuccess : cudaErrorInvalidValue, 0, "&flags");
}

cudaError_t cudaChooseDevice(int *dev, const struct cudaDeviceProp *prop) {
    rt_enter();
    if (dev) *dev = 0;
    return rt_leave("cudaChooseDevice", dev && prop ? cudaSuccess : cudaErrorInvalidValue, 0, "&device, prop");
}

static void fill_props(int dev, struct cudaDeviceProp *p) {
    DeviceInfo i;
    info_of(dev, &i);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", i.name);
    for (int k = 0; k < 16; k++) p->uuid.bytes[k] = (char)(0xc0 + k + dev);
    p->totalGlobalMem = i.global_mem;
    p->sharedMemPerBlock = i.shared_per_block;
    p->regsPerBlock = i.regs_per_block;
    p->warpSize = i.warp_size;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = i.max_threads_per_block;
    for (int k = 0; k < 3; k++) {
        p->maxThreadsDim[k] = i.max_block[k];
        p->maxGridSize[k] = i.max_grid[k];
    }
    p->totalConstMem = 65536;
    p->major = i.cc_major;
    p->minor = i.cc_minor;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = i.sm_count;
    p->canMapHostMemory = 1;
    p->concurrentKernels = 1;
    p->ECCEnabled = 1;
    p->pciBusID = 0x18 + dev;
    p->asyncEngineCount = 2;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = i.mem_bus_width;
    p->l2CacheSize = 50331648;
    p->persistingL2CacheMaxSize = 32505856;
    p->maxThreadsPerMultiProcessor = i.max_threads_per_sm;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = i.shared_per_sm;
    p->regsPerMultiprocessor = i.regs_per_sm;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = i.shared_per_block_optin;
    p->maxBlocksPerMultiProcessor = i.max_blocks_per_sm;
    p->accessPolicyMaxWindowSize = 134213632;
    p->reservedSharedMemPerBlock = 1024;
    p->hostRegisterSupported = 1;
    p->memoryPoolsSupported = 1;
    p->clusterLaunch = 1;
    p->deviceNumaId = -1;
    p->hostNumaId = -1;
}

void rt_device_props(int dev, struct cudaDeviceProp *p) { fill_props(dev, p); }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int dev) {
    rt_enter_pure();
    cudaError_t rc = !prop ? cudaErrorInvalidValue : dev < 0 || dev >= g_rt.n_dev ? cudaErrorInvalidDevice : cudaSuccess;
    if (!rc) fill_props(dev, prop);
    return rt_leave("cudaGetDeviceProperties", rc, 0, "&prop, %d", dev);
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int dev) {
    rt_enter_pure();
    cudaError_t rc = !value ? cudaErrorInvalidValue : dev < 0 || dev >= g_rt.n_dev ? cudaErrorInvalidDevice : cudaSuccess;
    if (!rc) {
        struct cudaDeviceProp p;
        fill_props(dev, &p);
        int v;
        switch (attr) {
        case cudaDevAttrMaxThreadsPerBlock: v = p.maxThreadsPerBlock; break;
        case cudaDevAttrMaxBlockDimX: v = p.maxThreadsDim[0]; break;
        case cudaDevAttrMaxBlockDimY: v = p.maxThreadsDim[1]; break;
        case cudaDevAttrMaxBlockDimZ: v = p.maxThreadsDim[2]; break;
        case cudaDevAttrMaxGridDimX: v = p.maxGridSize[0]; break;
        case cudaDevAttrMaxGridDimY: v = p.maxGridSize[1]; break;
        case cudaDevAttrMaxGridDimZ: v = p.maxGridSize[2]; break;
        case cudaDevAttrMaxSharedMemoryPerBlock: v = (int)p.sharedMemPerBlock; break;
        case cudaDevAttrTotalConstantMemory: v = (int)p.totalConstMem; break;
        case cudaDevAttrWarpSize: v = p.warpSize; break;
        case cudaDevAttrMaxRegistersPerBlock: v = p.regsPerBlock; break;
        case cudaDevAttrClockRate: v = 1980000; break;
        case cudaDevAttrMultiProcessorCount: v = p.multiProcessorCount; break;
        case cudaDevAttrComputeCapabilityMajor: v = p.major; break;
        case cudaDevAttrComputeCapabilityMinor: v = p.minor; break;
        case cudaDevAttrMemoryClockRate: v = 2619000; break;
        case cudaDevAttrGlobalMemoryBusWidth: v = p.memoryBusWidth; break;
        case cudaDevAttrL2CacheSize: v = p.l2CacheSize; break;
        case cudaDevAttrMaxThreadsPerMultiProcessor: v = p.maxThreadsPerMultiProcessor; break;
        case cudaDevAttrAsyncEngineCount: v = p.asyncEngineCount; break;
        case cudaDevAttrUnifiedAddressing: v = 1; break;
        case cudaDevAttrConcurrentKernels: v = 1; break;
        case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = (int)p.sharedMemPerMultiprocessor; break;
        case cudaDevAttrMaxRegistersPerMultiprocessor: v = p.regsPerMultiprocessor; break;
        case cudaDevAttrManagedMemory: v = 1; break;
        case cudaDevAttrConcurrentManagedAccess: v = 1; break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = (int)p.sharedMemPerBlockOptin; break;
        case cudaDevAttrMaxBlocksPerMultiprocessor: v = p.maxBlocksPerMultiProcessor; break;
        case cudaDevAttrReservedSharedMemoryPerBlock: v = (int)p.reservedSharedMemPerBlock; break;
        case cudaDevAttrCooperativeLaunch: v = 1; break;
        case cudaDevAttrCanMapHostMemory: v = 1; break;
        case cudaDevAttrEccEnabled: v = 1; break;
        case cudaDevAttrPciBusId: v = p.pciBusID; break;
        case cudaDevAttrIntegrated: v = 0; break;
        case cudaDevAttrComputeMode: v = cudaComputeModeDefault; break;
        case cudaDevAttrStreamPrioritiesSupported: v = 1; break;
        case cudaDevAttrGlobalL1CacheSupported: v = 1; break;
        case cudaDevAttrLocalL1CacheSupported: v = 1; break;
        case cudaDevAttrMemoryPoolsSupported: v = 1; break;
        case cudaDevAttrHostRegisterSupported: v = 1; break;
        case cudaDevAttrPageableMemoryAccess: v = 0; break;
        case cudaDevAttrTexturePitchAlignment: v = (int)p.texturePitchAlignment; break;
        case cudaDevAttrTextureAlignment: v = (int)p.textureAlignment; break;
        case cudaDevAttrMaxPitch: v = (int)p.memPitch; break;
        case cudaDevAttrKernelExecTimeout: v = 0; break;
        case cudaDevAttrClusterLaunch: v = 1; break;
        case cudaDevAttrHostNativeAtomicSupported: v = 0; break;
        case cudaDevAttrComputePreemptionSupported: v = 1; break;
        case cudaDevAttrCanUseHostPointerForRegisteredMem: v = 1; break;
        case cudaDevAttrMaxPersistingL2CacheSize: v = p.persistingL2CacheMaxSize; break;
        case cudaDevAttrMaxAccessPolicyWindowSize: v = p.accessPolicyMaxWindowSize; break;
        case cudaDevAttrMultiGpuBoardGroupID: v = dev; break;
        case cudaDevAttrGPUDirectRDMASupported: v = 0; break;
        case cudaDevAttrNumaId: case cudaDevAttrHostNumaId: v = -1; break;
        /* another attribute of the enum: the emulator has nothing to say (0), as a GPU without the feature */
        default: v = 0; if ((unsigned)attr >= (unsigned)cudaDevAttrMax) rc = cudaErrorInvalidValue; break;
        }
        *value = v;
    }
    return rt_leave("cudaDeviceGetAttribute", rc, 0, "&value = %d, %d, %d", value && !rc ? *value : 0, (int)attr, dev);
}

cudaError_t cudaDriverGetVersion(int *v) {
    rt_enter();
    if (v) *v = CUDART_VERSION;
    return rt_leave("cudaDriverGetVersion", v ? cudaSuccess : cudaErrorInvalidValue, 0, "&version = %d", CUDART_VERSION);
}

cudaError_t cudaRuntimeGetVersion(int *v) {
    rt_enter();
    if (v) *v = CUDART_VERSION;
    return rt_leave("cudaRuntimeGetVersion", v ? cudaSuccess : cudaErrorInvalidValue, 0, "&version = %d", CUDART_VERSION);
}

/* ---- peers ------------------------------------------------------------------------------------------- */
cudaError_t cudaDeviceCanAccessPeer(int *can, int dev, int peer) {
    rt_enter();
    cudaError_t rc = !can ? cudaErrorInvalidValue
                     : dev < 0 || dev >= g_rt.n_dev || peer < 0 || peer >= g_rt.n_dev ? cudaErrorInvalidDevice
                                                                                        : cudaSuccess;
    if (!rc) *can = dev != peer && !g_rt.no_peer;
    return rt_leave("cudaDeviceCanAccessPeer", rc, 0, "&can, %d, %d", dev, peer);
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
    rt_enter();
    int dev = rt_current_device();
    cudaError_t rc = peer < 0 || peer >= g_rt.n_dev || peer == dev ? cudaErrorInvalidDevice
                     : g_rt.no_peer ? cudaErrorPeerAccessUnsupported
                     : flags ? cudaErrorInvalidValue
                     : g_rt.dev[dev].peer[peer] ? cudaErrorPeerAccessAlreadyEnabled : cudaSuccess;
    if (!rc) g_rt.dev[dev].peer[peer] = true;
    return rt_leave("cudaDeviceEnablePeerAccess", rc, 0, "%d, %u", peer, flags);
}

cudaError_t cudaDeviceDisablePeerAccess(int peer) {
    rt_enter();
    int dev = rt_current_device();
    cudaError_t rc = peer < 0 || peer >= g_rt.n_dev ? cudaErrorInvalidDevice
                     : !g_rt.dev[dev].peer[peer] ? cudaErrorPeerAccessNotEnabled : cudaSuccess;
    if (!rc) g_rt.dev[dev].peer[peer] = false;
    return rt_leave("cudaDeviceDisablePeerAccess", rc, 0, "%d", peer);
}

/* ---- reset ---------------------------------------------------------------------------------------------- */
cudaError_t cudaDeviceReset(void) {
    rt_enter();
    int dev = rt_current_device();
    RtDevice *d = &g_rt.dev[dev];
    rt_flush_output(); /* destroying the context prints what kernels left */
    rt_pool_reset(dev);
    for (int i = g_rt.n_allocs - 1; i >= 0; i--) {
        RtAlloc *a = &g_rt.allocs[i];
        if (a->dev != dev || a->kind == RT_MEM_SYMBOL || a->registered) continue;
        Diag *e = d->b->ops->mem_free(d->b, a->base);
        diag_free(&e);
        rt_alloc_remove(a);
    }
    /* modules load again on next use: __device__ variables get their initial values back */
    for (int i = 0; i < g_rt.n_mods; i++) {
        RtModule *m = g_rt.mods[i];
        if (m->mods[dev]) d->b->ops->module_unload(d->b, &m->mods[dev]);
        m->failed[dev] = false;
    }
    for (int i = g_rt.n_allocs - 1; i >= 0; i--)
        if (g_rt.allocs[i].dev == dev && g_rt.allocs[i].kind == RT_MEM_SYMBOL) rt_alloc_remove(&g_rt.allocs[i]);
    d->used = 0;
    d->sticky = cudaSuccess;
    d->pending_fault = cudaSuccess;
    rt_last_error_set(cudaSuccess);
    Timeline *t = NULL;
    Diag *e = d->b->ops->timeline_get(d->b, &t);
    diag_free(&e);
    if (t) {
        json_t *o = json_object();
        json_object_set_new(o, "timeline", timeline_to_json(t));
        progwire_send("timeline", o);
        timeline_free(&t);
    }
    return rt_leave("cudaDeviceReset", cudaSuccess, 0, "%s", "");
}

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f) {
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}
