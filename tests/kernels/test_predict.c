/* tests/kernels/test_predict.c: the time prediction (kernels/predict.h)
 * follows its documented model (kernels/PREDICT.md) on the H200's
 * calibration: an empty launch costs the fixed cost, a streaming kernel
 * at GPU size lands on the anchors' measured times, few warps waiting on
 * memory are latency-bound, bank-conflict replays and SFU work raise the
 * time, the chain follows a block's slowest warp and charges L1 hits less
 * than round trips, L1 hits stay out of L2, a scattered request's sectors
 * cost L2 and the L1 one transaction each, and the emulator's metrics JSON
 * reads back into the inputs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/predict.h"

/* A grid-stride stream over `bytes` (read, plus `written`) by 1056 blocks of 256. */
static PredictInput stream(double bytes, double written) {
    PredictInput in;
    memset(&in, 0, sizeof in);
    in.blocks = 132 * 8;
    in.threads_per_block = 256;
    in.warps = in.blocks * 8;
    in.global_sectors = (uint64_t)((bytes + written) / 32);
    in.global_store_sectors = (uint64_t)(written / 32);
    in.global_ideal_sectors = in.global_sectors;
    uint64_t requests = in.global_sectors / 16;   /* 16-byte loads: 16 sectors a request */
    in.mem = requests;
    in.warp_instructions = requests * 6;
    in.fp32 = requests * 4;
    in.memory_waits = requests / 4;               /* four loads in flight per wait */
    return in;
}

static void calib__finds_h200__by_device_or_arch(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    assert_string_equal(c->device, "H200");
    assert_ptr_equal(perf_calib_find("h200"), c);
    assert_ptr_equal(perf_calib_find("sm_90"), c);
    assert_ptr_equal(perf_calib_find("9.0"), c);
    assert_null(perf_calib_find("sm_75"));
    assert_null(perf_calib_find(NULL));
    assert_non_null(strstr(c->provenance, "anchors"));
}

static void kernel__costs_the_fixed_cost__when_it_does_nothing(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    PredictInput in;
    memset(&in, 0, sizeof in);
    in.blocks = 1;
    in.threads_per_block = 32;
    in.warp_instructions = 1;
    Prediction p;
    predict_kernel(c, NULL, &in, &p);
    assert_float_equal(p.us, c->fixed_us, 0.01);
    assert_string_equal(p.bound, "launch");
    assert_int_equal(p.active_sms, 1);
    assert_int_equal(p.waves, 1);
}

static void kernel__lands_on_the_anchors__when_streaming_at_gpu_size(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    Prediction p;
    /* reduce-peak: 2^29 floats read, measured 0.484 ms on the H200 */
    PredictInput in = stream(4.0 * (1 << 29), 0);
    in.footprint_bytes = 4ull << 29;
    predict_kernel(c, NULL, &in, &p);
    assert_string_equal(p.bound, "DRAM bandwidth");
    assert_true(p.us > 0.484e3 * 0.95 && p.us < 0.484e3 * 1.10);
    /* transpose-tiled: 8192^2 floats read and written, measured 0.150 ms (86.5% of a copy) */
    in = stream(4.0 * 8192 * 8192, 4.0 * 8192 * 8192);
    in.footprint_bytes = 8ull * 8192 * 8192;
    predict_kernel(c, NULL, &in, &p);
    assert_true(p.us > 0.150e3 * 0.77 && p.us < 0.150e3 * 1.30);
    assert_true(p.copy_fraction > 0.85 && p.copy_fraction <= 1.0);
}

static void kernel__is_latency_bound__when_few_warps_wait_on_memory(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    PredictInput in = stream(4.0 * 90515, 0);   /* reduce-peak on the emulator: 8 blocks */
    in.blocks = 8;
    in.warps = 64;
    in.memory_waits = 64 * 3;
    Prediction p;
    predict_kernel(c, NULL, &in, &p);
    double round_trip_us = c->latency_cycles / (c->clock_ghz * 1e3);
    assert_true(p.chain_us >= 3 * round_trip_us);
    assert_true(p.chain_us > p.dram_us);
    assert_int_equal(p.active_sms, 8);
    /* more waits per warp: slower, by about the round trips added */
    in.memory_waits = 64 * 12;
    Prediction q;
    predict_kernel(c, NULL, &in, &q);
    assert_true(q.us - p.us > 8 * round_trip_us);
    assert_string_equal(q.bound, "memory latency");
}

