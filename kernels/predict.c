/* kernels/predict.c: a kernel launch's time on a device, predicted from the
 * emulator's counts (the model: kernels/PREDICT.md; the calibrations:
 * kernels/profiles.c). */
#include "kernels/predict.h"

#include <math.h>
#include <string.h>

#include "kernels/occupancy.h"

static uint64_t count(const json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (uint64_t)json_integer_value(v) : json_is_number(v) ? (uint64_t)json_number_value(v) : 0;
}

bool predict_input_from_metrics(const json_t *metrics, PredictInput *in) {
    memset(in, 0, sizeof *in);
    const json_t *t = json_object_get(metrics, "totals");
    if (!json_is_object(t)) t = metrics;
    if (!json_is_object(t) || !json_object_get(t, "warp_instructions")) return false;
    in->warp_instructions = count(t, "warp_instructions");
    in->fp32 = count(t, "fp32_instructions");
    in->fp64 = count(t, "fp64_instructions");
    in->sfu = count(t, "sfu_instructions");
    in->integer = count(t, "int_instructions");
    in->mem = count(t, "mem_instructions");
    in->ctrl = count(t, "ctrl_instructions");
    in->global_requests = count(t, "global_requests");
    in->global_sectors = count(t, "global_sectors");
    in->global_store_sectors = count(t, "global_store_sectors");
    in->global_ideal_sectors = count(t, "global_ideal_sectors");
    in->shared_requests = count(t, "shared_requests");
    in->shared_wavefronts = count(t, "bank_conflict_wavefronts");
    in->atomics = count(t, "atomics");
    in->memory_waits = count(t, "memory_waits");
    in->barriers = count(t, "barriers");
    in->memory_waits_hit = count(t, "memory_waits_hit");
    in->critical_instructions = count(t, "critical_instructions");
    in->critical_waits = count(t, "critical_waits");
    in->critical_hit_waits = count(t, "critical_hit_waits");
    in->critical_requests = count(t, "critical_requests");
    in->blocks = count(t, "blocks");
    in->warps = count(t, "warps");
    /* the launch's shape, where the object is a prediction's "input" */
    in->threads_per_block = (int)count(t, "threads_per_block");
    in->registers = (int)count(t, "registers");
    in->shared_per_block = (size_t)count(t, "shared_per_block");
    in->footprint_bytes = count(t, "footprint_bytes");
    return true;
}

static double maxd(double a, double b) { return a > b ? a : b; }

