/* kernels/cuda/cuda_diag.c: turning CUDA's errors into advice.
 *
 * "an illegal memory access was encountered" tells a learner nothing they
 * can act on. Each error CUDA can raise at a launch is worded here as what
 * happened and what to do next (usually: run on the emulator, which names
 * the line and the thread). Launch limits are checked before CUDA sees them
 * so the message can name the number that is too big. The PTX parameter
 * list is read so a wrong argument count or size is caught before the
 * kernel reads garbage. None of this needs a GPU. */
#include <cuda_runtime_api.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/cuda_internal.h"

#define EMU_HINT "Run with --backend=emu to find the line and the thread."

static bool is_sticky(int err) {
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
        return true;
    default:
        return false;
    }
}

Diag *cuda_error_diag(int err, const char *err_text, const char *what, const char *kernel,
                      const char *file, const LaunchConfig *cfg, int regs, const DeviceInfo *dev,
                      bool *sticky) {
    bool lost = is_sticky(err);
    if (sticky) *sticky = lost;
    char *k = kernel ? xasprintf("kernel %s", kernel) : xstrdup("the kernel");
    char *m = NULL;
    switch (err) {
    case cudaErrorIllegalAddress:
        m = xasprintf("%s made an illegal memory access: it read or wrote outside every "
                      "allocation (an index past the end of an array, a missing `if (i < n)`, or "
                      "a host pointer passed as an argument). " EMU_HINT, k);
        break;
    case cudaErrorMisalignedAddress:
        m = xasprintf("%s made a misaligned memory access: an address was not a multiple of the "
                      "size loaded or stored (a float4 or double read through a pointer offset by "
                      "a few bytes). " EMU_HINT, k);
        break;
    case cudaErrorAssert:
        m = xasprintf("an assert() in %s failed; its message is in the kernel's output.", k);
        break;
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidPc:
    case cudaErrorInvalidAddressSpace:
        m = xasprintf("%s stopped on an invalid instruction (%s): a __trap(), or a corrupted "
                      "function pointer or stack. " EMU_HINT, k, err_text);
        break;
    case cudaErrorHardwareStackError:
        m = xasprintf("%s overflowed its call stack: deep or unbounded recursion, or very large "
                      "local arrays.", k);
        break;
    case cudaErrorLaunchFailure:
        m = xasprintf("%s stopped abnormally (%s): a __trap() or asm(\"trap;\") in the kernel, or "
                      "a fault the GPU could not name. " EMU_HINT, k, err_text);
        break;
    case cudaErrorLaunchTimeout:
        m = xasprintf("%s ran too long and was stopped by the watchdog: look for a loop that never "
                      "ends (an index that never advances, a wait on another block).", k);
        break;
    case cudaErrorLaunchOutOfResources:
        if (cfg && regs > 0 && dev) {
            unsigned threads = cfg->block.x * cfg->block.y * cfg->block.z;
            m = xasprintf("too many resources requested for launch: %s uses %d registers per "
                          "thread × %u threads per block = %u, but a block can have at most %d. "
                          "Use smaller blocks, or add __launch_bounds__(%u) so the compiler "
                          "uses fewer registers.",
                          k, regs, threads, (unsigned)regs * threads, dev->regs_per_block, threads);
        } else {
            m = xasprintf("too many resources requested for launch of %s: the block needs more "
                          "registers or shared memory than one SM has. Use smaller blocks.", k);
        }
        break;
    case cudaErrorInvalidConfiguration:
        m = cfg ? xasprintf("invalid launch configuration for %s: grid (%u,%u,%u), block "
                            "(%u,%u,%u), %zu bytes of dynamic shared memory. A block has at most "
                            "1024 threads, and every dimension must be at least 1.",
                            k, cfg->grid.x, cfg->grid.y, cfg->grid.z, cfg->block.x, cfg->block.y,
                            cfg->block.z, cfg->shared_bytes)
                : xasprintf("invalid launch configuration for %s", k);
        break;
    case cudaErrorCooperativeLaunchTooLarge:
        m = xasprintf("%s: too many blocks for a cooperative launch (all blocks must be resident "
                      "at once).", k);
        break;
    case cudaErrorMemoryAllocation:
        m = xasprintf("out of GPU memory%s%s", what ? " in " : "", what ? what : "");
        break;
    case cudaErrorInsufficientDriver:
    case cudaErrorNoDevice:
        m = xasprintf("no GPU: %s", err_text);
        break;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidPtx:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorJitCompilerNotFound:
        m = xasprintf("the NVIDIA driver could not load the compiled code (%s): the driver is "
                      "probably older than the CUDA toolkit that compiled it. Update the driver, "
                      "or use --backend=emu.", err_text);
        break;
    case cudaErrorSymbolNotFound:
    case cudaErrorSharedObjectSymbolNotFound:
        m = xasprintf("%s is not in the compiled module (%s)", k, err_text);
        break;
    default:
        m = xasprintf("%s%s%s failed: %s", what ? what : "a CUDA call", kernel ? " for " : "",
                      kernel ? kernel : "", err_text);
        break;
    }
    Diag *d = diag_new(DIAG_ERROR, lost ? CUDA_DIAG_STICKY : "gpu", file, 0, 0, "%s%s", m,
                       lost ? " (The GPU context is lost after this error: the worker restarts.)" : "");
    free(m);
    free(k);
    return d;
}

