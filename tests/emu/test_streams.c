/* tests/emu/test_streams.c: streams, events and asynchronous copies on the
 * emulator. Results are exact (everything runs in program order); the
 * modeled timeline follows CUDA's stream semantics: work in one stream is
 * ordered, pinned copies overlap kernels of other streams, pageable copies
 * block the host so nothing overlaps them, and the legacy default stream
 * serialises with blocking streams. */
#include "tests/emu/emu_fixture.h"

#include <limits.h>

#include "kernels/costmodel.h"
#include "kernels/emu/emu.h"

static const char *SRC =
    "__global__ void scale(float *x, int n, int iters) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    float v = x[i];\n"
    "    for (int j = 0; j < iters; j++) v = v * 1.0001f + 0.5f;\n"
    "    x[i] = v + 1.0f;\n"
    "}\n";

#define N 4096
#define CHUNKS 2

typedef struct Sx {
    EmuFx f;
    int s[CHUNKS];
    DevPtr d[CHUNKS];
    float *h[CHUNKS];
} Sx;

static int setup(void **state) {
    Sx *x = calloc(1, sizeof *x);
    EmuOptions o = fx_opts(false, true);
    fx_load(&x->f, SRC, &o);
    Backend *b = x->f.b;
    for (int i = 0; i < CHUNKS; i++) {
        StreamOptions so = {0, false, i ? "s2" : "s1"};
        assert_null(b->ops->stream_create(b, &so, &x->s[i]));
        x->d[i] = fx_array(&x->f, i ? "chunk1" : "chunk0", 4, N, NULL);
        assert_null(b->ops->host_alloc(b, N * 4, (void **)&x->h[i]));
        for (int k = 0; k < N; k++) x->h[i][k] = (float)k;
    }
    b->ops->timeline_reset(b);
    *state = x;
    return 0;
}

static int teardown(void **state) {
    Sx *x = *state;
    for (int i = 0; i < CHUNKS; i++) {
        x->f.b->ops->host_free(x->f.b, x->h[i]);
        assert_null(x->f.b->ops->stream_destroy(x->f.b, x->s[i]));
    }
    fx_free(&x->f);
    free(x);
    return 0;
}

static void copy(Sx *x, CopyDir dir, int i, int stream, bool pinned) {
    CopyRequest rq = {dir, stream, x->d[i], 0, x->h[i], N * 4, pinned, NULL};
    assert_null(x->f.b->ops->copy_async(x->f.b, &rq));
}

static void kernel(Sx *x, int i, int stream, int iters, unsigned grid) {
    KernelArg a[3] = {kernel_arg_ptr(x->d[i]), kernel_arg_i32(N), kernel_arg_i32(iters)};
    LaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.grid = (Dim3){grid, 1, 1};
    cfg.block = (Dim3){(N + grid - 1) / grid < 1024 ? (N + grid - 1) / grid : 1024, 1, 1};
    cfg.stream = stream;
    cfg.async = true;
    launch_report_fini(&x->f.r);
    Diag *d = x->f.b->ops->launch(x->f.b, x->f.m, "scale", &cfg, a, 3, &x->f.r);
    if (d) fail_msg("launch: %s", d->message);
}

static Timeline *timeline(Sx *x) {
    Timeline *t = NULL;
    assert_null(x->f.b->ops->timeline_get(x->f.b, &t));
    assert_non_null(t);
    assert_true(t->modeled);
    assert_string_equal(t->source, "emu-model");
    return t;
}

static double end_of(const TimelineEntry *e) { return e->start_us + e->dur_us; }

/* h2d, kernel, d2h per chunk, each chunk on its own stream (depth first). */
static void chunked(Sx *x, bool pinned) {
    for (int i = 0; i < CHUNKS; i++) {
        copy(x, COPY_H2D, i, x->s[i], pinned);
        kernel(x, i, x->s[i], 200, 16);
        copy(x, COPY_D2H, i, x->s[i], pinned);
    }
    assert_null(x->f.b->ops->device_synchronize(x->f.b));
}