static void kernel__charges_replays_and_sfu__when_shared_conflicts_or_transcendentals(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    PredictInput in;
    memset(&in, 0, sizeof in);
    in.blocks = 132;
    in.threads_per_block = 1024;
    in.warp_instructions = 132 * 32 * 100;
    in.shared_wavefronts = 132 * 32 * 100;   /* one wavefront per instruction */
    Prediction ok, conflicted;
    predict_kernel(c, NULL, &in, &ok);
    in.shared_wavefronts *= 32;              /* a 32-way conflict */
    predict_kernel(c, NULL, &in, &conflicted);
    assert_string_equal(conflicted.bound, "shared memory");
    assert_true(conflicted.us > 10 * ok.work_us);
    in.shared_wavefronts = 0;
    in.warp_instructions *= 10;              /* well past the fixed launch cost, whatever its calibration */
    in.sfu = in.warp_instructions;
    Prediction sfu;
    predict_kernel(c, NULL, &in, &sfu);
    assert_string_equal(sfu.bound, "SFU pipe");
    assert_float_equal(sfu.pipe_us, (double)in.sfu / 132 / c->sfu_per_clk / (c->clock_ghz * 1e3), 1e-6);
}

static void kernel__runs_in_waves__when_blocks_exceed_what_sms_hold(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    PredictInput in;
    memset(&in, 0, sizeof in);
    in.threads_per_block = 1024;             /* 2 blocks per SM */
    in.blocks = 132 * 2;
    in.warps = in.blocks * 32;
    in.warp_instructions = in.warps * 1000;
    Prediction one, two;
    predict_kernel(c, NULL, &in, &one);
    in.blocks = 132 * 2 + 1;                 /* one block more: a second wave on one SM */
    in.warps = in.blocks * 32;
    in.warp_instructions = in.warps * 1000;
    predict_kernel(c, NULL, &in, &two);
    assert_int_equal(one.waves, 1);
    assert_int_equal(two.waves, 2);
    assert_int_equal(two.blocks_per_sm, 2);
    assert_true(two.work_us > 1.4 * one.work_us);
}

static void input__reads_the_emulator_totals__from_metrics_json(void **state) {
    (void)state;
    json_t *m = json_pack("{s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}}", "totals", "warp_instructions", 100,
                          "fp32_instructions", 40, "global_sectors", 64, "global_store_sectors", 32,
                          "bank_conflict_wavefronts", 7, "memory_waits", 3, "blocks", 2, "warps", 16);
    PredictInput in;
    assert_true(predict_input_from_metrics(m, &in));
    assert_int_equal(in.warp_instructions, 100);
    assert_int_equal(in.fp32, 40);
    assert_int_equal(in.global_store_sectors, 32);
    assert_int_equal(in.shared_wavefronts, 7);
    assert_int_equal(in.memory_waits, 3);
    assert_int_equal(in.warps, 16);
    assert_true(predict_input_from_metrics(json_object_get(m, "totals"), &in));
    json_t *empty = json_object();
    assert_false(predict_input_from_metrics(empty, &in));
    Prediction p;
    in.threads_per_block = 256;
    predict_kernel(perf_calib_default(), NULL, &in, &p);
    json_t *j = predict_to_json(perf_calib_default(), &p);
    assert_string_equal(json_string_value(json_object_get(j, "device")), "H200");
    assert_float_equal(json_real_value(json_object_get(j, "ms")), p.us / 1e3, 1e-12);
    assert_non_null(json_object_get(json_object_get(j, "terms_us"), "latency_chain"));
    json_decref(j);
    json_decref(empty);
    json_decref(m);
}

static void kernel__adds_requests_and_barriers_to_the_chain__per_warp_and_per_block(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    PredictInput in;
    memset(&in, 0, sizeof in);
    in.blocks = 4;                           /* one block per SM, one wave */
    in.threads_per_block = 256;
    in.warps = 32;
    in.warp_instructions = 32 * 100;
    in.memory_waits = 32 * 10;
    Prediction base, more;
    predict_kernel(c, NULL, &in, &base);
    in.global_requests = 32 * 10;            /* 10 requests per warp */
    in.barriers = 4 * 3;                     /* 3 barriers per block */
    predict_kernel(c, NULL, &in, &more);
    double cycles = (more.chain_us - base.chain_us) * c->clock_ghz * 1e3;
    assert_float_equal(cycles, 10 * c->request_cycles + 3 * c->barrier_cycles, 0.01);
    assert_float_equal(base.chain_us * c->clock_ghz * 1e3, 100 * c->dep_cycles + 10 * c->latency_cycles, 0.01);
    assert_string_equal(more.bound, "memory latency");
}

