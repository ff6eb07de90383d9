/* kernels/occupancy.c: theoretical occupancy with the toolkit's
 * cuda_occupancy.h, plus the sentence that tells the learner why.
 *
 * cuda_occupancy.h is written to be usable from C: every function is
 * `static inline`, the C++ constructors sit behind __cplusplus, and it
 * compiles cleanly as C11 with -Wall -Wextra -Wshadow -Wstrict-prototypes
 * -Wmissing-prototypes -pedantic under gcc 12 and clang 14 (checked; only
 * -Wconversion, which we do not use, warns). The one trap for C users is
 * that a zeroed cudaOccDeviceState means carveout 0 % = "prefer L1", so the
 * state is set to SHAREDMEM_CARVEOUT_DEFAULT explicitly.
 *
 * Dynamic shared memory follows what the GPU backend does: a launch whose
 * static + dynamic shared memory is above shared_per_block (48 KiB) opts in,
 * up to shared_per_block_optin.
 *
 * The limiter's name and the sentence are English (they go into check
 * messages and --json); their words and formats are marked N_() so the
 * workbench shows them in Chinese (base/i18n.h: _() and i18n_message). */
#include <cuda_occupancy.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/i18n.h"
#include "kernels/occupancy.h"

const char *occupancy_limiter_name(OccupancyLimiter l) {
    switch (l) {
    case OCCUPANCY_LIMIT_WARPS: return N_("warps");
    case OCCUPANCY_LIMIT_REGISTERS: return N_("registers");
    case OCCUPANCY_LIMIT_SHARED: return N_("shared memory");
    case OCCUPANCY_LIMIT_BLOCKS: return N_("blocks");
    case OCCUPANCY_LIMIT_BARRIERS: return N_("barriers");
    case OCCUPANCY_LIMIT_BLOCK_SIZE: return N_("block size");
    case OCCUPANCY_LIMIT_NONE: break;
    }
    return N_("none");
}

static void to_occ_prop(const DeviceProfile *p, cudaOccDeviceProp *o) {
    memset(o, 0, sizeof *o);
    o->computeMajor = p->cc_major;
    o->computeMinor = p->cc_minor;
    o->maxThreadsPerBlock = p->max_threads_per_block;
    o->maxThreadsPerMultiprocessor = p->max_warps_per_sm * p->warp_size;
    o->regsPerBlock = p->regs_per_block;
    o->regsPerMultiprocessor = p->regs_per_sm;
    o->warpSize = p->warp_size;
    o->sharedMemPerBlock = p->shared_per_block;
    o->sharedMemPerMultiprocessor = p->shared_per_sm;
    o->numSms = p->sm_count;
    o->sharedMemPerBlockOptin = p->shared_per_block_optin;
    o->reservedSharedMemPerBlock = p->shared_reserved;
}

static int no_limit(int v) { return v == INT_MAX ? -1 : v; }

/* "48 KiB" or "1.5 KiB" or "200 B". */
static void fmt_bytes(char *buf, size_t n, size_t b) {
    if (b < 1024) snprintf(buf, n, "%zu B", b);
    else if (b % 1024 == 0) snprintf(buf, n, "%zu KiB", b / 1024);
    else snprintf(buf, n, "%.1f KiB", (double)b / 1024.0);
}

