/* kernels/emurt/emurt_func.c: what a program asks about its kernels —
 * cudaFuncGetAttributes (registers and stack frame from the fat binary's
 * sm_90 cubin when it has one, else -1: the emulator has no ptxas numbers),
 * cudaFuncSetAttribute (the opt-in to more than 48 KiB of dynamic shared
 * memory is kept and enforced at launch, as on a GPU), occupancy
 * (kernels/occupancy.c over cuda_occupancy.h, on the sm_90 profile), and
 * the device's limits and cache configuration (kept, not modeled). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cubin_info.h"
#include "kernels/emurt/emurt_internal.h"
#include "kernels/occupancy.h"
#include "kernels/profiles.h"

/* ---- kernels' attributes and occupancy ---------------------------------------------------------------------- */
static int func_registers(RtFunc *f, int *local) {
    int regs = -1;
    *local = -1;
    const CubinKernel *k = rt_func_cubin(f);
    if (k) {
        regs = k->registers;
        *local = k->local_bytes;
    }
    return regs;
}

static cudaError_t func_info(const void *func, RtFunc **f, EmuKernelInfo *ki) {
    *f = rt_func_find(func);
    if (!*f) return cudaErrorInvalidDeviceFunction;
    cudaError_t err;
    BackendModule *bm = rt_module_get((*f)->mod, rt_current_device(), &err);
    if (!bm) return err;
    return emu_module_kernel_info(bm, (*f)->name, ki) ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
    rt_enter();
    RtFunc *f;
    EmuKernelInfo ki;
    cudaError_t rc = attr ? func_info(func, &f, &ki) : cudaErrorInvalidValue;
    if (!rc) {
        memset(attr, 0, sizeof *attr);
        int local;
        attr->numRegs = func_registers(f, &local);
        attr->sharedSizeBytes = ki.shared_static;
        attr->localSizeBytes = local >= 0 ? (size_t)local : ki.local_size;
        /* as CUDA: also what the kernel's registers leave room for */
        attr->maxThreadsPerBlock = ki.maxntid ? ki.maxntid : 1024;
        if (rt_max_threads_for_registers(attr->numRegs) < attr->maxThreadsPerBlock)
            attr->maxThreadsPerBlock = rt_max_threads_for_registers(attr->numRegs);
        /* the virtual architecture the kernel's PTX was built for, as CUDA says
           (CUB picks its tuning policy by it, and refuses a launch when it
           differs from the one its kernels were compiled with) */
        attr->ptxVersion = f->mod->ptx_arch ? f->mod->ptx_arch : 80;
        attr->binaryVersion = 90;
        attr->maxDynamicSharedSizeBytes = f->max_dyn_shared ? f->max_dyn_shared : (int)(48 * 1024 - ki.shared_static);
        attr->preferredShmemCarveout = -1;
    }
    return rt_leave("cudaFuncGetAttributes", rc, 0, "&attr, %s", rc ? "?" : f->pretty);
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) {
    rt_enter();
    RtFunc *f;
    EmuKernelInfo ki;
    cudaError_t rc = func_info(func, &f, &ki);
    if (!rc && attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || (size_t)value + ki.shared_static > 227 * 1024) rc = cudaErrorInvalidValue;
        else f->max_dyn_shared = value;
    } else if (!rc && attr == cudaFuncAttributeNonPortableClusterSizeAllowed) {
        f->nonportable_cluster = value != 0;
    } else if (!rc && attr != cudaFuncAttributePreferredSharedMemoryCarveout && attr != cudaFuncAttributeRequiredClusterWidth)
        rc = cudaErrorInvalidValue;
    return rt_leave("cudaFuncSetAttribute", rc, 0, "%s, %d, %d", rc == cudaErrorInvalidDeviceFunction ? "?" : f->pretty,
                    (int)attr, value);
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config) {
    rt_enter();
    RtFunc *f = rt_func_find(func);
    return rt_leave("cudaFuncSetCacheConfig", f ? cudaSuccess : cudaErrorInvalidDeviceFunction, 0, "%s, %d",
                    f ? f->pretty : "?", (int)config);
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config) {
    rt_enter();
    return rt_leave("cudaDeviceSetCacheConfig", cudaSuccess, 0, "%d", (int)config);
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config) {
    rt_enter();
    if (config) *config = cudaFuncCachePreferNone;
    return rt_leave("cudaDeviceGetCacheConfig", config ? cudaSuccess : cudaErrorInvalidValue, 0, "&config");
}

