/* kernels/timeline.c: the run's timeline as data and as the JSON the
 * result carries (see timeline.h and /lua/API.md "Timelines"). */
#include "kernels/timeline.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/xalloc.h"

static const char *const KIND_NAMES[TL_KIND_COUNT] = {
    [TL_H2D] = "h2d", [TL_D2H] = "d2h", [TL_D2D] = "d2d", [TL_MEMSET] = "memset",
    [TL_KERNEL] = "kernel", [TL_HOST] = "host", [TL_SYNC] = "sync", [TL_EVENT] = "event",
};

const char *timeline_kind_name(TimelineKind k) {
    return k >= 0 && k < TL_KIND_COUNT ? KIND_NAMES[k] : "?";
}

bool timeline_kind_parse(const char *s, TimelineKind *out) {
    for (int i = 0; s && i < TL_KIND_COUNT; i++)
        if (!strcmp(s, KIND_NAMES[i])) {
            *out = (TimelineKind)i;
            return true;
        }
    return false;
}

Timeline *timeline_new(bool modeled, const char *source, const char *device) {
    Timeline *t = xcalloc(1, sizeof *t);
    t->modeled = modeled;
    snprintf(t->source, sizeof t->source, "%s", source ? source : "");
    snprintf(t->device, sizeof t->device, "%s", device ? device : "");
    timeline_set_stream(t, 0, "default (legacy)", 0);
    return t;
}

void timeline_clear(Timeline *t) {
    for (int i = 0; i < t->n; i++) free(t->v[i].name);
    t->n = 0;
    t->dropped = 0;
}

void timeline_free(Timeline **tp) {
    Timeline *t = *tp;
    if (!t) return;
    timeline_clear(t);
    free(t->v);
    for (int i = 0; i < t->n_streams; i++) free(t->streams[i].name);
    free(t->streams);
    free(t);
    *tp = NULL;
}

void timeline_set_stream(Timeline *t, int id, const char *name, int priority) {
    for (int i = 0; i < t->n_streams; i++)
        if (t->streams[i].id == id) {
            free(t->streams[i].name);
            t->streams[i].name = xstrdup(name ? name : "");
            t->streams[i].priority = priority;
            return;
        }
    if (t->n_streams == t->cap_streams) {
        t->cap_streams = t->cap_streams ? t->cap_streams * 2 : 8;
        t->streams = xrealloc(t->streams, (size_t)t->cap_streams * sizeof *t->streams);
    }
    t->streams[t->n_streams++] = (TimelineStream){id, xstrdup(name ? name : ""), priority};
}