static void one_stream__runs_in_order__and_results_are_exact(void **state) {
    Sx *x = *state;
    copy(x, COPY_H2D, 0, x->s[0], true);
    kernel(x, 0, x->s[0], 3, 16);
    kernel(x, 0, x->s[0], 3, 16);
    copy(x, COPY_D2H, 0, x->s[0], true);
    assert_null(x->f.b->ops->stream_synchronize(x->f.b, x->s[0]));
    Timeline *t = timeline(x);
    assert_int_equal(t->n, 5);          /* 4 operations and the host's wait */
    for (int i = 1; i < 4; i++) assert_true(t->v[i].start_us >= end_of(&t->v[i - 1]) - 1e-9);
    assert_int_equal(t->v[0].kind, TL_H2D);
    assert_true(t->v[0].pinned);
    assert_int_equal(t->v[0].bytes, N * 4);
    assert_string_equal(t->v[0].name, "copy chunk0 -> device");
    assert_int_equal(t->v[1].kind, TL_KERNEL);
    assert_int_equal(t->v[1].grid[0], 16);
    assert_int_equal(t->v[4].kind, TL_SYNC);
    assert_int_equal(t->v[4].stream, TIMELINE_HOST);
    assert_float_equal(end_of(&t->v[4]), end_of(&t->v[3]), 1e-9);
    timeline_free(&t);
    /* twice v -> (v*1.0001+0.5)^3 + 1: element 7 */
    float v = 7.0f;
    for (int r = 0; r < 2; r++) {
        for (int j = 0; j < 3; j++) v = v * 1.0001f + 0.5f;
        v += 1.0f;
    }
    assert_float_equal(x->h[0][7], v, 1e-4);
}

static void copy_overlaps_kernel__when_pinned_in_two_streams(void **state) {
    Sx *x = *state;
    chunked(x, true);
    Timeline *t = timeline(x);
    const TimelineEntry *k0 = timeline_find(t, TL_KERNEL, "scale", x->s[0], 1);
    const TimelineEntry *h1 = timeline_find(t, TL_H2D, NULL, x->s[1], 1);
    const TimelineEntry *d0 = timeline_find(t, TL_D2H, NULL, x->s[0], 1);
    const TimelineEntry *k1 = timeline_find(t, TL_KERNEL, "scale", x->s[1], 1);
    assert_non_null(k0);
    assert_non_null(h1);
    assert_true(timeline_overlap(h1, k0));
    /* a kernel of 16 blocks leaves SMs free: both chunks' kernels may overlap */
    assert_true(timeline_overlap(k0, k1) || k1->start_us >= end_of(k0));
    /* D2H of chunk 0 overlaps the H2D engine's work or the kernel of chunk 1 */
    assert_true(d0->start_us >= end_of(k0) - 1e-9);
    timeline_free(&t);
}

static void nothing_overlaps__when_copies_are_pageable(void **state) {
    Sx *x = *state;
    chunked(x, false);
    Timeline *t = timeline(x);
    for (int i = 0; i < t->n; i++)
        for (int j = i + 1; j < t->n; j++)
            if (t->v[i].stream != TIMELINE_HOST && t->v[j].stream != TIMELINE_HOST)
                assert_false(timeline_overlap(&t->v[i], &t->v[j]));
    const TimelineEntry *h1 = timeline_find(t, TL_H2D, NULL, x->s[1], 1);
    const TimelineEntry *d0 = timeline_find(t, TL_D2H, NULL, x->s[0], 1);
    assert_false(h1->pinned);
    assert_true(h1->start_us >= end_of(d0) - 1e-9);
    timeline_free(&t);
}

static void pageable_copy__takes_longer_than_pinned(void **state) {
    Sx *x = *state;
    copy(x, COPY_H2D, 0, x->s[0], true);
    copy(x, COPY_H2D, 1, x->s[1], false);
    Timeline *t = timeline(x);
    CostModel m;
    costmodel_for_profile(profile_find("sm_90"), &m);
    assert_float_equal(t->v[0].dur_us, costmodel_copy_us(&m, N * 4, 1), 1e-9);
    assert_float_equal(t->v[1].dur_us, costmodel_copy_us(&m, N * 4, 0), 1e-9);
    assert_true(t->v[1].dur_us > t->v[0].dur_us);
    timeline_free(&t);
}