Diag *cuda_check_launch(const DeviceInfo *dev, const LaunchConfig *cfg, const char *kernel,
                        const char *file, int regs) {
    const unsigned g[3] = {cfg->grid.x, cfg->grid.y, cfg->grid.z};
    const unsigned b[3] = {cfg->block.x, cfg->block.y, cfg->block.z};
    static const char axis[3] = {'x', 'y', 'z'};
    for (int i = 0; i < 3; i++)
        if (!g[i] || !b[i])
            return diag_new(DIAG_ERROR, "gpu-launch", file, 0, 0,
                            "%s: grid (%u,%u,%u) and block (%u,%u,%u) must be at least 1 in every "
                            "dimension",
                            kernel, g[0], g[1], g[2], b[0], b[1], b[2]);
    unsigned long long threads = (unsigned long long)b[0] * b[1] * b[2];
    if (dev->max_threads_per_block > 0 && threads > (unsigned long long)dev->max_threads_per_block)
        return diag_new(DIAG_ERROR, "gpu-launch", file, 0, 0,
                        "block too large: (%u,%u,%u) is %llu threads; at most %d threads per "
                        "block. Use a smaller block and more blocks in the grid.",
                        b[0], b[1], b[2], threads, dev->max_threads_per_block);
    for (int i = 0; i < 3; i++) {
        if (dev->max_block[i] > 0 && b[i] > (unsigned)dev->max_block[i])
            return diag_new(DIAG_ERROR, "gpu-launch", file, 0, 0,
                            "block.%c = %u is too large: at most %d threads in %c", axis[i], b[i],
                            dev->max_block[i], axis[i]);
        if (dev->max_grid[i] > 0 && g[i] > (unsigned)dev->max_grid[i])
            return diag_new(DIAG_ERROR, "gpu-launch", file, 0, 0,
                            "grid.%c = %u is too large: at most %d blocks in %c%s", axis[i], g[i],
                            dev->max_grid[i], axis[i],
                            i ? " (put the large dimension in x, which allows 2147483647)" : "");
    }
    size_t smem_max = dev->shared_per_block_optin ? dev->shared_per_block_optin : dev->shared_per_block;
    if (smem_max && cfg->shared_bytes > smem_max)
        return diag_new(DIAG_ERROR, "gpu-launch", file, 0, 0,
                        "the launch of %s asks for %zu bytes of dynamic shared memory; a block can "
                        "have at most %zu bytes on this GPU",
                        kernel, cfg->shared_bytes, smem_max);
    if (regs > 0 && dev->regs_per_block > 0 && (unsigned long long)regs * threads > (unsigned long long)dev->regs_per_block) {
        bool sticky;
        return cuda_error_diag(cudaErrorLaunchOutOfResources, "too many resources requested for launch",
                               "launch", kernel, file, cfg, regs, dev, &sticky);
    }
    return NULL;
}