static void kernel__overlaps_terms_partly__as_their_p_norm(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    PredictInput in;
    memset(&in, 0, sizeof in);
    in.blocks = 132;                         /* one warp per SM: the busiest SM's L1 carries 1/132 of the sectors */
    in.threads_per_block = 32;
    in.warps = 132;
    in.warp_instructions = 132;
    in.memory_waits = 132 * 100;             /* the chain alone */
    Prediction p;
    predict_kernel(c, NULL, &in, &p);
    double chain = p.chain_us;
    assert_true(chain > 10 * (p.issue_us + p.pipe_us));
    assert_float_equal(p.work_us, chain, 0.01 * chain);
    in.global_sectors = (uint64_t)(chain * c->l2_gbs * 1e3 / 32);   /* an L2 term as long as the chain */
    in.footprint_bytes = 32;
    predict_kernel(c, NULL, &in, &p);
    assert_float_equal(p.work_us, chain * pow(2.0, 1.0 / c->overlap_p), 0.02 * chain);
}

/* One block of 8 warps, few instructions: the chain alone decides. */
static PredictInput one_block(void) {
    PredictInput in;
    memset(&in, 0, sizeof in);
    in.blocks = 1;
    in.threads_per_block = 256;
    in.warps = 8;
    in.warp_instructions = 8 * 10;
    in.memory_waits = 8 * 2;                 /* 2 per warp on average */
    return in;
}

static void kernel__follows_the_slowest_warp__when_the_critical_path_is_counted(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    PredictInput in = one_block();
    Prediction avg, crit;
    predict_kernel(c, NULL, &in, &avg);       /* a file from before the critical path: the average warp */
    assert_float_equal(avg.chain_us, (10 * c->dep_cycles + 2 * c->latency_cycles) / (c->clock_ghz * 1e3), 1e-9);
    /* one warp takes a ticket, publishes and looks back: 9 waits on the
     * block's path between its barriers, 40 instructions, 3 requests */
    in.critical_instructions = 40;
    in.critical_waits = 9;
    in.critical_requests = 3;
    predict_kernel(c, NULL, &in, &crit);
    assert_float_equal(crit.chain_us,
                       (40 * c->dep_cycles + 9 * c->latency_cycles + 3 * c->request_cycles) / (c->clock_ghz * 1e3), 1e-9);
    assert_true(crit.us > avg.us + 2 * c->latency_cycles / (c->clock_ghz * 1e3) * 0.5);
    in.blocks = 4;                           /* summed over blocks: per block the same path */
    in.warps = 32;
    in.warp_instructions *= 4;
    in.memory_waits *= 4;
    in.critical_instructions *= 4;
    in.critical_waits *= 4;
    in.critical_requests *= 4;
    Prediction four;
    predict_kernel(c, NULL, &in, &four);
    assert_float_equal(four.chain_us, crit.chain_us, 1e-9);
}

static void kernel__charges_hit_cycles__for_waits_on_sectors_the_block_read_before(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    assert_true(c->hit_cycles > 0 && c->hit_cycles < c->latency_cycles / 2);
    PredictInput in = one_block();
    in.critical_instructions = 10;
    in.critical_waits = 100;
    Prediction cold, hot;
    predict_kernel(c, NULL, &in, &cold);
    in.critical_hit_waits = 50;              /* a histogram's re-read bins: half its waits hit L1 */
    in.memory_waits_hit = 8 * 50;
    predict_kernel(c, NULL, &in, &hot);
    assert_float_equal(cold.chain_us - hot.chain_us, 50 * (c->latency_cycles - c->hit_cycles) / (c->clock_ghz * 1e3),
                       1e-5);   /* a difference of two sums of ~14 us: rounding, not the model */
    /* the averages of an older file split the same way */
    PredictInput old = one_block();
    old.memory_waits = 8 * 100;
    old.memory_waits_hit = 8 * 50;
    Prediction o;
    predict_kernel(c, NULL, &old, &o);
    assert_float_equal(o.chain_us, (10 * c->dep_cycles + 50 * c->latency_cycles + 50 * c->hit_cycles) /
                                       (c->clock_ghz * 1e3), 1e-9);
}