static void explain(const DeviceProfile *p, const OccupancyInput *in, Occupancy *o) {
    char *e = o->explanation;
    size_t n = sizeof o->explanation;
    int wpb = (in->block + p->warp_size - 1) / p->warp_size;
    char shared[32], sm_shared[32], limit[32];
    fmt_bytes(shared, sizeof shared, o->shared_per_block);
    fmt_bytes(sm_shared, sizeof sm_shared, p->shared_per_sm);
    const char *fits = o->blocks_per_sm == 1 ? N_(" block fits") : N_(" blocks fit");
    char tail[96];
    snprintf(tail, sizeof tail, N_("%d of %d warps, %.0f%%"), o->warps_per_sm, o->max_warps_per_sm, o->occupancy * 100);
    switch (o->limiter) {
    case OCCUPANCY_LIMIT_BLOCK_SIZE:
        snprintf(e, n, N_("A block of %d threads is more than the %d threads a block may have on %s: the launch fails."),
                 in->block, p->max_threads_per_block, p->arch);
        return;
    case OCCUPANCY_LIMIT_REGISTERS:
        if (o->blocks_per_sm == 0) {
            if (in->registers > p->max_regs_per_thread)
                snprintf(e, n, N_("%d registers per thread is more than the %d a thread may have: the launch fails."),
                         in->registers, p->max_regs_per_thread);
            else
                snprintf(e, n, N_("A block of %d threads at %d registers each needs %d registers, more than the %d one "
                                  "block may have on %s: the launch fails (too many resources requested). Use "
                                  "smaller blocks or fewer registers (__launch_bounds__)."),
                         in->block, in->registers, o->registers_per_block, p->regs_per_block, p->arch);
            return;
        }
        snprintf(e, n, N_("Each thread uses %d registers, so a block of %d threads takes %d of the SM's %d registers: "
                          "only %d%s (%s). Fewer registers per thread (__launch_bounds__, simpler code) would let more "
                          "blocks in."),
                 in->registers, in->block, o->registers_per_block, p->regs_per_sm, o->blocks_per_sm, fits, tail);
        return;
    case OCCUPANCY_LIMIT_SHARED:
        if (o->blocks_per_sm == 0) {
            fmt_bytes(limit, sizeof limit, p->shared_per_block_optin);
            snprintf(e, n, N_("A block needs %s of shared memory, more than the %s one block may have on %s: the "
                              "launch fails."),
                     shared, limit, p->arch);
            return;
        }
        snprintf(e, n, N_("Each block takes %s of shared memory (static + dynamic + %zu B the driver reserves, rounded "
                          "up to %zu B); the SM has %s, so only %d%s (%s). Less shared memory per block would let "
                          "more blocks in."),
                 shared, p->shared_reserved, p->shared_alloc_unit, sm_shared, o->blocks_per_sm, fits, tail);
        return;
    case OCCUPANCY_LIMIT_BLOCKS:
        snprintf(e, n, N_("Blocks of %d threads (%d warp%s) are small: an SM runs at most %d blocks at a time, so only "
                          "%d of its %d warp slots are used (%.0f%%). Bigger blocks would fill it."),
                 in->block, wpb, wpb == 1 ? "" : "s", p->max_blocks_per_sm, o->warps_per_sm, o->max_warps_per_sm,
                 o->occupancy * 100);
        return;
    case OCCUPANCY_LIMIT_BARRIERS:
        snprintf(e, n, N_("The SM has barriers for %d blocks of this kernel, so only %d fit (%s)."), o->limit_barriers,
                 o->blocks_per_sm, tail);
        return;
    case OCCUPANCY_LIMIT_WARPS:
        if (o->warps_per_sm == o->max_warps_per_sm)
            snprintf(e, n, N_("Each block of %d threads is %d warp%s and %d block%s all %d warp slots of the SM "
                              "(100%%): nothing else limits this launch."),
                     in->block, wpb, wpb == 1 ? "" : "s", o->blocks_per_sm, o->blocks_per_sm == 1 ? " fills" : "s fill",
                     o->max_warps_per_sm);
        else
            snprintf(e, n, N_("Each block of %d threads is %d warps; the SM holds %d warps, so %d%s and the rest of the "
                              "warp slots stay empty (%s). A block size that divides %d warps would fill it."),
                     in->block, wpb, o->max_warps_per_sm, o->blocks_per_sm, fits, tail, o->max_warps_per_sm);
        return;
    case OCCUPANCY_LIMIT_NONE: break;
    }
    snprintf(e, n, "%s", tail);
}