static size_t g_limits[16] = {[cudaLimitStackSize] = 1024, [cudaLimitPrintfFifoSize] = 8650752,
                              [cudaLimitMallocHeapSize] = 8 << 20, [cudaLimitDevRuntimeSyncDepth] = 2,
                              [cudaLimitDevRuntimePendingLaunchCount] = 2048, [cudaLimitMaxL2FetchGranularity] = 32};

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
    rt_enter();
    cudaError_t rc = (unsigned)limit < 16 ? cudaSuccess : cudaErrorUnsupportedLimit;
    if (!rc) g_limits[limit] = value;
    return rt_leave("cudaDeviceSetLimit", rc, 0, "%d, %zu", (int)limit, value);
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit) {
    rt_enter();
    cudaError_t rc = !value ? cudaErrorInvalidValue : (unsigned)limit < 16 ? cudaSuccess : cudaErrorUnsupportedLimit;
    if (!rc) *value = g_limits[limit];
    return rt_leave("cudaDeviceGetLimit", rc, 0, "&value, %d", (int)limit);
}

const struct CubinKernel *rt_func_cubin(const RtFunc *f) {
    return f->mod->cubin_info ? cubin_info_find(f->mod->cubin_info, f->name) : NULL;
}

/* The kernel's registers per thread from the sm_90 cubin built with it; -1 when
 * the program has PTX only (the emulator's own count is not ptxas's). */
int rt_kernel_registers(const RtFunc *f) {
    const CubinKernel *k = rt_func_cubin(f);
    return k ? k->registers : -1;
}

int rt_max_threads_for_registers(int regs) {
    if (regs <= 0) return 1024;
    int per_thread = (regs + SM90_REG_UNIT - 1) / SM90_REG_UNIT * SM90_REG_UNIT;
    int warps = SM90_REGS / (per_thread * 32);
    return warps * 32 > 1024 ? 1024 : warps * 32;
}

cudaError_t rt_blocks_per_sm(RtFunc *f, int block_size, size_t shared, int *out) {
    EmuKernelInfo ki;
    cudaError_t rc = func_info(f->host, &f, &ki);
    if (rc) return rc;
    int local;
    int regs = func_registers(f, &local);
    OccupancyInput in = {block_size, regs > 0 ? regs : 32, ki.shared_static, shared};
    Occupancy occ;
    Diag *d = occupancy_compute(profile_find("sm_90"), &in, &occ);
    if (d) rc = cudaErrorInvalidValue;
    else *out = occ.blocks_per_sm;
    diag_free(&d);
    return rc;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func, int block_size,
                                                                   size_t dyn_smem, unsigned int flags) {
    rt_enter();
    RtFunc *f = rt_func_find(func);
    cudaError_t rc = !blocks ? cudaErrorInvalidValue : !f ? cudaErrorInvalidDeviceFunction
                                                          : rt_blocks_per_sm(f, block_size, dyn_smem, blocks);
    return rt_leave("cudaOccupancyMaxActiveBlocksPerMultiprocessor", rc, 0, "&blocks = %d, %s, %d, %zu, %u",
                    blocks && !rc ? *blocks : 0, rc ? "?" : f->pretty, block_size, dyn_smem, flags);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size,
                                                          size_t dyn_smem) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size, dyn_smem, 0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *smem, const void *func, int num_blocks, int block_size) {
    rt_enter();
    RtFunc *f;
    EmuKernelInfo ki;
    cudaError_t rc = smem && num_blocks > 0 ? func_info(func, &f, &ki) : cudaErrorInvalidValue;
    if (!rc) {
        size_t per = 233472 / (size_t)num_blocks;
        per = per > 1024 + ki.shared_static ? per - 1024 - ki.shared_static : 0;
        *smem = per > 227 * 1024 ? 227 * 1024 : per;
    }
    return rt_leave("cudaOccupancyAvailableDynamicSMemPerBlock", rc, 0, "&smem, func, %d, %d", num_blocks, block_size);
}

cudaError_t cudaFuncGetName(const char **name, const void *func) {
    rt_enter_pure();
    RtFunc *f = rt_func_find(func);
    cudaError_t rc = !name ? cudaErrorInvalidValue : !f ? cudaErrorInvalidDeviceFunction : cudaSuccess;
    if (!rc) *name = f->name; /* the mangled name, as CUDA gives it */
    return rt_leave("cudaFuncGetName", rc, 0, "&name, %s", f ? f->pretty : "?");
}
