/* kernels/costmodel.c: the numbers behind the emulator's modeled timeline.
 *
 * Sources for the per-part figures (datasheet peaks, rounded down to what a
 * copy or a streaming kernel reaches in practice):
 *  - host link: PCIe Gen3 x16 ~12 GB/s, Gen4 x16 ~25 GB/s, Gen5 x16 ~55 GB/s
 *    per direction with pinned memory (64 GB/s raw on Gen5);
 *  - HBM/GDDR: the part's datasheet bandwidth (T4 320, A100 1555, RTX 3090
 *    936, RTX 4090 1008, H100 SXM5 3352, B200 8000, RTX 5090 1792, GB10 273
 *    GB/s), boost clocks from the same sheets;
 *  - launch latency ~3 us and ~1 us per enqueue call are the usual figures
 *    for cudaLaunchKernel on Linux; a launch call itself costs the host
 *    2-3 us (NVIDIA's "Getting Started with CUDA Graphs" measured 3.8 us
 *    per back-to-back launch of a 2.9 us kernel without graphs, 3.4 us
 *    with one): 2.5 us here;
 *  - a kernel launched on its own costs the GPU ~2 us beyond its work: the
 *    front end's setup of the launch (launch_gap_us = 1 us, a gap before
 *    the kernel on the timeline, as the blog's 0.9 us) and the blocks'
 *    ramp-up and drain (kernel_fixed_us = 1 us, inside the kernel);
 *  - graphs: a straight-line graph launches in constant host time, ~2.5 us
 *    whatever its length (NVIDIA, "Constant Time Launch for Straight-Line
 *    CUDA Graphs", CUDA 12.6), and its kernel nodes follow each other with
 *    a much smaller gap than stream launches (the blog's 0.5 us on Volta;
 *    less on Hopper): graph_node_gap_us = 0.25 us;
 *  - staging_gbs 10 GB/s: a single-threaded memcpy into the driver's pinned
 *    bounce buffer, which is why pageable copies reach a fraction of pinned.
 * The formulas are documented in costmodel.h. */
#include "kernels/costmodel.h"

#include <stdio.h>
#include <string.h>

typedef struct PartFigures {
    const char *arch;
    double clock_ghz, hbm_gbs, link_gbs;
    const char *link;
} PartFigures;

static const PartFigures PARTS[] = {
    {"sm_75", 1.59, 320, 12, "PCIe Gen3 x16"},
    {"sm_80", 1.41, 1555, 25, "PCIe Gen4 x16"},
    {"sm_86", 1.70, 936, 25, "PCIe Gen4 x16"},
    {"sm_89", 2.52, 1008, 25, "PCIe Gen4 x16"},
    {"sm_90", 1.98, 3352, 55, "PCIe Gen5 x16"},
    {"sm_100", 1.96, 8000, 55, "PCIe Gen5 x16"},
    {"sm_120", 2.41, 1792, 55, "PCIe Gen5 x16"},
    {"sm_121", 2.50, 273, 150, "NVLink-C2C"},
};

void costmodel_for_profile(const DeviceProfile *p, CostModel *m) {
    memset(m, 0, sizeof *m);
    const char *arch = p ? p->arch : "sm_90";
    const PartFigures *f = &PARTS[4];
    for (size_t i = 0; i < sizeof PARTS / sizeof PARTS[0]; i++)
        if (!strcmp(PARTS[i].arch, arch)) f = &PARTS[i];
    m->sm_count = p ? p->sm_count : 132;
    m->clock_ghz = f->clock_ghz;
    m->issue_per_clk = 4;
    m->hbm_gbs = f->hbm_gbs;
    m->link_gbs = f->link_gbs;
    m->staging_gbs = 10;
    m->copy_engines = 2;
    m->launch_latency_us = 3.0;
    m->api_call_us = 1.0;
    m->launch_host_us = 2.5;
    m->launch_gap_us = 1.0;
    m->graph_launch_host_us = 2.5;
    m->graph_node_gap_us = 0.25;
    m->copy_latency_us = 2.0;
    m->kernel_fixed_us = 1.0;
    snprintf(m->name, sizeof m->name, "%.15s profile (%.100s, %.20s)", arch, p ? p->part : "H100 SXM5", f->link);
}

double costmodel_pageable_gbs(const CostModel *m) { return 1.0 / (1.0 / m->link_gbs + 1.0 / m->staging_gbs); }

double costmodel_copy_us(const CostModel *m, size_t bytes, int pinned) {
    double gbs = pinned ? m->link_gbs : costmodel_pageable_gbs(m);
    return m->copy_latency_us + (double)bytes / (gbs * 1e3);
}

double costmodel_d2d_us(const CostModel *m, size_t bytes) {
    return m->copy_latency_us + 2.0 * (double)bytes / (m->hbm_gbs * 1e3);
}

double costmodel_memset_us(const CostModel *m, size_t bytes) {
    return m->copy_latency_us + (double)bytes / (m->hbm_gbs * 1e3);
}

int costmodel_kernel_sms(const CostModel *m, uint64_t blocks) {
    if (blocks < 1) blocks = 1;
    return blocks < (uint64_t)m->sm_count ? (int)blocks : m->sm_count;
}

double costmodel_kernel_compute_us(const CostModel *m, uint64_t warp_instructions, uint64_t blocks) {
    double per_us = m->issue_per_clk * costmodel_kernel_sms(m, blocks) * m->clock_ghz * 1e3;
    return (double)warp_instructions / per_us;
}

double costmodel_kernel_memory_us(const CostModel *m, uint64_t global_sectors) {
    return (double)global_sectors * 32.0 / (m->hbm_gbs * 1e3);
}

double costmodel_kernel_us(const CostModel *m, uint64_t warp_instructions, uint64_t global_sectors,
                           uint64_t blocks) {
    double c = costmodel_kernel_compute_us(m, warp_instructions, blocks);
    double mem = costmodel_kernel_memory_us(m, global_sectors);
    return m->kernel_fixed_us + (c > mem ? c : mem);
}
