/* kernels/profiles.c: the bundled device profiles.
 *
 * Sources, checked against each other:
 *  - CUDA C++ Programming Guide, "Technical Specifications per Compute
 *    Capability": resident warps, blocks and threads per SM, registers per
 *    SM/block/thread, shared memory per SM and per block (default, opt-in);
 *  - the toolkit's cuda_occupancy.h (CUDA 13.0, __CUDA_OCC_MAJOR__ 12.1):
 *    blocks per SM, shared-memory allocation granularity (256 B up to
 *    sm_7x, 128 B from sm_80), register allocation unit (256 per warp),
 *    4 register sub-partitions, and the shared carveouts (the largest is
 *    shared_per_sm);
 *  - the 1 KiB reserved per block from sm_80 is why opt-in is 1 KiB below
 *    the SM's carveout (163 of 164 KiB on sm_80, 227 of 228 KiB on sm_90).
 * SM counts are those of the named part; other parts of the same
 * architecture differ (an L4 is sm_89 with 58 SMs, an RTX 4090 has 128).
 * sm_121 is the newest architecture both NVRTC 13.0 (nvrtcGetSupportedArchs:
 * 75 80 86 87 88 89 90 100 103 110 120 121) and cuda_occupancy.h know. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernels/profiles.h"

#define KIB ((size_t)1024)

/* arch, part, cc, SMs, warp, threads/block, warps/SM, blocks/SM, regs/SM,
 * regs/block, regs/thread, reg unit, sub-partitions, shared/SM, shared/block,
 * opt-in, shared unit, reserved */
static const DeviceProfile PROFILES[] = {
    {"sm_75", "Tesla T4", 7, 5, 40, 32, 1024, 32, 16, 65536, 65536, 255, 256, 4,
     64 * KIB, 48 * KIB, 64 * KIB, 256, 0},
    {"sm_80", "A100 SXM4", 8, 0, 108, 32, 1024, 64, 32, 65536, 65536, 255, 256, 4,
     164 * KIB, 48 * KIB, 163 * KIB, 128, 1 * KIB},
    {"sm_86", "GeForce RTX 3090", 8, 6, 82, 32, 1024, 48, 16, 65536, 65536, 255, 256, 4,
     100 * KIB, 48 * KIB, 99 * KIB, 128, 1 * KIB},
    {"sm_89", "GeForce RTX 4090", 8, 9, 128, 32, 1024, 48, 24, 65536, 65536, 255, 256, 4,
     100 * KIB, 48 * KIB, 99 * KIB, 128, 1 * KIB},
    {"sm_90", "H100 SXM5", 9, 0, 132, 32, 1024, 64, 32, 65536, 65536, 255, 256, 4,
     228 * KIB, 48 * KIB, 227 * KIB, 128, 1 * KIB},
    {"sm_100", "B200", 10, 0, 148, 32, 1024, 64, 32, 65536, 65536, 255, 256, 4,
     228 * KIB, 48 * KIB, 227 * KIB, 128, 1 * KIB},
    {"sm_120", "GeForce RTX 5090", 12, 0, 170, 32, 1024, 48, 24, 65536, 65536, 255, 256, 4,
     100 * KIB, 48 * KIB, 99 * KIB, 128, 1 * KIB},
    {"sm_121", "DGX Spark (GB10)", 12, 1, 48, 32, 1024, 48, 24, 65536, 65536, 255, 256, 4,
     100 * KIB, 48 * KIB, 99 * KIB, 128, 1 * KIB},
};

#define N_PROFILES ((int)(sizeof PROFILES / sizeof PROFILES[0]))

int profile_count(void) { return N_PROFILES; }

const DeviceProfile *profile_at(int i) { return i >= 0 && i < N_PROFILES ? &PROFILES[i] : NULL; }

const DeviceProfile *profile_newest(void) { return &PROFILES[N_PROFILES - 1]; }

