/* kernels/predict.h: how long one kernel launch would take on a real GPU,
 * predicted from the emulator's exact counts of what the launch did.
 *
 * The emulator knows every sector, wavefront and instruction a launch
 * moves and issues, but nothing about time. This model turns those counts
 * into microseconds on a device profile (the H200 by default): a roofline
 * (the slowest of DRAM, L2, the L1, shared memory, instruction issue and
 * each pipe) with a latency term for launches that keep too few bytes in
 * flight (Little's law: a warp that waits for memory N times costs N round
 * trips however wide the memory is), the launch shape (blocks per SM,
 * waves, the busiest SM's tail) and a fixed launch cost. Its constants are calibrated
 * once per device from measured kernels and kept with their provenance
 * (PerfCalib). The formulae, what each constant is and what the model
 * cannot see are in kernels/PREDICT.md.
 *
 * Every figure is a prediction: callers say so ("predicted on an H200").
 * Pure computation (no GPU, no emulator state): tests feed it numbers. */
#ifndef CUDOJO_KERNELS_PREDICT_H
#define CUDOJO_KERNELS_PREDICT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/profiles.h"

/* What one launch did, from the emulator's metrics (totals) and launch. */
typedef struct PredictInput {
    uint64_t warp_instructions;
    uint64_t fp32, fp64, sfu, integer, mem, ctrl;   /* warp instructions by pipe */
    uint64_t global_requests, global_sectors, global_store_sectors, global_ideal_sectors;
    uint64_t shared_requests;
    uint64_t shared_wavefronts;     /* including bank-conflict replays */
    uint64_t atomics, memory_waits, barriers;
    uint64_t memory_waits_hit;      /* of memory_waits, those whose loads all hit the block's L1 */
    /* the blocks' barrier-synchronised paths, summed over blocks: per
     * stretch between barriers the most of each any one warp had (0: not
     * counted, a file from before them; the model then uses the averages) */
    uint64_t critical_instructions, critical_waits, critical_hit_waits, critical_requests;
    uint64_t blocks, warps;
    int threads_per_block;
    int registers;                  /* per thread (ptxas); 0 = not known (32 assumed) */
    size_t shared_per_block;        /* static + dynamic bytes */
    uint64_t footprint_bytes;       /* bytes of the arrays the launch was given; 0 = not known */
} PredictInput;

typedef struct Prediction {
    double us;                      /* the prediction */
    double fixed_us;                /* launch cost + waves */
    double work_us;                 /* us - fixed_us */
    /* the terms (µs), the largest of which decides */
    double dram_us, l2_us, l1_us, chain_us, issue_us, pipe_us, shared_us, atomic_us;
    const char *bound;              /* "launch", "DRAM bandwidth", "L2 bandwidth", "L1 throughput", "memory latency",
                                       "instruction issue", "FP32"|"FP64"|"SFU"|"integer"|"load/store" pipe,
                                       "shared memory", "atomics" */
    double dram_bytes, l2_bytes;    /* bytes from DRAM, bytes through L2 (stores and the loads that miss L1) */
    double copy_us;                 /* a device-to-device copy's time for the ideal bytes (no fixed cost) */
    double copy_fraction;           /* copy_us / us: the "% of copy" of a bandwidth-bound kernel */
    int blocks_per_sm, active_sms, waves;
    double warps_per_scheduler;     /* resident warps per SM sub-partition, busiest SM */
    PredictInput in;                /* what it was predicted from (predict_to_json's "input") */
} Prediction;

/* Fills *in from the emulator's metrics object ({"totals": {...}} or the
 * totals themselves); false when it has no warp_instructions. The launch
 * shape fields (threads_per_block, registers, shared, footprint) are the
 * caller's: this sets blocks and warps from the totals only. */
bool predict_input_from_metrics(const json_t *metrics, PredictInput *in);

/* The prediction for `in` on device `c` with the occupancy limits of
 * profile `p` (NULL: the profile of c->arch). */
void predict_kernel(const PerfCalib *c, const DeviceProfile *p, const PredictInput *in, Prediction *out);

/* {"device", "ms", "us", "bound", "copy_fraction", "terms_us": {...}, ...}
 * for a result's metrics (caller owns). */
json_t *predict_to_json(const PerfCalib *c, const Prediction *pr);

#endif