/* 132 blocks of one warp, one per SM, reading `sectors` in all, 32 sectors
 * a request, one wait per warp: a launch whose sectors the tests make
 * scattered (ideal below sectors) or L1 hits (memory_waits_hit). */
static PredictInput spread(uint64_t sectors) {
    PredictInput in;
    memset(&in, 0, sizeof in);
    in.blocks = 132;
    in.threads_per_block = 32;
    in.warps = 132;
    in.global_sectors = sectors;
    in.global_ideal_sectors = sectors;
    in.global_requests = sectors / 32;
    in.mem = in.global_requests;
    in.warp_instructions = in.mem;
    in.memory_waits = in.warps;
    in.footprint_bytes = 32;                 /* re-reads of one sector: DRAM plays no part */
    return in;
}

static void kernel__charges_l2_a_transaction_per_sector__when_a_request_scatters_them(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    assert_true(c->l2_sector_gbs > 0 && c->l2_sector_gbs < c->l2_gbs);
    PredictInput in = spread(132ull * 1000000);
    Prediction lines, scattered;
    predict_kernel(c, NULL, &in, &lines);
    assert_float_equal(lines.l2_us, 132e6 * 32 / (c->l2_gbs * 1e3), 1e-6);
    /* strided-access's starter: a warp's 32 floats in 32 rows, 32 sectors where 4 would do */
    in.global_ideal_sectors = in.global_sectors / 8;
    predict_kernel(c, NULL, &in, &scattered);
    double e = 7.0 / 8;                      /* the sectors beyond the ideal: one transaction each */
    assert_float_equal(scattered.l2_us, 132e6 * 32 * ((1 - e) / (c->l2_gbs * 1e3) + e / (c->l2_sector_gbs * 1e3)), 1e-6);
    assert_true(scattered.l2_us > 2 * lines.l2_us);
    assert_string_equal(scattered.bound, "L2 bandwidth");
    /* a file from before the ideal was counted: not scattered */
    in.global_ideal_sectors = 0;
    Prediction old;
    predict_kernel(c, NULL, &in, &old);
    assert_float_equal(old.l2_us, lines.l2_us, 1e-9);
}

static void kernel__leaves_l1_hits_out_of_l2__when_the_waits_hit(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    PredictInput in = spread(132ull * 1000000);
    Prediction cold, hot;
    predict_kernel(c, NULL, &in, &cold);
    in.memory_waits_hit = in.memory_waits * 3 / 4;   /* a naive SGEMM re-reading its column of A: 3 of 4 waits hit L1 */
    predict_kernel(c, NULL, &in, &hot);
    assert_float_equal(hot.l2_us, cold.l2_us / 4, 1e-6 * cold.l2_us);
    assert_float_equal(hot.l2_bytes, cold.l2_bytes / 4, 1);
    /* stores pass L1 whatever the loads hit */
    in.global_store_sectors = in.global_sectors / 2;
    Prediction st;
    predict_kernel(c, NULL, &in, &st);
    assert_float_equal(st.l2_bytes, 32.0 * (66e6 + 66e6 / 4), 1);
    /* a footprint L2 cannot keep: DRAM serves again only the re-reads that reach L2 */
    in.global_store_sectors = 0;
    in.footprint_bytes = 100ull << 20;
    Prediction big;
    predict_kernel(c, NULL, &in, &big);
    double fp = 100.0 * (1 << 20);
    assert_float_equal(big.dram_bytes, fp + (hot.l2_bytes - fp) * (1 - c->l2_bytes / fp), 1);
}