static void default_stream__serialises_with_blocking_streams(void **state) {
    Sx *x = *state;
    /* one-block kernels (longer than a launch call) could all run at once... */
    kernel(x, 0, x->s[0], 1000, 1);
    kernel(x, 1, x->s[1], 1000, 1);
    /* ...but one on the legacy stream waits for both, and later ones wait for it */
    kernel(x, 0, 0, 1000, 1);
    kernel(x, 1, x->s[1], 1000, 1);
    Timeline *t = timeline(x);
    const TimelineEntry *a = &t->v[0], *b = &t->v[1], *legacy = &t->v[2], *after = &t->v[3];
    assert_true(timeline_overlap(a, b));
    assert_int_equal(legacy->stream, 0);
    assert_true(legacy->start_us >= end_of(a) - 1e-9 && legacy->start_us >= end_of(b) - 1e-9);
    assert_true(after->start_us >= end_of(legacy) - 1e-9);
    timeline_free(&t);
}

static void non_blocking_stream__does_not_wait_for_default_stream(void **state) {
    Sx *x = *state;
    StreamOptions so = {0, true, "nb"};
    int nb;
    assert_null(x->f.b->ops->stream_create(x->f.b, &so, &nb));
    kernel(x, 0, 0, 1000, 1);
    kernel(x, 1, nb, 1000, 1);
    Timeline *t = timeline(x);
    assert_true(timeline_overlap(&t->v[0], &t->v[1]));
    timeline_free(&t);
    assert_null(x->f.b->ops->stream_destroy(x->f.b, nb));
    Diag *d = x->f.b->ops->stream_destroy(x->f.b, nb);   /* twice */
    assert_non_null(d);
    assert_non_null(strstr(d->message, "invalid resource handle"));
    diag_free(&d);
}

static void big_kernels__share_sms_one_after_another(void **state) {
    Sx *x = *state;
    kernel(x, 0, x->s[0], 100, 256);      /* 256 blocks: every SM */
    kernel(x, 1, x->s[1], 100, 256);
    Timeline *t = timeline(x);
    assert_false(timeline_overlap(&t->v[0], &t->v[1]));
    timeline_free(&t);
}

static void events__time_the_kernel__once_synchronized(void **state) {
    Sx *x = *state;
    Backend *b = x->f.b;
    int e0, e1;
    assert_null(b->ops->event_create(b, &e0));
    assert_null(b->ops->event_create(b, &e1));
    assert_null(b->ops->event_record(b, e0, x->s[0]));
    kernel(x, 0, x->s[0], 500, 16);
    assert_null(b->ops->event_record(b, e1, x->s[0]));
    double ms = -1;
    bool modeled = false;
    Diag *d = b->ops->event_elapsed_ms(b, e0, e1, &ms, &modeled);
    assert_non_null(d);                   /* not complete yet: as cudaErrorNotReady */
    assert_non_null(strstr(d->message, "not ready"));
    diag_free(&d);
    assert_null(b->ops->event_synchronize(b, e1));
    assert_null(b->ops->event_elapsed_ms(b, e0, e1, &ms, &modeled));
    assert_true(modeled);
    Timeline *t = timeline(x);
    const TimelineEntry *k = timeline_find(t, TL_KERNEL, "scale", INT_MIN, 1);
    const TimelineEntry *r0 = timeline_find(t, TL_EVENT, NULL, x->s[0], 1);
    const TimelineEntry *r1 = timeline_find(t, TL_EVENT, NULL, x->s[0], 2);
    assert_non_null(r1);
    /* the events bracket the launch latency and the kernel */
    assert_float_equal(ms, (r1->start_us - r0->start_us) / 1e3, 1e-12);
    assert_float_equal(r1->start_us, end_of(k), 1e-9);
    assert_true(ms * 1e3 > k->dur_us);
    assert_non_null(timeline_find(t, TL_SYNC, NULL, TIMELINE_HOST, 1));
    timeline_free(&t);
    assert_null(b->ops->event_destroy(b, e0));
    assert_null(b->ops->event_destroy(b, e1));
}