TimelineEntry *timeline_add(Timeline *t, TimelineKind kind, int stream, const char *name, double start_us,
                            double dur_us) {
    if (t->n >= TIMELINE_MAX_ENTRIES) {
        t->dropped++;
        return NULL;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->v = xrealloc(t->v, (size_t)t->cap * sizeof *t->v);
    }
    TimelineEntry *e = &t->v[t->n++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->stream = stream;
    e->name = xstrdup(name ? name : timeline_kind_name(kind));
    e->start_us = start_us;
    e->dur_us = dur_us > 0 ? dur_us : 0;
    return e;
}

Timeline *timeline_copy(const Timeline *t) {
    Timeline *c = timeline_new(t->modeled, t->source, t->device);
    for (int i = 0; i < t->n_streams; i++)
        timeline_set_stream(c, t->streams[i].id, t->streams[i].name, t->streams[i].priority);
    for (int i = 0; i < t->n; i++) {
        const TimelineEntry *e = &t->v[i];
        TimelineEntry *d = timeline_add(c, e->kind, e->stream, e->name, e->start_us, e->dur_us);
        char *nm = d->name;
        *d = *e;
        d->name = nm;
    }
    c->dropped = t->dropped;
    c->origin_us = t->origin_us;
    return c;
}

const TimelineEntry *timeline_find(const Timeline *t, int kind, const char *name, int stream, int nth) {
    int seen = 0;
    for (int i = 0; i < t->n; i++) {
        const TimelineEntry *e = &t->v[i];
        if (kind >= 0 && (int)e->kind != kind) continue;
        if (name && strcmp(e->name, name)) continue;
        if (stream != INT_MIN && e->stream != stream) continue;
        if (++seen == nth) return e;
    }
    return NULL;
}

bool timeline_overlap(const TimelineEntry *a, const TimelineEntry *b) {
    return a->start_us < b->start_us + b->dur_us && b->start_us < a->start_us + a->dur_us;
}

static json_t *dim_json(const unsigned d[3]) { return json_pack("[iii]", (int)d[0], (int)d[1], (int)d[2]); }

json_t *timeline_to_json(const Timeline *t) {
    json_t *root = json_object();
    json_object_set_new(root, "modeled", json_boolean(t->modeled));
    json_object_set_new(root, "source", json_string(t->source));
    json_object_set_new(root, "device", json_string(t->device));
    json_t *streams = json_array();
    for (int i = 0; i < t->n_streams; i++)
        json_array_append_new(streams, json_pack("{s:i,s:o?,s:i}", "id", t->streams[i].id, "name",
                                                 bytes_to_json(t->streams[i].name), "priority",
                                                 t->streams[i].priority));
    json_object_set_new(root, "streams", streams);
    double t0 = 0;
    for (int i = 0; i < t->n; i++)
        if (i == 0 || t->v[i].start_us < t0) t0 = t->v[i].start_us;
    json_t *events = json_array();
    for (int i = 0; i < t->n; i++) {
        const TimelineEntry *e = &t->v[i];
        json_t *o = json_object();
        json_object_set_new(o, "kind", json_string(timeline_kind_name(e->kind)));
        json_object_set_new(o, "stream", json_integer(e->stream));
        json_object_set_new(o, "name", bytes_to_json(e->name));   /* an author's or a program's: any bytes */
        json_object_set_new(o, "start_us", json_real(e->start_us - t0));
        json_object_set_new(o, "dur_us", json_real(e->dur_us));
        if (e->kind == TL_H2D || e->kind == TL_D2H || e->kind == TL_D2D || e->kind == TL_MEMSET)
            json_object_set_new(o, "bytes", json_integer((json_int_t)e->bytes));
        if (e->kind == TL_H2D || e->kind == TL_D2H) json_object_set_new(o, "pinned", json_boolean(e->pinned));
        if (e->kind == TL_KERNEL) {
            json_object_set_new(o, "grid", dim_json(e->grid));
            json_object_set_new(o, "block", dim_json(e->block));
        }
        if (e->device) json_object_set_new(o, "device", json_integer(e->device));
        if (e->process) json_object_set_new(o, "process", json_integer(e->process));
        json_array_append_new(events, o);
    }
    json_object_set_new(root, "events", events);
    if (t->dropped > 0) json_object_set_new(root, "dropped", json_integer(t->dropped));
    if (t->origin_us + t0 != 0) json_object_set_new(root, "origin_us", json_real(t->origin_us + t0));
    return root;
}

static void dim_from_json(const json_t *a, unsigned d[3]) {
    for (size_t i = 0; i < 3; i++) {
        json_int_t v = json_integer_value(json_array_get(a, i));
        d[i] = v > 0 && v <= (json_int_t)UINT_MAX ? (unsigned)v : 0;
    }
}

Timeline *timeline_from_json(const json_t *j) {
    if (!json_is_object(j)) return NULL;
    Timeline *t = timeline_new(json_is_true(json_object_get(j, "modeled")),
                               json_string_value(json_object_get(j, "source")),
                               json_string_value(json_object_get(j, "device")));
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(j, "streams"), i, o) {
        json_t *id = json_object_get(o, "id");
        if (!json_is_integer(id)) continue;
        timeline_set_stream(t, (int)json_integer_value(id), json_string_value(json_object_get(o, "name")),
                            (int)json_integer_value(json_object_get(o, "priority")));
    }
    json_array_foreach(json_object_get(j, "events"), i, o) {
        TimelineKind kind;
        if (!timeline_kind_parse(json_string_value(json_object_get(o, "kind")), &kind)) continue;
        TimelineEntry *e = timeline_add(t, kind, (int)json_integer_value(json_object_get(o, "stream")),
                                        json_string_value(json_object_get(o, "name")),
                                        json_number_value(json_object_get(o, "start_us")),
                                        json_number_value(json_object_get(o, "dur_us")));
        if (!e) continue;
        json_int_t bytes = json_integer_value(json_object_get(o, "bytes"));
        e->bytes = bytes > 0 ? (size_t)bytes : 0;
        e->pinned = json_is_true(json_object_get(o, "pinned"));
        dim_from_json(json_object_get(o, "grid"), e->grid);
        dim_from_json(json_object_get(o, "block"), e->block);
        e->device = (int)json_integer_value(json_object_get(o, "device"));
        e->process = (int)json_integer_value(json_object_get(o, "process"));
    }
    t->origin_us = json_number_value(json_object_get(j, "origin_us"));
    json_int_t dropped = json_integer_value(json_object_get(j, "dropped"));
    if (dropped > 0) t->dropped += (long)dropped;
    return t;
}