void predict_kernel(const PerfCalib *c, const DeviceProfile *p, const PredictInput *in, Prediction *out) {
    memset(out, 0, sizeof *out);
    out->in = *in;
    if (!p) p = profile_find(c->arch);
    const double clk_per_us = c->clock_ghz * 1e3;
    uint64_t blocks = in->blocks ? in->blocks : 1;
    int tpb = in->threads_per_block > 0 ? in->threads_per_block : 32;
    int wpb = (tpb + 31) / 32;
    uint64_t warps = in->warps ? in->warps : blocks * (uint64_t)wpb;

    /* Launch shape: resident blocks per SM (the occupancy calculator's
     * figure; registers assumed 32 when not known), the busiest SM's
     * blocks and the waves it runs them in. */
    int bps = 0;
    if (p) {
        OccupancyInput oi = {.block = tpb, .registers = in->registers > 0 ? in->registers : 32,
                             .shared_static = in->shared_per_block, .shared_dynamic = 0};
        Occupancy occ;
        Diag *d = occupancy_compute(p, &oi, &occ);
        if (!d) bps = occ.blocks_per_sm;
        diag_free(&d);
    }
    if (bps < 1) bps = 1;
    uint64_t sms = (uint64_t)c->sm_count;
    uint64_t blocks_sm = (blocks + sms - 1) / sms;             /* the busiest SM's share */
    uint64_t waves_sm = (blocks_sm + (uint64_t)bps - 1) / (uint64_t)bps;
    out->blocks_per_sm = bps;
    out->active_sms = (int)(blocks < sms ? blocks : sms);
    out->waves = (int)((blocks + sms * (uint64_t)bps - 1) / (sms * (uint64_t)bps));
    double share = (double)blocks_sm / (double)blocks;          /* of every count, on the busiest SM */
    double resident_warps = (double)(blocks_sm < (uint64_t)bps ? blocks_sm : (uint64_t)bps) * wpb;
    double per_sched = ceil(resident_warps / 4.0);
    out->warps_per_scheduler = resident_warps / 4.0;

    /* Instructions: issue (warps of one scheduler take turns; a warp alone
     * waits dep_cycles between dependent instructions) and each pipe. */
    double instr_w = (double)in->warp_instructions / (double)warps;
    double waits_w = (double)in->memory_waits / (double)warps;
    out->issue_us = (double)waves_sm * instr_w * maxd(per_sched, 1.0) / clk_per_us;
    out->issue_us = maxd(out->issue_us, (double)in->warp_instructions * share / c->issue_per_clk / clk_per_us);
    struct { double n, rate; const char *name; } pipes[] = {
        {(double)in->fp32, c->fp32_per_clk, "FP32 pipe"}, {(double)in->fp64, c->fp64_per_clk, "FP64 pipe"},
        {(double)in->sfu, c->sfu_per_clk, "SFU pipe"},    {(double)in->integer, c->int_per_clk, "integer pipe"},
        {(double)in->mem, c->mem_per_clk, "load/store pipe"},
    };
    const char *pipe_name = "FP32 pipe";
    for (size_t i = 0; i < sizeof pipes / sizeof pipes[0]; i++) {
        double us = pipes[i].n * share / pipes[i].rate / clk_per_us;
        if (us > out->pipe_us) { out->pipe_us = us; pipe_name = pipes[i].name; }
    }
    out->shared_us = (double)in->shared_wavefronts * share / c->shared_per_clk / clk_per_us;
    out->atomic_us = (double)in->atomics * share / c->atomic_per_clk / clk_per_us;

    /* The latency chain: the instructions of the block's slowest warp (a
     * warp alone waits dep_cycles per instruction), a round trip to memory
     * for each of its waits (the loads issued before it were in flight
     * together; an L1 hit, loads of sectors the block had read, returns in
     * hit_cycles), its global requests queueing for the LSU, and the
     * block's barriers; once per wave on the busiest SM. The slowest warp
     * is the emulator's critical path: between two barriers the block waits
     * for the warp with the most of each (the one warp that takes a ticket,
     * publishes and looks back in a decoupled scan; the busy warps of a
     * block whose other warps return early); files from before it counted
     * only totals: the average warp. With enough warps resident the
     * throughput terms exceed the chain (Little's law). */
    double req_w = (double)in->global_requests / (double)warps;
    double bar_b = (double)in->barriers / (double)blocks;
    double hits_w = (double)in->memory_waits_hit / (double)warps;
    if (in->critical_instructions) {
        instr_w = (double)in->critical_instructions / (double)blocks;
        waits_w = (double)in->critical_waits / (double)blocks;
        hits_w = (double)in->critical_hit_waits / (double)blocks;
        req_w = (double)in->critical_requests / (double)blocks;
    }
    if (hits_w > waits_w) hits_w = waits_w;
    out->chain_us = (double)waves_sm *
                    (instr_w * c->dep_cycles + (waits_w - hits_w) * c->latency_cycles + hits_w * c->hit_cycles +
                     req_w * c->request_cycles + bar_b * c->barrier_cycles) / clk_per_us;

    /* Transactions, not bytes: a coalesced request's sectors go four to a
     * 128-byte line, a scattered request's (a column, a stride of a row)
     * one to a line each; the sectors beyond the ideal are the scattered
     * ones (the launch's totals; none when the ideal was not counted).
     * Every sector passes the busiest SM's L1; every store and every load
     * that misses the block's L1 passes L2 (the hits: the share of the
     * waits whose loads all hit). */
    double bytes = (double)in->global_sectors * 32.0;
    double store = (double)in->global_store_sectors * 32.0;
    double sectors = (double)in->global_sectors, ideal = (double)in->global_ideal_sectors;
    double scattered = ideal > 0 && sectors > ideal ? (sectors - ideal) / sectors : 0;
    double hit = in->memory_waits ? (double)in->memory_waits_hit / (double)in->memory_waits : 0;
    if (hit > 1) hit = 1;
    double l2_bytes = store + (bytes - store) * (1.0 - hit);
    double l2_sector_gbs = c->l2_sector_gbs > 0 ? c->l2_sector_gbs : c->l2_gbs;
    out->l2_bytes = l2_bytes;
    out->l2_us = l2_bytes * ((1.0 - scattered) / (c->l2_gbs * 1e3) + scattered / (l2_sector_gbs * 1e3));
    double lines = sectors * ((1.0 - scattered) / 4.0 + scattered);
    out->l1_us = c->l1_lines_per_clk > 0 ? lines * share / c->l1_lines_per_clk / clk_per_us : 0;

    /* DRAM serves the footprint once (the GPU's timing flushes L2 first)
     * and the re-reads reaching L2 that it cannot keep. */
    double fp = in->footprint_bytes ? (double)in->footprint_bytes : bytes;
    double dram = bytes < fp ? bytes : fp;
    if (l2_bytes > fp && fp > c->l2_bytes) dram += (l2_bytes - fp) * (1.0 - c->l2_bytes / fp);
    double dram_w = store < dram ? store : dram, dram_r = dram - dram_w;
    double write_gbs = 1.0 / (2.0 / c->dram_copy_gbs - 1.0 / c->dram_read_gbs);
    out->dram_bytes = dram;
    out->dram_us = dram_r / (c->dram_read_gbs * 1e3) + dram_w / (write_gbs * 1e3);

    /* The terms overlap only partly (a warp waiting on memory issues
     * nothing; DRAM is busy while the chain waits): their p-norm, which is
     * the largest term when one dominates and up to 2^(1/p) more when two
     * are equal. */
    double q = c->overlap_p > 0 ? c->overlap_p : 3;
    struct { double us; const char *name; } terms[] = {
        {out->chain_us, "memory latency"},
        {out->dram_us, "DRAM bandwidth"},
        {out->l2_us, "L2 bandwidth"},
        {out->l1_us, "L1 throughput"},
        {out->issue_us, "instruction issue"},
        {out->pipe_us, pipe_name},
        {out->shared_us, "shared memory"},
        {out->atomic_us, "atomics"},
    };
    double work = 0, largest = 0;
    out->bound = "launch";
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
        work += pow(terms[i].us, q);
        if (terms[i].us > largest) { largest = terms[i].us; out->bound = terms[i].name; }
    }
    work = pow(work, 1.0 / q);
    out->fixed_us = c->fixed_us + c->wave_us * (double)(out->waves > 1 ? out->waves - 1 : 0);
    if (work < out->fixed_us) out->bound = "launch";
    out->work_us = work;
    out->us = out->fixed_us + work;
    out->copy_us = ideal * 32.0 / (c->dram_copy_gbs * 1e3);
    out->copy_fraction = out->us > 0 ? out->copy_us / out->us : 0;
}

