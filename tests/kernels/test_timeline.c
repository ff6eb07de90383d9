/* tests/kernels/test_timeline.c: the timeline's JSON is the shape agreed
 * for RunResult.metrics.timeline (times from the first entry, bytes and
 * pinned on copies, grid and block on kernels), and finding and overlap
 * checks say what a lesson's structure check needs. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/timeline.h"

static Timeline *sample(void) {
    Timeline *t = timeline_new(true, "emu-model", "sm_90 profile");
    timeline_set_stream(t, 1, "s1", -1);
    TimelineEntry *e = timeline_add(t, TL_H2D, 1, "copy a -> device", 100.0, 20.5);
    e->bytes = 4194304;
    e->pinned = true;
    e = timeline_add(t, TL_KERNEL, 1, "vector_add", 121.0, 40.0);
    e->grid[0] = 3907, e->grid[1] = 1, e->grid[2] = 1;
    e->block[0] = 256, e->block[1] = 1, e->block[2] = 1;
    timeline_add(t, TL_HOST, TIMELINE_HOST, "count", 110.0, 30.0);
    timeline_add(t, TL_EVENT, 0, "event 1", 161.0, 0);
    return t;
}

static void to_json__has_agreed_shape__when_copies_and_kernels(void **state) {
    (void)state;
    Timeline *t = sample();
    json_t *j = timeline_to_json(t);
    assert_true(json_is_true(json_object_get(j, "modeled")));
    assert_string_equal(json_string_value(json_object_get(j, "source")), "emu-model");
    assert_string_equal(json_string_value(json_object_get(j, "device")), "sm_90 profile");
    json_t *streams = json_object_get(j, "streams");
    assert_int_equal(json_array_size(streams), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(streams, 0), "id")), 0);
    assert_string_equal(json_string_value(json_object_get(json_array_get(streams, 0), "name")), "default (legacy)");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(streams, 1), "priority")), -1);
    json_t *ev = json_object_get(j, "events");
    assert_int_equal(json_array_size(ev), 4);
    json_t *h2d = json_array_get(ev, 0), *k = json_array_get(ev, 1), *host = json_array_get(ev, 2);
    assert_string_equal(json_string_value(json_object_get(h2d, "kind")), "h2d");
    assert_int_equal(json_integer_value(json_object_get(h2d, "stream")), 1);
    assert_float_equal(json_number_value(json_object_get(h2d, "start_us")), 0.0, 1e-12);   /* from the first */
    assert_float_equal(json_number_value(json_object_get(h2d, "dur_us")), 20.5, 1e-12);
    assert_int_equal(json_integer_value(json_object_get(h2d, "bytes")), 4194304);
    assert_true(json_is_true(json_object_get(h2d, "pinned")));
    assert_null(json_object_get(h2d, "grid"));
    assert_string_equal(json_string_value(json_object_get(k, "kind")), "kernel");
    assert_float_equal(json_number_value(json_object_get(k, "start_us")), 21.0, 1e-12);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(k, "grid"), 0)), 3907);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(k, "block"), 0)), 256);
    assert_null(json_object_get(k, "bytes"));
    assert_int_equal(json_integer_value(json_object_get(host, "stream")), -1);
    assert_string_equal(json_string_value(json_object_get(host, "kind")), "host");
    assert_null(json_object_get(j, "dropped"));
    json_decref(j);
    timeline_free(&t);
    assert_null(t);
}

static void find__counts_matches__when_kind_name_and_stream_given(void **state) {
    (void)state;
    Timeline *t = sample();
    timeline_add(t, TL_KERNEL, 2, "vector_add", 200.0, 10.0);
    const TimelineEntry *second = timeline_find(t, TL_KERNEL, "vector_add", INT_MIN, 2);
    assert_non_null(second);
    assert_int_equal(second->stream, 2);
    assert_null(timeline_find(t, TL_KERNEL, "vector_add", INT_MIN, 3));
    assert_null(timeline_find(t, TL_KERNEL, "nope", INT_MIN, 1));
    assert_int_equal(timeline_find(t, -1, NULL, TIMELINE_HOST, 1)->kind, TL_HOST);
    TimelineKind k;
    assert_true(timeline_kind_parse("d2h", &k));
    assert_int_equal(k, TL_D2H);
    assert_false(timeline_kind_parse("copy", &k));
    timeline_free(&t);
}

