/* kernels/costmodel.h: how long things would take on a GPU, for the
 * emulator's modeled timeline. Every number it gives is a model, never a
 * measurement: timelines built from it say "modeled": true.
 *
 * The model (all times in microseconds, bandwidths in GB/s = 1e9 B/s, so
 * `bytes / (gbs * 1e3)` is microseconds):
 *
 *   pinned copy H2D/D2H   copy_latency_us + bytes / (link_gbs * 1e3)
 *   pageable copy         copy_latency_us + bytes / (pageable_gbs * 1e3)
 *                         pageable_gbs = 1 / (1/link_gbs + 1/staging_gbs):
 *                         the driver copies through a pinned staging buffer
 *                         with the CPU (staging_gbs), one chunk after another
 *   device-to-device      copy_latency_us + 2 * bytes / (hbm_gbs * 1e3)  (read + write)
 *   memset                copy_latency_us + bytes / (hbm_gbs * 1e3)      (write)
 *   kernel                kernel_fixed_us + max(compute_us, memory_us)
 *       compute_us = warp_instructions / (issue_per_clk * sms * clock_ghz * 1e3)
 *       memory_us  = global_sectors * 32 / (hbm_gbs * 1e3)
 *       sms        = min(blocks in the grid, sm_count)
 *     warp_instructions and global_sectors are what the emulator counted for
 *     the launch (a sector is 32 bytes; sectors are counted with metrics on;
 *     without them memory_us is 0).
 *   launch                the kernel starts no earlier than launch_latency_us
 *                         after the host called launch, and no earlier than
 *                         launch_gap_us after its stream's previous work
 *                         ended (the GPU's front end sets each launch up);
 *                         the launch call costs the host launch_host_us
 *   graph launch          cudaGraphLaunch costs the host graph_launch_host_us
 *                         whatever its node count; its nodes cost the host
 *                         nothing more, and a kernel node starts
 *                         graph_node_gap_us after the node before it
 *                         (the launches were prepared at instantiation)
 *   every other enqueue   costs the host api_call_us
 *
 * Scheduling rules the emulator applies with these durations are in
 * kernels/emu/README.md ("Streams and the modeled timeline"). */
#ifndef CUDOJO_KERNELS_COSTMODEL_H
#define CUDOJO_KERNELS_COSTMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/profiles.h"

typedef struct CostModel {
    char name[160];                 /* "sm_90 profile (H100 SXM5, PCIe Gen5 x16)" */
    int sm_count;
    double clock_ghz;               /* SM boost clock */
    double issue_per_clk;           /* warp instructions issued per SM per clock (4 schedulers) */
    double hbm_gbs;                 /* device memory bandwidth */
    double link_gbs;                /* host link, per direction, pinned memory */
    double staging_gbs;             /* CPU copy into the driver's pinned staging buffer */
    int copy_engines;               /* 2: one H2D and one D2H copy at a time; 1: one copy at a time */
    double launch_latency_us;       /* host launch call to kernel start */
    double api_call_us;             /* host time spent in each enqueue call but a launch */
    double launch_host_us;          /* host time spent in a kernel launch call */
    double launch_gap_us;           /* GPU: a launched kernel's start after its stream's previous work */
    double graph_launch_host_us;    /* host time of one cudaGraphLaunch, any node count */
    double graph_node_gap_us;       /* GPU: a graph's kernel node's start after the node before it */
    double copy_latency_us;         /* fixed cost of one copy or memset (DMA setup) */
    double kernel_fixed_us;         /* fixed cost of one kernel (block ramp-up and drain) */
} CostModel;

/* The model for a bundled profile (link and memory numbers of the part the
 * profile names); NULL profile = the emulator's own (sm_90, 132 SMs). */
void costmodel_for_profile(const DeviceProfile *p, CostModel *out);

double costmodel_copy_us(const CostModel *m, size_t bytes, int pinned);
double costmodel_pageable_gbs(const CostModel *m);
double costmodel_d2d_us(const CostModel *m, size_t bytes);
double costmodel_memset_us(const CostModel *m, size_t bytes);
double costmodel_kernel_compute_us(const CostModel *m, uint64_t warp_instructions, uint64_t blocks);
double costmodel_kernel_memory_us(const CostModel *m, uint64_t global_sectors);
double costmodel_kernel_us(const CostModel *m, uint64_t warp_instructions, uint64_t global_sectors,
                           uint64_t blocks);
/* SMs a kernel of `blocks` blocks occupies: min(blocks, sm_count), at least 1. */
int costmodel_kernel_sms(const CostModel *m, uint64_t blocks);

#endif