/* ---- PTX parameters ---- */

static size_t ptx_type_size(const char *t, size_t len) {
    /* .u8 .s8 .b8 .u16 .f16 .b32 .f32 .u64 .f64 ... : the digits are the bit width. */
    size_t i = 0;
    while (i < len && !isdigit((unsigned char)t[i])) i++;
    int bits = i < len ? atoi(t + i) : 0;
    return bits >= 8 ? (size_t)bits / 8 : 0;
}

int cuda_ptx_params(const char *ptx, const char *entry, size_t *sizes, int max) {
    size_t elen = strlen(entry);
    const char *p = ptx;
    for (p = strstr(p, ".entry"); p; p = strstr(p + 6, ".entry")) {
        const char *q = p + 6;
        while (*q == ' ' || *q == '\t') q++;
        if (!strncmp(q, entry, elen) && (q[elen] == '(' || isspace((unsigned char)q[elen]))) {
            p = q + elen;
            break;
        }
    }
    if (!p) return -1;
    while (*p && isspace((unsigned char)*p)) p++;
    if (*p != '(') return 0;            /* no parameter list */
    const char *end = strchr(p, ')');
    if (!end) return -1;
    int n = 0;
    for (const char *s = strstr(p, ".param"); s && s < end; s = strstr(s + 6, ".param")) {
        /* .param [.align N] .TYPE name[ [COUNT] ] */
        const char *t = s + 6;
        size_t size = 0, count = 1;
        for (;;) {
            while (*t == ' ' || *t == '\t') t++;
            if (!strncmp(t, ".align", 6)) {
                t += 6;
                while (*t == ' ' || *t == '\t' || isdigit((unsigned char)*t)) t++;
                continue;
            }
            if (!strncmp(t, ".ptr", 4)) {           /* .ptr .global .align N: attributes */
                t += 4;
                continue;
            }
            break;
        }
        size_t tl = strcspn(t, " \t\r\n,)");
        size = ptx_type_size(t, tl);
        const char *name_end = t + tl;
        const char *comma = strpbrk(name_end, ",)");
        const char *br = strchr(name_end, '[');
        if (br && comma && br < comma) count = (size_t)strtoull(br + 1, NULL, 10);
        if (n < max) sizes[n] = size * (count ? count : 1);
        n++;
    }
    return n;
}

Diag *cuda_check_args(const char *ptx, const char *lowered, const char *kernel, const char *file,
                      const KernelArg *args, int nargs) {
    size_t sizes[64];
    int n = ptx ? cuda_ptx_params(ptx, lowered, sizes, 64) : -1;
    if (n < 0) return NULL;             /* unknown layout: let CUDA decide */
    if (n != nargs)
        return diag_new(DIAG_ERROR, "gpu-args", file, 0, 0,
                        "kernel %s takes %d argument%s but the launch passes %d", kernel, n,
                        n == 1 ? "" : "s", nargs);
    for (int i = 0; i < n && i < 64; i++)
        if (sizes[i] && args[i].size != sizes[i])
            return diag_new(DIAG_ERROR, "gpu-args", file, 0, 0,
                            "argument %d of kernel %s is %zu bytes but the kernel's parameter is %zu "
                            "bytes (%s)",
                            i + 1, kernel, args[i].size, sizes[i],
                            sizes[i] == 8 ? "a pointer or a 64-bit number"
                            : sizes[i] == 4 ? "a 32-bit int or float"
                                            : "check the parameter's type");
    return NULL;
}