const DeviceProfile *profile_find_cc(int cc_major, int cc_minor) {
    for (int i = 0; i < N_PROFILES; i++)
        if (PROFILES[i].cc_major == cc_major && PROFILES[i].cc_minor == cc_minor) return &PROFILES[i];
    return NULL;
}

const DeviceProfile *profile_find(const char *arch) {
    if (!arch) return NULL;
    const char *p = arch;
    if (!strncmp(p, "sm_", 3) || !strncmp(p, "sm", 2)) p += p[2] == '_' ? 3 : 2;
    else if (!strncmp(p, "compute_", 8)) p += 8;
    char *end;
    long major = strtol(p, &end, 10);
    if (end == p) return NULL;
    if (*end == '.') { /* "9.0" */
        const char *q = end + 1;
        long minor = strtol(q, &end, 10);
        if (end == q || *end) return NULL;
        return profile_find_cc((int)major, (int)minor);
    }
    if (*end || major < 10) return NULL;
    return profile_find_cc((int)(major / 10), (int)(major % 10));
}

const char *profile_names(void) {
    static char buf[256];
    if (!buf[0]) {
        size_t n = 0;
        for (int i = 0; i < N_PROFILES; i++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "", PROFILES[i].arch);
    }
    return buf;
}

/* The bundled profile of the same architecture, else the newest older one. */
static const DeviceProfile *nearest(int cc_major, int cc_minor) {
    const DeviceProfile *best = NULL;
    int cc = cc_major * 10 + cc_minor;
    for (int i = 0; i < N_PROFILES; i++)
        if (PROFILES[i].cc_major * 10 + PROFILES[i].cc_minor <= cc) best = &PROFILES[i];
    return best ? best : &PROFILES[0];
}

void profile_from_device(const DeviceInfo *d, DeviceProfile *out) {
    const DeviceProfile *base = nearest(d->cc_major, d->cc_minor);
    *out = *base;
    snprintf(out->arch, sizeof out->arch, "sm_%d%d", d->cc_major, d->cc_minor);
    snprintf(out->part, sizeof out->part, "%s", d->name);
    out->cc_major = d->cc_major;
    out->cc_minor = d->cc_minor;
#define TAKE(field, v) \
    do { \
        if ((v) > 0) out->field = (v); \
    } while (0)
    TAKE(sm_count, d->sm_count);
    TAKE(warp_size, d->warp_size);
    TAKE(max_threads_per_block, d->max_threads_per_block);
    if (d->max_threads_per_sm > 0 && out->warp_size > 0) out->max_warps_per_sm = d->max_threads_per_sm / out->warp_size;
    TAKE(max_blocks_per_sm, d->max_blocks_per_sm);
    TAKE(regs_per_sm, d->regs_per_sm);
    TAKE(regs_per_block, d->regs_per_block);
    TAKE(shared_per_sm, d->shared_per_sm);
    TAKE(shared_per_block, d->shared_per_block);
    TAKE(shared_per_block_optin, d->shared_per_block_optin);
#undef TAKE
}

/* Calibrations for the time prediction (kernels/predict.h; the model and
 * each constant's meaning: kernels/PREDICT.md). Measured figures name their
 * run; the rest are the part's published rates and say so. */