json_t *predict_to_json(const PerfCalib *c, const Prediction *pr) {
    json_t *o = json_object();
    json_object_set_new(o, "device", json_string(c->device));
    json_object_set_new(o, "ms", json_real(pr->us / 1e3));
    json_object_set_new(o, "bound", json_string(pr->bound));
    json_object_set_new(o, "copy_fraction", json_real(pr->copy_fraction));
    json_object_set_new(o, "dram_bytes", json_real(pr->dram_bytes));
    json_object_set_new(o, "l2_bytes", json_real(pr->l2_bytes));
    json_object_set_new(o, "blocks_per_sm", json_integer(pr->blocks_per_sm));
    json_object_set_new(o, "waves", json_integer(pr->waves));
    json_t *t = json_object();
    json_object_set_new(t, "fixed", json_real(pr->fixed_us));
    json_object_set_new(t, "dram", json_real(pr->dram_us));
    json_object_set_new(t, "l2", json_real(pr->l2_us));
    json_object_set_new(t, "l1", json_real(pr->l1_us));
    json_object_set_new(t, "latency_chain", json_real(pr->chain_us));
    json_object_set_new(t, "issue", json_real(pr->issue_us));
    json_object_set_new(t, "pipe", json_real(pr->pipe_us));
    json_object_set_new(t, "shared", json_real(pr->shared_us));
    json_object_set_new(t, "atomics", json_real(pr->atomic_us));
    json_object_set_new(o, "terms_us", t);
    /* the inputs under the emulator's names: predict_input_from_metrics reads them back (bench_predict --replay) */
    const PredictInput *in = &pr->in;
    json_t *i = json_object();
    struct { const char *key; uint64_t v; } counts[] = {
        {"warp_instructions", in->warp_instructions}, {"fp32_instructions", in->fp32},
        {"fp64_instructions", in->fp64}, {"sfu_instructions", in->sfu}, {"int_instructions", in->integer},
        {"mem_instructions", in->mem}, {"ctrl_instructions", in->ctrl}, {"global_requests", in->global_requests},
        {"global_sectors", in->global_sectors}, {"global_store_sectors", in->global_store_sectors},
        {"global_ideal_sectors", in->global_ideal_sectors}, {"shared_requests", in->shared_requests},
        {"bank_conflict_wavefronts", in->shared_wavefronts}, {"atomics", in->atomics},
        {"memory_waits", in->memory_waits}, {"memory_waits_hit", in->memory_waits_hit},
        {"critical_instructions", in->critical_instructions}, {"critical_waits", in->critical_waits},
        {"critical_hit_waits", in->critical_hit_waits}, {"critical_requests", in->critical_requests},
        {"barriers", in->barriers}, {"blocks", in->blocks}, {"warps", in->warps},
        {"threads_per_block", (uint64_t)(in->threads_per_block > 0 ? in->threads_per_block : 0)},
        {"registers", (uint64_t)(in->registers > 0 ? in->registers : 0)},
        {"shared_per_block", (uint64_t)in->shared_per_block}, {"footprint_bytes", in->footprint_bytes},
    };
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        json_object_set_new(i, counts[k].key, json_integer((json_int_t)counts[k].v));
    json_object_set_new(o, "input", i);
    return o;
}