static void host_work__overlaps_async_kernel__on_host_row(void **state) {
    Sx *x = *state;
    Backend *b = x->f.b;
    kernel(x, 0, x->s[0], 2000, 16);
    b->ops->host_work_begin(b, "count");
    b->ops->host_work_end(b, 5.0);
    Timeline *t = timeline(x);
    const TimelineEntry *h = timeline_find(t, TL_HOST, "count", TIMELINE_HOST, 1);
    assert_non_null(h);
    assert_float_equal(h->dur_us, 5.0, 1e-12);
    assert_true(timeline_overlap(h, &t->v[0]));
    timeline_free(&t);
}

/* Tiny kernels launched one by one are paced by the host (a launch call
 * costs it launch_host_us) and each waits launch_gap_us after the one
 * before; the same kernels as one graph's nodes follow each other
 * graph_node_gap_us apart. */
static void graph_nodes__follow_closer__than_separate_launches(void **state) {
    Sx *x = *state;
    Backend *b = x->f.b;
    CostModel m;
    costmodel_for_profile(NULL, &m);   /* the launch figures are the same for every part */
    for (int i = 0; i < 4; i++) kernel(x, 0, x->s[0], 1, 1);
    emu_model_graph_begin(b);
    for (int i = 0; i < 4; i++) kernel(x, 0, x->s[0], 1, 1);
    emu_model_graph_end(b);
    assert_null(b->ops->device_synchronize(b));
    Timeline *t = timeline(x);
    const TimelineEntry *k[8];
    int n = 0;
    for (int i = 0; i < t->n && n < 8; i++)
        if (t->v[i].kind == TL_KERNEL) k[n++] = &t->v[i];
    assert_int_equal(n, 8);
    for (int i = 1; i < 4; i++) {
        double gap = k[i]->start_us - end_of(k[i - 1]);
        assert_true(gap >= m.launch_gap_us - 1e-9);
        /* the host needs launch_host_us per launch, more than the GPU per kernel */
        assert_float_equal(k[i]->start_us - k[i - 1]->start_us, m.launch_host_us, 1e-6);
    }
    for (int i = 5; i < 8; i++) assert_float_equal(k[i]->start_us - end_of(k[i - 1]), m.graph_node_gap_us, 1e-6);
    double plain = end_of(k[3]) - k[0]->start_us, graph = end_of(k[7]) - k[4]->start_us;
    assert_true(graph * 1.5 < plain);
    timeline_free(&t);
}

static void plain_launch__waits_and_runs_on_default_stream(void **state) {
    Sx *x = *state;
    KernelArg a[3] = {kernel_arg_ptr(x->d[0]), kernel_arg_i32(N), kernel_arg_i32(1)};
    fx_run(&x->f, "scale", 16, 256, a, 3);
    float back[N];
    fx_get(&x->f, back, x->d[0], sizeof back);
    Timeline *t = timeline(x);
    assert_int_equal(t->n, 2);
    assert_int_equal(t->v[0].stream, 0);
    assert_int_equal(t->v[1].kind, TL_D2H);
    assert_false(t->v[1].pinned);
    assert_true(t->v[1].start_us >= end_of(&t->v[0]) - 1e-9);
    timeline_free(&t);
}

static void bad_stream__is_an_error_like_cuda(void **state) {
    Sx *x = *state;
    CopyRequest rq = {COPY_H2D, 99, x->d[0], 0, x->h[0], 16, true, NULL};
    Diag *d = x->f.b->ops->copy_async(x->f.b, &rq);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "invalid resource handle"));
    diag_free(&d);
    d = x->f.b->ops->stream_destroy(x->f.b, 0);
    assert_non_null(d);
    diag_free(&d);
}

int main(void) {
    (void)fx_total, (void)fx_line, (void)fx_finding;
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(one_stream__runs_in_order__and_results_are_exact),
        T(copy_overlaps_kernel__when_pinned_in_two_streams),
        T(nothing_overlaps__when_copies_are_pageable),
        T(pageable_copy__takes_longer_than_pinned),
        T(default_stream__serialises_with_blocking_streams),
        T(non_blocking_stream__does_not_wait_for_default_stream),
        T(big_kernels__share_sms_one_after_another),
        T(events__time_the_kernel__once_synchronized),
        T(host_work__overlaps_async_kernel__on_host_row),
        T(graph_nodes__follow_closer__than_separate_launches),
        T(plain_launch__waits_and_runs_on_default_stream),
        T(bad_stream__is_an_error_like_cuda),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