Diag *occupancy_compute(const DeviceProfile *p, const OccupancyInput *in, Occupancy *out) {
    memset(out, 0, sizeof *out);
    if (in->block < 1) return diag_error("occupancy", "occupancy: block must be at least 1 thread, got %d", in->block);
    if (in->registers < 0)
        return diag_error("occupancy", "occupancy: registers per thread unknown (%d); it needs a cubin build",
                          in->registers);
    cudaOccDeviceProp prop;
    to_occ_prop(p, &prop);
    cudaOccFuncAttributes attr;
    memset(&attr, 0, sizeof attr);
    attr.maxThreadsPerBlock = p->max_threads_per_block;
    attr.numRegs = in->registers;
    attr.sharedSizeBytes = in->shared_static;
    attr.partitionedGCConfig = PARTITIONED_GC_OFF;
    attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    /* The runtime's default is what is left of the 48 KiB after static
     * shared memory; the backend raises it to the launch's size when static
     * + dynamic go above 48 KiB (cudaFuncAttributeMaxDynamicSharedMemorySize). */
    size_t dflt = p->shared_per_block > in->shared_static ? p->shared_per_block - in->shared_static : 0;
    attr.maxDynamicSharedSizeBytes = in->shared_dynamic > dflt ? in->shared_dynamic : dflt;
    attr.numBlockBarriers = 1;
    cudaOccDeviceState state;
    memset(&state, 0, sizeof state);
    state.cacheConfig = CACHE_PREFER_NONE;
    state.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;
    cudaOccResult r;
    memset(&r, 0, sizeof r);
    cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state, in->block, in->shared_dynamic);
    if (err == CUDA_OCC_ERROR_UNKNOWN_DEVICE)
        return diag_error("occupancy", "occupancy: cuda_occupancy.h does not know %s (it knows up to sm_%d%d)", p->arch,
                          __CUDA_OCC_MAJOR__, __CUDA_OCC_MINOR__);
    if (err != CUDA_OCC_SUCCESS)
        return diag_error("occupancy", "occupancy: cuda_occupancy.h rejected the input (block %d, %d registers, %zu B "
                          "static + %zu B dynamic shared) on %s", in->block, in->registers, in->shared_static,
                          in->shared_dynamic, p->arch);
    out->blocks_per_sm = r.activeBlocksPerMultiprocessor;
    out->max_warps_per_sm = p->max_warps_per_sm;
    int wpb = (in->block + p->warp_size - 1) / p->warp_size;
    out->warps_per_sm = out->blocks_per_sm * wpb;
    out->occupancy = out->max_warps_per_sm ? (double)out->warps_per_sm / out->max_warps_per_sm : 0;
    out->limit_warps = no_limit(r.blockLimitWarps);
    out->limit_registers = no_limit(r.blockLimitRegs);
    out->limit_shared = no_limit(r.blockLimitSharedMem);
    out->limit_blocks = no_limit(r.blockLimitBlocks);
    out->limit_barriers = no_limit(r.blockLimitBarriers);
    out->registers_per_block = r.allocatedRegistersPerBlock;
    out->shared_per_block = r.allocatedSharedMemPerBlock;
    if (r.limitingFactors & OCC_LIMIT_WARPS) out->limiters |= 1u << OCCUPANCY_LIMIT_WARPS;
    if (r.limitingFactors & OCC_LIMIT_REGISTERS) out->limiters |= 1u << OCCUPANCY_LIMIT_REGISTERS;
    if (r.limitingFactors & OCC_LIMIT_SHARED_MEMORY) out->limiters |= 1u << OCCUPANCY_LIMIT_SHARED;
    if (r.limitingFactors & OCC_LIMIT_BLOCKS) out->limiters |= 1u << OCCUPANCY_LIMIT_BLOCKS;
    if (r.limitingFactors & OCC_LIMIT_BARRIERS) out->limiters |= 1u << OCCUPANCY_LIMIT_BARRIERS;

    /* Which one to name when several bind: the warps first (when the block
     * shape alone stops more blocks, fewer registers would not help), then
     * the resources the learner can change. */
    static const OccupancyLimiter order[] = {OCCUPANCY_LIMIT_WARPS, OCCUPANCY_LIMIT_REGISTERS,
                                             OCCUPANCY_LIMIT_SHARED, OCCUPANCY_LIMIT_BLOCKS,
                                             OCCUPANCY_LIMIT_BARRIERS};
    if (in->block > p->max_threads_per_block) {
        out->limiter = OCCUPANCY_LIMIT_BLOCK_SIZE;
        out->limiters = 1u << OCCUPANCY_LIMIT_BLOCK_SIZE;
    } else if (out->blocks_per_sm > 0 && out->warps_per_sm >= out->max_warps_per_sm) {
        out->limiter = OCCUPANCY_LIMIT_WARPS;
    } else {
        for (size_t i = 0; i < sizeof order / sizeof order[0] && !out->limiter; i++)
            if (out->limiters & (1u << order[i])) out->limiter = order[i];
    }
    explain(p, in, out);
    return NULL;
}

