/* kernels/profiles.h: the resource limits of each GPU architecture cudojo
 * knows, so occupancy can be predicted for a GPU the learner does not have.
 *
 * The per-SM numbers are facts of the compute capability (NVIDIA's
 * "Technical Specifications per Compute Capability" table and the tables
 * inside the toolkit's cuda_occupancy.h); the SM count is a fact of one
 * product, so each profile names the part it was taken from. A profile can
 * also be made from the local GPU's DeviceInfo (profile_from_device). */
#ifndef CUDOJO_KERNELS_PROFILES_H
#define CUDOJO_KERNELS_PROFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/backend.h"

typedef struct DeviceProfile {
    char arch[16];                  /* "sm_90" */
    char part[256];                 /* the product the SM count is from: "H100 SXM5" */
    int cc_major, cc_minor;
    int sm_count;
    int warp_size;                  /* 32 */
    int max_threads_per_block;      /* 1024 */
    int max_warps_per_sm;           /* resident warps per SM */
    int max_blocks_per_sm;          /* resident blocks per SM */
    int regs_per_sm;                /* 32-bit registers per SM */
    int regs_per_block;             /* most registers one block may hold */
    int max_regs_per_thread;        /* 255 */
    int reg_alloc_unit;             /* a warp's registers are rounded up to a multiple of this */
    int reg_sub_partitions;         /* the register file is split in this many parts (warp granularity) */
    size_t shared_per_sm;           /* largest shared-memory carveout per SM, bytes */
    size_t shared_per_block;        /* per block without opting in (48 KiB) */
    size_t shared_per_block_optin;  /* per block with cudaFuncAttributeMaxDynamicSharedMemorySize */
    size_t shared_alloc_unit;       /* a block's shared memory is rounded up to a multiple of this */
    size_t shared_reserved;         /* shared memory the driver keeps per block (1 KiB from sm_80) */
} DeviceProfile;

/* How many bundled profiles there are, and the i-th (oldest first). */
int profile_count(void);
const DeviceProfile *profile_at(int i);
/* The newest architecture bundled (the newest the toolkit's occupancy tables know). */
const DeviceProfile *profile_newest(void);
/* By name: "sm_90", "sm90", "90", "9.0" or "compute_90"; NULL when unknown. */
const DeviceProfile *profile_find(const char *arch);
/* By compute capability; NULL when unknown. */
const DeviceProfile *profile_find_cc(int cc_major, int cc_minor);
/* "sm_75, sm_80, ..." (static storage), for error messages. */
const char *profile_names(void);
/* A profile of the GPU `d` describes: its own limits, with allocation units
 * from its architecture (or the nearest older one bundled). */
void profile_from_device(const DeviceInfo *d, DeviceProfile *out);

#endif