static void overlap__is_true_only_when_times_intersect(void **state) {
    (void)state;
    Timeline *t = sample();
    const TimelineEntry *copy = &t->v[0], *kernel = &t->v[1], *host = &t->v[2];
    assert_false(timeline_overlap(copy, kernel));     /* 100..120.5 then 121.. */
    assert_true(timeline_overlap(copy, host));        /* 110..140 */
    assert_true(timeline_overlap(host, kernel));
    TimelineEntry touching = *copy;
    touching.start_us = copy->start_us + copy->dur_us;
    assert_false(timeline_overlap(copy, &touching));
    timeline_free(&t);
}

static void copy_and_clear__keep_streams__and_drop_entries(void **state) {
    (void)state;
    Timeline *t = sample();
    Timeline *c = timeline_copy(t);
    timeline_clear(t);
    assert_int_equal(t->n, 0);
    assert_int_equal(t->n_streams, 2);
    assert_int_equal(c->n, 4);
    assert_string_equal(c->v[1].name, "vector_add");
    assert_int_equal(c->v[0].bytes, 4194304);
    timeline_free(&t);
    timeline_free(&c);
}

static void add__counts_dropped__when_full(void **state) {
    (void)state;
    Timeline *t = timeline_new(false, "events", "gpu");
    for (int i = 0; i < TIMELINE_MAX_ENTRIES + 5; i++) timeline_add(t, TL_KERNEL, 0, "k", i, 1);
    assert_int_equal(t->n, TIMELINE_MAX_ENTRIES);
    json_t *j = timeline_to_json(t);
    assert_int_equal(json_integer_value(json_object_get(j, "dropped")), 5);
    assert_false(json_is_true(json_object_get(j, "modeled")));
    json_decref(j);
    timeline_free(&t);
}

static void from_json__gives_back_what_to_json_wrote(void **state) {
    (void)state;
    Timeline *t = sample();
    t->dropped = 3;
    json_t *j = timeline_to_json(t);
    Timeline *back = timeline_from_json(j);
    assert_non_null(back);
    json_t *again = timeline_to_json(back);
    assert_true(json_equal(j, again));      /* every field survives the round trip */
    assert_true(back->modeled);
    assert_string_equal(back->source, "emu-model");
    assert_int_equal(back->n_streams, 2);
    assert_int_equal(back->n, 4);
    assert_int_equal(back->v[0].bytes, 4194304);
    assert_true(back->v[0].pinned);
    assert_int_equal(back->v[1].grid[0], 3907);
    assert_int_equal(back->v[2].stream, TIMELINE_HOST);
    assert_int_equal(back->dropped, 3);
    json_decref(again);
    json_decref(j);
    timeline_free(&back);
    timeline_free(&t);
}

static void from_json__skips_what_it_cannot_read__when_events_are_malformed(void **state) {
    (void)state;
    json_t *j = json_loads("{\"modeled\":false,\"source\":\"cupti\",\"streams\":[{\"name\":\"no id\"}],"
                           "\"events\":[{\"kind\":\"teleport\"},7,{\"kind\":\"d2h\",\"stream\":2,"
                           "\"start_us\":\"soon\",\"dur_us\":5,\"bytes\":-4,\"grid\":\"big\"}]}",
                           0, NULL);
    assert_non_null(j);
    Timeline *t = timeline_from_json(j);
    assert_non_null(t);
    assert_false(t->modeled);
    assert_int_equal(t->n_streams, 1);      /* only the default stream */
    assert_int_equal(t->n, 1);
    assert_int_equal(t->v[0].kind, TL_D2H);
    assert_float_equal(t->v[0].start_us, 0.0, 1e-12);
    assert_float_equal(t->v[0].dur_us, 5.0, 1e-12);
    assert_int_equal(t->v[0].bytes, 0);
    assert_null(timeline_from_json(json_object_get(j, "events")));
    timeline_free(&t);
    json_decref(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(to_json__has_agreed_shape__when_copies_and_kernels),
        cmocka_unit_test(find__counts_matches__when_kind_name_and_stream_given),
        cmocka_unit_test(overlap__is_true_only_when_times_intersect),
        cmocka_unit_test(copy_and_clear__keep_streams__and_drop_entries),
        cmocka_unit_test(add__counts_dropped__when_full),
        cmocka_unit_test(from_json__gives_back_what_to_json_wrote),
        cmocka_unit_test(from_json__skips_what_it_cannot_read__when_events_are_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