Diag *occupancy_check_profile(const DeviceProfile *p) {
    cudaOccDeviceProp prop;
    to_occ_prop(p, &prop);
    int blocks = 0, reg_unit = 0, sub = 0, smem_unit = 0;
    if (cudaOccMaxBlocksPerMultiprocessor(&blocks, &prop) != CUDA_OCC_SUCCESS ||
        cudaOccRegAllocationGranularity(&reg_unit, &prop) != CUDA_OCC_SUCCESS ||
        cudaOccSubPartitionsPerMultiprocessor(&sub, &prop) != CUDA_OCC_SUCCESS ||
        cudaOccSMemAllocationGranularity(&smem_unit, &prop) != CUDA_OCC_SUCCESS)
        return diag_error("occupancy", "%s: cuda_occupancy.h does not know this architecture", p->arch);
    size_t carve = p->shared_per_sm;
    if (cudaOccAlignUpShmemSizeVoltaPlus(&carve, &prop) != CUDA_OCC_SUCCESS || carve != p->shared_per_sm)
        return diag_error("occupancy", "%s: %zu B shared per SM is not a carveout cuda_occupancy.h knows", p->arch,
                          p->shared_per_sm);
    if (blocks != p->max_blocks_per_sm || reg_unit != p->reg_alloc_unit || sub != p->reg_sub_partitions ||
        (size_t)smem_unit != p->shared_alloc_unit)
        return diag_error("occupancy", "%s: profile says %d blocks/SM, %d-register unit, %d sub-partitions, %zu B "
                          "shared unit; cuda_occupancy.h says %d, %d, %d, %d", p->arch, p->max_blocks_per_sm,
                          p->reg_alloc_unit, p->reg_sub_partitions, p->shared_alloc_unit, blocks, reg_unit, sub,
                          smem_unit);
    return NULL;
}

static int curve(const DeviceProfile *p, OccupancyInput in, int which, int x, OccupancyPoint *pt) {
    if (which == 0) in.block = x;
    else if (which == 1) in.registers = x;
    else in.shared_dynamic = (size_t)x;
    Occupancy o;
    Diag *d = occupancy_compute(p, &in, &o);
    if (d) {
        diag_free(&d);
        return 0;
    }
    *pt = (OccupancyPoint){x, o.blocks_per_sm, o.occupancy, o.limiter};
    return 1;
}

int occupancy_curve_block(const DeviceProfile *p, const OccupancyInput *in, OccupancyPoint *pts, int max) {
    int n = 0;
    for (int b = p->warp_size; b <= p->max_threads_per_block && n < max; b += p->warp_size)
        n += curve(p, *in, 0, b, &pts[n]);
    return n;
}

int occupancy_curve_registers(const DeviceProfile *p, const OccupancyInput *in, OccupancyPoint *pts, int max) {
    int n = 0;
    for (int r = 8; n < max; r += 8) {
        if (r > p->max_regs_per_thread) r = p->max_regs_per_thread;
        n += curve(p, *in, 1, r, &pts[n]);
        if (r == p->max_regs_per_thread) break;
    }
    return n;
}

int occupancy_curve_shared(const DeviceProfile *p, const OccupancyInput *in, size_t step, OccupancyPoint *pts,
                           int max) {
    if (step == 0) step = 1024;
    size_t top = p->shared_per_block_optin > in->shared_static ? p->shared_per_block_optin - in->shared_static : 0;
    int n = 0;
    for (size_t s = 0; s <= top && n < max; s += step) n += curve(p, *in, 2, (int)s, &pts[n]);
    return n;
}