static void kernel__charges_the_busiest_sms_l1__a_line_per_scattered_sector(void **state) {
    (void)state;
    const PerfCalib *c = perf_calib_default();
    assert_true(c->l1_lines_per_clk > 0);
    const double clk = c->clock_ghz * 1e3;
    /* 4 blocks of 32 warps, 1e6 sectors each, every wait an L1 hit: L2 sees none of it */
    PredictInput in = spread(4ull * 1000000);
    in.blocks = 4;
    in.threads_per_block = 1024;
    in.warps = 4 * 32;
    in.memory_waits = in.memory_waits_hit = in.warps;
    Prediction lines, scattered;
    predict_kernel(c, NULL, &in, &lines);
    assert_float_equal(lines.l2_us, 0, 1e-12);
    assert_float_equal(lines.l1_us, 1e6 / 4 / c->l1_lines_per_clk / clk, 1e-9);   /* four sectors a line */
    /* a naive SGEMM's column of A: 32 sectors in 32 lines where 4 sectors would do */
    in.global_ideal_sectors = in.global_sectors / 8;
    predict_kernel(c, NULL, &in, &scattered);
    assert_float_equal(scattered.l1_us, 1e6 * (1.0 / 8 / 4 + 7.0 / 8) / c->l1_lines_per_clk / clk, 1e-9);
    assert_string_equal(scattered.bound, "L1 throughput");
    /* the same work on 132 SMs: each carries 1/33 of it */
    in.blocks = 132;
    in.warps = 132 * 32;
    Prediction wide;
    predict_kernel(c, NULL, &in, &wide);
    assert_float_equal(wide.l1_us, scattered.l1_us / 33, 1e-9);
    json_t *j = predict_to_json(c, &scattered);
    assert_float_equal(json_real_value(json_object_get(json_object_get(j, "terms_us"), "l1")), scattered.l1_us, 1e-12);
    json_decref(j);
}

static void input__round_trips__through_the_predictions_json_input(void **state) {
    (void)state;
    PredictInput in;
    memset(&in, 0, sizeof in);
    in.warp_instructions = 1000;
    in.fp32 = 11;
    in.integer = 12;
    in.global_requests = 13;
    in.global_sectors = 14;
    in.shared_requests = 15;
    in.memory_waits = 16;
    in.memory_waits_hit = 5;
    in.critical_instructions = 900;
    in.critical_waits = 7;
    in.critical_hit_waits = 3;
    in.critical_requests = 8;
    in.barriers = 17;
    in.blocks = 18;
    in.warps = 19;
    in.threads_per_block = 64;
    in.registers = 40;
    in.shared_per_block = 4096;
    in.footprint_bytes = 123456;
    Prediction p;
    predict_kernel(perf_calib_default(), NULL, &in, &p);
    json_t *j = predict_to_json(perf_calib_default(), &p);
    PredictInput back;
    assert_true(predict_input_from_metrics(json_object_get(j, "input"), &back));
    assert_memory_equal(&back, &in, sizeof in);
    Prediction q;
    predict_kernel(perf_calib_default(), NULL, &back, &q);
    assert_float_equal(q.us, p.us, 1e-12);
    json_decref(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(calib__finds_h200__by_device_or_arch),
        cmocka_unit_test(kernel__costs_the_fixed_cost__when_it_does_nothing),
        cmocka_unit_test(kernel__lands_on_the_anchors__when_streaming_at_gpu_size),
        cmocka_unit_test(kernel__is_latency_bound__when_few_warps_wait_on_memory),
        cmocka_unit_test(kernel__charges_replays_and_sfu__when_shared_conflicts_or_transcendentals),
        cmocka_unit_test(kernel__runs_in_waves__when_blocks_exceed_what_sms_hold),
        cmocka_unit_test(input__reads_the_emulator_totals__from_metrics_json),
        cmocka_unit_test(kernel__adds_requests_and_barriers_to_the_chain__per_warp_and_per_block),
        cmocka_unit_test(kernel__overlaps_terms_partly__as_their_p_norm),
        cmocka_unit_test(kernel__follows_the_slowest_warp__when_the_critical_path_is_counted),
        cmocka_unit_test(kernel__charges_hit_cycles__for_waits_on_sectors_the_block_read_before),
        cmocka_unit_test(kernel__charges_l2_a_transaction_per_sector__when_a_request_scatters_them),
        cmocka_unit_test(kernel__leaves_l1_hits_out_of_l2__when_the_waits_hit),
        cmocka_unit_test(kernel__charges_the_busiest_sms_l1__a_line_per_scattered_sector),
        cmocka_unit_test(input__round_trips__through_the_predictions_json_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
