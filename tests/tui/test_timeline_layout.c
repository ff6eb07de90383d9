/* tests/tui/test_timeline_layout.c: the timeline screen's arithmetic, from
 * a run's metrics.timeline: the rows (host first, one per stream), bars in
 * time order, nice tick steps with units, where bars land in columns as the
 * learner zooms and pans, and the cursor moving between bars and rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/tui/tui_timeline.h"

/* Two streams copying and computing in overlap, host work, a stream (3)
 * the list does not name, a recorded event, and streams 4 and 11 that
 * earlier runs of the worker made and this run left empty. */
static const char TIMELINE[] =
    "{\"modeled\": true, \"source\": \"emu-model\", \"device\": \"H200 profile (sm_90)\","
    " \"streams\": [{\"id\": 2, \"name\": \"s2\"}, {\"id\": 0, \"name\": \"default (legacy)\"},"
    "               {\"id\": 1, \"name\": \"s1\"}, {\"id\": 4, \"name\": \"old\"}, {\"id\": 11}],"
    " \"events\": ["
    "  {\"kind\": \"kernel\", \"stream\": 1, \"name\": \"vector_add\", \"start_us\": 100, \"dur_us\": 100,"
    "   \"grid\": [3907,1,1], \"block\": [256,1,1]},"
    "  {\"kind\": \"h2d\", \"stream\": 1, \"name\": \"copy a0\", \"start_us\": 0, \"dur_us\": 100,"
    "   \"bytes\": 4194304, \"pinned\": true},"
    "  {\"kind\": \"h2d\", \"stream\": 2, \"name\": \"copy a1\", \"start_us\": 100, \"dur_us\": 100, \"bytes\": 4194304},"
    "  {\"kind\": \"kernel\", \"stream\": 2, \"name\": \"vector_add\", \"start_us\": 200, \"dur_us\": 100},"
    "  {\"kind\": \"d2h\", \"stream\": 3, \"name\": \"copy c\", \"start_us\": 300, \"dur_us\": 100, \"pinned\": false},"
    "  {\"kind\": \"host\", \"stream\": -1, \"name\": \"cpu work\", \"start_us\": 10, \"dur_us\": 150},"
    "  {\"kind\": \"event\", \"stream\": 1, \"name\": \"stop\", \"start_us\": 200, \"dur_us\": 0}"
    " ]}";

static TlvModel *model(void) {
    json_error_t err;
    json_t *j = json_loads(TIMELINE, 0, &err);
    assert_non_null(j);
    TlvModel *m = tlview_model_new(j);
    json_decref(j);   /* the model holds its own reference */
    assert_non_null(m);
    return m;
}

static int find_bar(const TlvModel *m, const char *name, int stream) {
    for (int i = 0; i < m->n_bars; i++)
        if (!strcmp(m->bars[i].name, name) && m->rows[m->bars[i].row].stream == stream) return i;
    fail_msg("no bar %s on stream %d", name, stream);
    return -1;
}

static void model__has_host_row_first_then_one_row_per_stream_with_work(void **state) {
    (void)state;
    TlvModel *m = model();
    assert_int_equal(m->n_rows, 5);
    assert_int_equal(m->rows[0].stream, -1);
    assert_string_equal(m->rows[0].name, "host");
    assert_string_equal(m->rows[1].name, "0 default (legacy)");
    assert_string_equal(m->rows[2].name, "1 s1");
    assert_string_equal(m->rows[3].name, "2 s2");
    assert_string_equal(m->rows[4].name, "stream 3");   /* named by no stream entry */
    /* Streams 4 and 11 have no work this run: no rows (the default stream keeps its own). */
    assert_true(m->modeled);
    assert_string_equal(m->device, "H200 profile (sm_90)");
    tlview_model_free(&m);
    assert_null(m);
}

static void model__bars_in_time_order_with_their_details(void **state) {
    (void)state;
    TlvModel *m = model();
    assert_int_equal(m->n_bars, 7);
    for (int i = 1; i < m->n_bars; i++) assert_true(m->bars[i - 1].start_us <= m->bars[i].start_us);
    assert_string_equal(m->bars[0].name, "copy a0");
    const TlvBar *c = &m->bars[find_bar(m, "copy a0", 1)];
    assert_int_equal(c->kind, TLV_H2D);
    assert_true(c->bytes == 4194304);
    assert_int_equal(c->pinned, 1);
    assert_int_equal(m->bars[find_bar(m, "copy a1", 2)].pinned, -1);
    assert_int_equal(m->bars[find_bar(m, "copy c", 3)].pinned, 0);
    const TlvBar *k = &m->bars[find_bar(m, "vector_add", 1)];
    assert_int_equal(k->kind, TLV_KERNEL);
    assert_int_equal(k->grid[0], 3907);
    assert_int_equal(k->block[0], 256);
    assert_int_equal(m->bars[find_bar(m, "stop", 1)].kind, TLV_EVENT);
    assert_true(m->end_us == 400);
    tlview_model_free(&m);
}

