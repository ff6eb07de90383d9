/* kernels/occupancy.h: theoretical occupancy, what the CUDA Occupancy
 * Calculator shows: how many blocks of a kernel fit on one SM at once, how
 * many warps that is, and which resource runs out first.
 *
 * Pure computation (no CUDA calls, no GPU): the numbers come from a device
 * profile (kernels/profiles.h) and from the compiled kernel (registers per
 * thread and static shared memory, from ptxas), so the TUI can call it on
 * the numbers a run recorded. The arithmetic is the toolkit's own
 * cuda_occupancy.h (it compiles as C11). */
#ifndef CUDOJO_KERNELS_OCCUPANCY_H
#define CUDOJO_KERNELS_OCCUPANCY_H

#include <stddef.h>

#include "base/diag.h"
#include "kernels/profiles.h"

typedef enum OccupancyLimiter {
    OCCUPANCY_LIMIT_NONE = 0,
    OCCUPANCY_LIMIT_WARPS,          /* the SM's warp slots are all used */
    OCCUPANCY_LIMIT_REGISTERS,
    OCCUPANCY_LIMIT_SHARED,         /* shared memory */
    OCCUPANCY_LIMIT_BLOCKS,         /* the SM's limit on resident blocks */
    OCCUPANCY_LIMIT_BARRIERS,
    OCCUPANCY_LIMIT_BLOCK_SIZE,     /* the block is larger than a block may be: no launch */
} OccupancyLimiter;

typedef struct OccupancyInput {
    int block;                      /* threads per block (x*y*z) */
    int registers;                  /* per thread, from ptxas; 0 = not counted */
    size_t shared_static;           /* bytes of __shared__ arrays */
    size_t shared_dynamic;          /* bytes given at launch */
} OccupancyInput;

typedef struct Occupancy {
    int blocks_per_sm;              /* 0: this launch cannot run at all */
    int warps_per_sm;               /* active warps */
    int max_warps_per_sm;
    double occupancy;               /* warps_per_sm / max_warps_per_sm, 0..1 */
    OccupancyLimiter limiter;       /* the one named to the learner */
    unsigned limiters;              /* every limiter that binds: bit (1u << OccupancyLimiter) */
    int limit_warps, limit_registers, limit_shared, limit_blocks, limit_barriers; /* blocks each allows; -1 none */
    int registers_per_block;        /* as allocated (rounded) */
    size_t shared_per_block;        /* as allocated: static + dynamic + reserved, rounded */
    char explanation[400];          /* one or two sentences for the learner */
} Occupancy;

/* Computes the occupancy of `in` on `p`. Returns a Diag (caller frees) only
 * when the numbers make no sense (block < 1, registers < 0) or the
 * architecture is unknown to cuda_occupancy.h; a launch that cannot run is a
 * result with blocks_per_sm 0 and the reason in explanation. */
Diag *occupancy_compute(const DeviceProfile *p, const OccupancyInput *in, Occupancy *out);
/* Checks a profile against cuda_occupancy.h's own tables (blocks per SM,
 * register and shared-memory allocation units, sub-partitions); NULL when
 * they agree. For tests and for profiles made from a DeviceInfo. */
Diag *occupancy_check_profile(const DeviceProfile *p);
/* "warps", "registers", "shared memory", "blocks", "barriers", "block size", "none". */
const char *occupancy_limiter_name(OccupancyLimiter l);

/* One point of a curve: x is the block size, registers per thread or bytes
 * of dynamic shared memory per block. */
typedef struct OccupancyPoint {
    int x;
    int blocks_per_sm;
    double occupancy;
    OccupancyLimiter limiter;
} OccupancyPoint;

#define OCCUPANCY_CURVE_MAX 256

/* Occupancy against block size (warp_size .. max_threads_per_block, one
 * point per warp), with the other inputs as given. Returns the number of
 * points written (at most max). */
int occupancy_curve_block(const DeviceProfile *p, const OccupancyInput *in, OccupancyPoint *pts, int max);
/* Against registers per thread (8, 16, ... max_regs_per_thread). */
int occupancy_curve_registers(const DeviceProfile *p, const OccupancyInput *in, OccupancyPoint *pts, int max);
/* Against dynamic shared memory per block (0 .. what one block may have, in
 * steps of `step` bytes; 0 = 1 KiB). */
int occupancy_curve_shared(const DeviceProfile *p, const OccupancyInput *in, size_t step, OccupancyPoint *pts,
                           int max);

#endif