static const PerfCalib CALIBS[] = {
    {
        .device = "H200",
        .arch = "sm_90",
        .sm_count = 132,
        .clock_ghz = 1.98,           /* doctor's fingerprint: sm 1980000 kHz */
        .dram_read_gbs = 4440,       /* reduce-peak, 2^29 f32 (2 GiB) in 0.484 ms; CUB 0.485 ms */
        .dram_copy_gbs = 4239,       /* doctor: cudaMemcpy D2D, median of 31 copies of 2 GiB */
        .l2_gbs = 7000,              /* estimate: ~1.6x DRAM (published H100 L2 microbenchmarks) */
        .l2_sector_gbs = 2360,       /* fit (session14/call1; the six other fitted constants held): a scattered request's
                                        sectors, one L2 transaction each (strided-access's starter, a warp's 32 floats
                                        in 32 rows: 0.73 -> 0.92) */
        .l2_bytes = 45.0 * 1024 * 1024, /* 60 MiB reported, 3/4 of it kept between two reads of a line */
        .latency_cycles = 822,       /* fit (the mean of bench_predict --replay --fit all on two H200 runs): a round trip beyond
                                        L1 with the L2 flushed and the SMs busy; idle pointer chase 667
                                        (tests/programs/latency_chase.cu) */
        .hit_cycles = 272,           /* fit: a wait whose loads all hit L1 (histogram's starter re-reading hist[]) */
        .fixed_us = 3.62,            /* fit: an event-timed launch of nothing measures 2.9-3.1 us (european's starter,
                                        launch-overhead's); the rest is the first round trip's ramp. The two runs
                                        fitted 3.32 and 3.91: launch overhead moves ~0.6 us between runs */
        .wave_us = 0.25,
        .issue_per_clk = 4,          /* 4 schedulers per SM, one warp instruction each per clock */
        .fp32_per_clk = 4,           /* 128 FP32 lanes per SM */
        .fp64_per_clk = 2,           /* 64 FP64 lanes per SM */
        .sfu_per_clk = 0.5,          /* 16 SFU lanes per SM */
        .int_per_clk = 2,            /* 64 INT32 lanes per SM */
        .mem_per_clk = 1,            /* 32 load/store lanes per SM */
        .shared_per_clk = 1,         /* 128 bytes (one wavefront) per SM per clock */
        .l1_lines_per_clk = 1.86,    /* fit (session14/call1): 128-byte lines of global requests per SM per clock; only
                                        matmul-naive's column of A (L1 hits, 32 lines a request) shows it */
        .atomic_per_clk = 0.5,
        .dep_cycles = 2.69,          /* fit: per instruction of one warp (FMA 4 cycles, partly overlapped by ILP) */
        .request_cycles = 0.1,       /* fit: per global request of the slowest warp (39 when the average warp stood
                                        in: its waits now explain what the requests did) */
        .barrier_cycles = 156,       /* fit: per barrier of a block (the slowest warp's wait, the release) */
        .overlap_p = 3,
        .provenance = "H200 (132 SMs, 1.98 GHz), measured 2026-12-01: doctor, bench/peaks_check, bench/anchors, "
                      "tests/programs/latency_chase.cu; "
                      "pipe rates from the Hopper tuning guide; fixed_us, latency, hit, dep, request and barrier cycles "
                      "fitted by bench/bench_predict --replay --fit all on two H200 runs and averaged constant by constant: "
                      "session8/call3/bench (fit 3.32 us, 829, 227, 2.67, 0.2, 149) and session9/call3/bench "
                      "(2026-12-02; fit 3.91 us, 816, 316, 2.71, 0.0, 164); the mean predicts 62/62 of the first run "
                      "and 61/62 of the second within +-30% (the one out: strided-access's starter, a 6 us "
                      "launch-bound kernel, 0.74); l2_sector_gbs and l1_lines_per_clk (L2 and L1 transactions of "
                      "scattered requests, L1 hits kept out of L2) fitted with those six held on session14/call1 "
                      "(2026-12-02), replayed with the counts of two emulator hosts: 62/62 on each "
                      "(the six alone: 61/62, strided-access's starter 0.73); l2_gbs an estimate",
    },
};

const PerfCalib *perf_calib_default(void) { return &CALIBS[0]; }

const PerfCalib *perf_calib_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof CALIBS / sizeof CALIBS[0]; i++)
        if (!strcasecmp(CALIBS[i].device, name) || !strcmp(CALIBS[i].arch, name)) return &CALIBS[i];
    const DeviceProfile *p = profile_find(name);
    for (size_t i = 0; p && i < sizeof CALIBS / sizeof CALIBS[0]; i++)
        if (!strcmp(CALIBS[i].arch, p->arch)) return &CALIBS[i];
    return NULL;
}