static void model__is_null_without_a_timeline_and_empty_for_no_events(void **state) {
    (void)state;
    assert_null(tlview_model_new(NULL));
    json_t *s = json_string("x");
    assert_null(tlview_model_new(s));
    json_decref(s);
    json_t *empty = json_pack("{s:b, s:[], s:[]}", "modeled", 0, "streams", "events");
    TlvModel *m = tlview_model_new(empty);
    json_decref(empty);
    assert_non_null(m);
    assert_int_equal(m->n_bars, 0);
    assert_int_equal(m->n_rows, 1);   /* the host row */
    assert_false(m->modeled);
    TlvWindow w;
    tlview_fit(&w, m);
    assert_true(w.span > 0);
    tlview_model_free(&m);
}

static void ticks__are_nice_steps_at_least_the_gap_apart(void **state) {
    (void)state;
    /* 400 µs over 60 columns, labels 10 columns apart: raw 66.7 → 100 µs. */
    assert_true(tlview_tick_step(400, 60, 10) == 100);
    assert_true(tlview_tick_step(400, 200, 10) == 20);
    assert_true(tlview_tick_step(1000, 100, 10) == 100);
    assert_true(tlview_tick_step(3e6, 60, 10) == 5e5);
    double s = tlview_tick_step(2.5, 60, 10);
    assert_true(s > 0.4999 && s < 0.5001);
    /* Every step gives ticks at least the gap apart. */
    for (double span = 0.3; span < 1e7; span *= 1.7) {
        double st = tlview_tick_step(span, 77, 10);
        assert_true(st / span * 77 >= 10 - 1e-6);
        assert_true(st / span * 77 < 10 * 5 + 1e-6);   /* and not absurdly sparse */
    }
}

static void ticks__carry_units_and_read_plainly(void **state) {
    (void)state;
    double scale;
    assert_string_equal(tlview_unit(50, true, &scale), "µs");
    assert_true(scale == 1);
    assert_string_equal(tlview_unit(50, false, &scale), "us");
    assert_string_equal(tlview_unit(100, true, &scale), "ms");
    assert_true(scale == 1e-3);
    assert_string_equal(tlview_unit(5e5, true, &scale), "s");
    assert_string_equal(tlview_unit(0.05, true, &scale), "ns");
    char b[32];
    tlview_format_tick(b, sizeof b, 0, 100);
    assert_string_equal(b, "0");
    tlview_format_tick(b, sizeof b, 500, 100);
    assert_string_equal(b, "0.5");
    tlview_format_tick(b, sizeof b, 250, 50);
    assert_string_equal(b, "250");
    tlview_format_tick(b, sizeof b, 1.5e6, 5e5);
    assert_string_equal(b, "1.5");
    tlview_format_tick(b, sizeof b, 0.1, 0.05);
    assert_string_equal(b, "100");
    tlview_format_time(b, sizeof b, 120.5, true);
    assert_string_equal(b, "120.5 µs");
    tlview_format_time(b, sizeof b, 1500, true);
    assert_string_equal(b, "1.500 ms");
    tlview_format_time(b, sizeof b, 2.5e6, false);
    assert_string_equal(b, "2.500 s");
    tlview_format_time(b, sizeof b, 0.5, false);
    assert_string_equal(b, "500 ns");
    tlview_format_bytes(b, sizeof b, 4194304);
    assert_string_equal(b, "4.00 MiB");
    tlview_format_bytes(b, sizeof b, 512);
    assert_string_equal(b, "512 B");
}

static void bars__land_in_their_columns_and_short_ones_still_show(void **state) {
    (void)state;
    TlvWindow w = {0, 400};
    int x0, x1;
    /* 400 µs over 80 columns: 5 µs a column. */
    assert_true(tlview_bar_cols(&w, 80, 100, 100, &x0, &x1));
    assert_int_equal(x0, 20);
    assert_int_equal(x1, 40);
    /* Two bars that overlap in time overlap in columns; back-to-back ones do not. */
    int y0, y1;
    assert_true(tlview_bar_cols(&w, 80, 150, 100, &y0, &y1));
    assert_true(y0 < x1);
    assert_true(tlview_bar_cols(&w, 80, 200, 100, &y0, &y1));
    assert_int_equal(y0, x1);
    /* A 10 ns kernel is one column, not zero. */
    assert_true(tlview_bar_cols(&w, 80, 51, 0.01, &x0, &x1));
    assert_int_equal(x0, 10);
    assert_int_equal(x1, 11);
    /* Off screen, and clipped at the edges. */
    assert_false(tlview_bar_cols(&w, 80, 500, 10, &x0, &x1));
    w.t0 = 100;
    assert_false(tlview_bar_cols(&w, 80, 0, 50, &x0, &x1));
    assert_true(tlview_bar_cols(&w, 80, 50, 100, &x0, &x1));
    assert_int_equal(x0, 0);
    assert_int_equal(x1, 10);
    assert_true(tlview_bar_cols(&w, 80, 450, 100, &x0, &x1));
    assert_int_equal(x1, 80);
    assert_int_equal(tlview_col(&w, 80, 300), 40);
}

