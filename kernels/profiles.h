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

/* The measured constants of one device for the time prediction (kernels/predict.h,
 * kernels/PREDICT.md), kept in profiles.c with their provenance. */
typedef struct PerfCalib {
    const char *device;             /* "H200": what "predicted on an ..." names */
    const char *arch;               /* the profile it belongs to: "sm_90" */
    int sm_count;
    double clock_ghz;               /* SM clock under load */
    double dram_read_gbs;           /* a read-only stream (a reduction) */
    double dram_copy_gbs;           /* read + written per second by a device-to-device copy */
    double l2_gbs;                  /* sectors served by L2 (hits), all SMs, four to a 128-byte line */
    double l2_sector_gbs;           /* the same for a scattered request's sectors: one L2 transaction each */
    double l2_bytes;                /* what stays in L2 between two reads of a line */
    double latency_cycles;          /* a global load's round trip, idle memory */
    double hit_cycles;              /* a wait for loads that all hit L1 (sectors the block had read) */
    double fixed_us;                /* launch + ramp-up + drain of an empty kernel, as events time it */
    double wave_us;                 /* more per extra wave of blocks (block launch, drain) */
    double issue_per_clk;           /* warp instructions issued per SM per clock (schedulers) */
    double fp32_per_clk, fp64_per_clk, sfu_per_clk, int_per_clk, mem_per_clk; /* warp instructions per SM per clock */
    double shared_per_clk;          /* shared-memory wavefronts per SM per clock */
    double l1_lines_per_clk;        /* 128-byte lines of global requests the L1 serves per SM per clock */
    double atomic_per_clk;          /* global/shared atomics per SM per clock (one per lane) */
    double dep_cycles;              /* cycles one warp spends per instruction on its own critical path */
    double request_cycles;          /* more per global request of the warp (its loads queue for the LSU) */
    double barrier_cycles;          /* more per barrier of its block (the slowest warp sets the pace) */
    double overlap_p;               /* the terms overlap only partly: their p-norm, not their maximum */
    const char *provenance;         /* where the numbers came from: runs, dates, files */
} PerfCalib;

/* The calibration of a device by name ("H200", "h200") or by a profile's
 * arch ("sm_90": the calibrated device of that architecture); NULL when
 * none. perf_calib_default() is the H200's. */
const PerfCalib *perf_calib_find(const char *name);
const PerfCalib *perf_calib_default(void);

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