static void zoom__narrows_around_a_point_and_stops_at_the_whole_run(void **state) {
    (void)state;
    TlvModel *m = model();
    TlvWindow w;
    tlview_fit(&w, m);
    assert_true(w.t0 == 0 && w.span == 400);
    assert_true(tlview_zoom_level(&w, m) == 1);
    /* Zooming ×2 at 100 µs keeps 100 µs where it was on screen (a quarter in). */
    tlview_zoom(&w, m, 2, 100);
    assert_true(w.span == 200);
    assert_true(w.t0 == 50);
    assert_true(tlview_zoom_level(&w, m) == 2);
    int x0, x1;
    assert_true(tlview_bar_cols(&w, 80, 100, 100, &x0, &x1));   /* the kernel is now 40 columns wide */
    assert_int_equal(x1 - x0, 40);
    /* Out past the whole run: back to the fit, never beyond. */
    tlview_zoom(&w, m, 0.5, 150);
    tlview_zoom(&w, m, 0.5, 150);
    assert_true(w.t0 == 0 && w.span == 400);
    /* In without end: it stops at a tenth of a microsecond. */
    for (int i = 0; i < 40; i++) tlview_zoom(&w, m, 2, 399);
    assert_true(w.span >= 0.1 - 1e-12 && w.span < 0.2);
    assert_true(w.t0 + w.span <= 400 + 1e-9);
    tlview_model_free(&m);
}

static void pan__moves_the_window_and_stays_inside_the_run(void **state) {
    (void)state;
    TlvModel *m = model();
    TlvWindow w = {0, 100};
    tlview_pan(&w, m, 50);
    assert_true(w.t0 == 50);
    tlview_pan(&w, m, -1000);   /* Home */
    assert_true(w.t0 == 0);
    tlview_pan(&w, m, 1000);    /* End */
    assert_true(w.t0 == 300);
    /* Showing an off-screen bar centres it; one on screen leaves the window alone. */
    w.t0 = 0;
    tlview_show(&w, m, &m->bars[find_bar(m, "copy c", 3)]);
    assert_true(w.t0 == 300);
    tlview_show(&w, m, &m->bars[find_bar(m, "vector_add", 2)]);   /* 200..300: partly hidden */
    assert_true(w.t0 == 200);
    tlview_show(&w, m, &m->bars[find_bar(m, "vector_add", 2)]);
    assert_true(w.t0 == 200);
    tlview_model_free(&m);
}

static void cursor__moves_along_a_row_and_between_rows_nearest_in_time(void **state) {
    (void)state;
    TlvModel *m = model();
    int a0 = find_bar(m, "copy a0", 1), k1 = find_bar(m, "vector_add", 1), stop = find_bar(m, "stop", 1);
    assert_int_equal(tlview_step_in_row(m, a0, 1), k1);
    assert_int_equal(tlview_step_in_row(m, k1, 1), stop);
    assert_int_equal(tlview_step_in_row(m, stop, 1), stop);   /* the row's last bar */
    assert_int_equal(tlview_step_in_row(m, k1, -1), a0);
    /* From stream 1's kernel (100..200) down to stream 2: the copy at the same time. */
    assert_int_equal(tlview_row_jump(m, k1, 1), find_bar(m, "copy a1", 2));
    /* Up from stream 1 skips stream 0 (no bars) to the host. */
    assert_int_equal(tlview_row_jump(m, a0, -1), find_bar(m, "cpu work", -1));
    /* Nothing above the host, nothing below the last stream. */
    int host = find_bar(m, "cpu work", -1);
    assert_int_equal(tlview_row_jump(m, host, -1), host);
    int c = find_bar(m, "copy c", 3);
    assert_int_equal(tlview_row_jump(m, c, 1), c);
    /* A click at 250 µs on stream 2's row picks the kernel covering it. */
    assert_int_equal(tlview_bar_at(m, 3, 250), find_bar(m, "vector_add", 2));
    assert_int_equal(tlview_bar_at(m, 1, 250), -1);   /* stream 0 is empty */
    tlview_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(model__has_host_row_first_then_one_row_per_stream_with_work),
        cmocka_unit_test(model__bars_in_time_order_with_their_details),
        cmocka_unit_test(model__is_null_without_a_timeline_and_empty_for_no_events),
        cmocka_unit_test(ticks__are_nice_steps_at_least_the_gap_apart),
        cmocka_unit_test(ticks__carry_units_and_read_plainly),
        cmocka_unit_test(bars__land_in_their_columns_and_short_ones_still_show),
        cmocka_unit_test(zoom__narrows_around_a_point_and_stops_at_the_whole_run),
        cmocka_unit_test(pan__moves_the_window_and_stays_inside_the_run),
        cmocka_unit_test(cursor__moves_along_a_row_and_between_rows_nearest_in_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
