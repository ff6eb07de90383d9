/* lua/stream.c: streams, events, host work and the timeline in the
 * exercise API: gpu.stream{}, gpu.default_stream, t:event(), s:record(ev),
 * ev:synchronize(), t:elapsed_ms(), t:host_work(), t:timeline() and the
 * structure checks t:expect_overlap() and t:expect_no_default_stream_work().
 *
 * Stream and event objects are userdata holding the backend's id; __gc
 * destroys them, so closing the run's state frees every one. A failure of
 * the device aborts the run (runtime-error, the learner's problem); misuse
 * of the API (elapsed time of an event not yet complete, a destroyed
 * stream) is a Lua error at the author's line. On the emulator every time
 * is the cost model's, and the values say so (modeled = true). Once
 * t:program has run, the timeline these read is the program's. */
#include <lauxlib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/i18n.h"
#include "base/xalloc.h"
#include "lua/run.h"

#define STREAM_MT "cudojo.stream"
#define EVENT_MT "cudojo.event"
#define TIMELINE_MT "cudojo.timeline"
#define TIMELINE_BOX_MT "cudojo.timeline_box"

typedef struct StreamObj {
    int id;                         /* 0 = legacy default stream */
    bool owned;                     /* created by gpu.stream: destroyed by __gc */
    int priority;
    char *name;
} StreamObj;

typedef struct EventObj {
    int id;                         /* 0 once destroyed */
} EventObj;

/* The run's backend, when it has the operation `op` (non-NULL). */
static Backend *backend_for(lua_State *L, const void *op, const char *what) {
    ApiCtx *c = api_ctx(L);
    if (!c || !c->backend) luaL_error(L, "%s: streams and events exist only inside run(t)", what);
    if (!op) luaL_error(L, "%s: the %s backend has no streams", what, c->backend->ops->name);
    return c->backend;
}

#define OPS(L) (api_ctx(L) && api_ctx(L)->backend ? api_ctx(L)->backend->ops : NULL)

static Backend *need(lua_State *L, const char *what, bool have) {
    return backend_for(L, have ? (const void *)1 : NULL, what);
}

static void device_check(lua_State *L, Diag *d) {
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
}

/* A Lua error with the Diag's message (the author's misuse). */
static void usage_check(lua_State *L, Diag *d) {
    if (!d) return;
    lua_pushstring(L, d->message);
    diag_free(&d);
    lua_error(L);
}

/* ---- streams ---- */

static StreamObj *stream_push(lua_State *L, int id, bool owned, int priority, const char *name) {
    StreamObj *s = lua_newuserdatauv(L, sizeof *s, 0);
    memset(s, 0, sizeof *s);
    luaL_setmetatable(L, STREAM_MT);
    s->id = id;
    s->owned = owned;
    s->priority = priority;
    s->name = xstrdup(name);
    return s;
}

int stream_check_id(lua_State *L, int idx) {
    StreamObj *s = luaL_testudata(L, idx, STREAM_MT);
    if (!s) luaL_error(L, "a stream must be gpu.default_stream or made by gpu.stream{}, not %s", luaL_typename(L, idx));
    if (s->id < 0) luaL_error(L, "stream %s was destroyed", s->name);
    return s->id;
}

int stream_opt(lua_State *L, int idx) {
    if (!lua_istable(L, idx)) return -1;
    lua_getfield(L, idx, "stream");
    int id = lua_isnil(L, -1) ? -1 : stream_check_id(L, lua_gettop(L));
    lua_pop(L, 1);
    return id;
}

static int gpu_stream(lua_State *L) {
    Backend *b = need(L, "gpu.stream", OPS(L) && OPS(L)->stream_create);
    StreamOptions o = {0, false, NULL};
    if (!lua_isnoneornil(L, 1)) {
        luaL_checktype(L, 1, LUA_TTABLE);
        lua_getfield(L, 1, "priority");
        o.priority = (int)luaL_optinteger(L, -1, 0);
        lua_getfield(L, 1, "name");
        o.name = api_check_name(L, luaL_optstring(L, -1, NULL), "gpu.stream");
        lua_getfield(L, 1, "blocking");
        o.non_blocking = !lua_isnil(L, -1) && !lua_toboolean(L, -1);
        lua_pop(L, 3);  /* o.name stays alive: the table holds the string */
    }
    int id = 0;
    StreamObj *s = stream_push(L, -1, false, o.priority, o.name ? o.name : "stream");
    device_check(L, b->ops->stream_create(b, &o, &id));
    s->id = id;
    s->owned = true;
    if (!o.name) {
        free(s->name);
        s->name = xasprintf("stream %d", id);
    }
    return 1;
}

static int stream_gc(lua_State *L) {
    StreamObj *s = luaL_checkudata(L, 1, STREAM_MT);
    ApiCtx *c = api_ctx(L);
    if (s->owned && s->id > 0 && c && c->backend && c->backend->ops->stream_destroy) {
        Diag *d = c->backend->ops->stream_destroy(c->backend, s->id);
        diag_free(&d);
    }
    s->id = -1;
    XFREE(s->name);
    return 0;
}

static int stream_synchronize(lua_State *L) {
    int id = stream_check_id(L, 1);
    Backend *b = need(L, "s:synchronize", OPS(L) && OPS(L)->stream_synchronize);
    device_check(L, b->ops->stream_synchronize(b, id));
    return 0;
}

static EventObj *event_push(lua_State *L) {
    Backend *b = need(L, "t:event", OPS(L) && OPS(L)->event_create);
    EventObj *e = lua_newuserdatauv(L, sizeof *e, 0);
    e->id = 0;
    luaL_setmetatable(L, EVENT_MT);
    device_check(L, b->ops->event_create(b, &e->id));
    return e;
}

static int event_check_id(lua_State *L, int idx) {
    EventObj *e = luaL_testudata(L, idx, EVENT_MT);
    if (!e) luaL_error(L, "an event comes from t:event(), not %s", luaL_typename(L, idx));
    if (e->id <= 0) luaL_error(L, "the event was destroyed");
    return e->id;
}

/* s:record([ev]) -> ev (a new event when none is given). */
static int stream_record(lua_State *L) {
    int sid = stream_check_id(L, 1);
    if (lua_isnoneornil(L, 2)) {
        lua_settop(L, 1);
        event_push(L);
    }
    int ev = event_check_id(L, 2);
    Backend *b = need(L, "s:record", OPS(L) && OPS(L)->event_record);
    usage_check(L, b->ops->event_record(b, ev, sid));
    lua_settop(L, 2);
    return 1;
}

static int stream_index(lua_State *L) {
    StreamObj *s = luaL_checkudata(L, 1, STREAM_MT);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "id")) lua_pushinteger(L, s->id);
    else if (!strcmp(k, "name")) lua_pushstring(L, s->name ? s->name : "?");
    else if (!strcmp(k, "priority")) lua_pushinteger(L, s->priority);
    else if (!strcmp(k, "synchronize")) lua_pushcfunction(L, stream_synchronize);
    else if (!strcmp(k, "record")) lua_pushcfunction(L, stream_record);
    else {
        lua_newtable(L);
        static const char *const f[] = {"id", "name", "priority", "synchronize", "record", NULL};
        for (const char *const *p = f; *p; p++) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, *p);
        }
        sandbox_unknown_key_error(L, "streams have no field", k, -1);
    }
    return 1;
}

static int stream_tostring(lua_State *L) {
    StreamObj *s = luaL_checkudata(L, 1, STREAM_MT);
    lua_pushfstring(L, "stream %s", s->name ? s->name : "?");
    return 1;
}

/* ---- events ---- */

static int event_gc(lua_State *L) {
    EventObj *e = luaL_checkudata(L, 1, EVENT_MT);
    ApiCtx *c = api_ctx(L);
    if (e->id > 0 && c && c->backend && c->backend->ops->event_destroy) {
        Diag *d = c->backend->ops->event_destroy(c->backend, e->id);
        diag_free(&d);
    }
    e->id = 0;
    return 0;
}

static int event_synchronize(lua_State *L) {
    int ev = event_check_id(L, 1);
    Backend *b = need(L, "ev:synchronize", OPS(L) && OPS(L)->event_synchronize);
    device_check(L, b->ops->event_synchronize(b, ev));
    return 0;
}

static int event_query(lua_State *L) {
    int ev = event_check_id(L, 1);
    Backend *b = need(L, "ev:query", OPS(L) && OPS(L)->event_query);
    bool done = true;
    device_check(L, b->ops->event_query(b, ev, &done));
    lua_pushboolean(L, done);
    return 1;
}

/* ev:record([stream]) -> ev (on the default stream when none is given). */
static int event_record(lua_State *L) {
    int ev = event_check_id(L, 1);
    int sid = lua_isnoneornil(L, 2) ? 0 : stream_check_id(L, 2);
    Backend *b = need(L, "ev:record", OPS(L) && OPS(L)->event_record);
    usage_check(L, b->ops->event_record(b, ev, sid));
    lua_settop(L, 1);
    return 1;
}

static int event_index(lua_State *L) {
    luaL_checkudata(L, 1, EVENT_MT);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "synchronize")) lua_pushcfunction(L, event_synchronize);
    else if (!strcmp(k, "record")) lua_pushcfunction(L, event_record);
    else if (!strcmp(k, "query")) lua_pushcfunction(L, event_query);
    else {
        lua_newtable(L);
        static const char *const f[] = {"synchronize", "record", "query", NULL};
        for (const char *const *p = f; *p; p++) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, *p);
        }
        sandbox_unknown_key_error(L, "events have no field", k, -1);
    }
    return 1;
}

/* ---- t methods ---- */

static void check_self(lua_State *L, const char *method) {
    if (lua_type(L, 1) != LUA_TUSERDATA) luaL_error(L, "call it as t:%s(...) (with a colon)", method);
}

static int t_event(lua_State *L) {
    check_self(L, "event");
    event_push(L);
    return 1;
}

static int t_synchronize(lua_State *L) {
    check_self(L, "synchronize");
    Backend *b = need(L, "t:synchronize", OPS(L) && OPS(L)->device_synchronize);
    device_check(L, b->ops->device_synchronize(b));
    return 0;
}

/* t:elapsed_ms(ev0, ev1) -> ms, modeled */
static int t_elapsed_ms(lua_State *L) {
    check_self(L, "elapsed_ms");
    int e0 = event_check_id(L, 2), e1 = event_check_id(L, 3);
    Backend *b = need(L, "t:elapsed_ms", OPS(L) && OPS(L)->event_elapsed_ms);
    double ms = 0;
    bool modeled = false;
    usage_check(L, b->ops->event_elapsed_ms(b, e0, e1, &ms, &modeled));
    lua_pushnumber(L, ms);
    lua_pushboolean(L, modeled);
    return 2;
}

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* t:host_work(fn [, {name=, us=}]) -> what fn returns */
static int t_host_work(lua_State *L) {
    check_self(L, "host_work");
    luaL_checktype(L, 2, LUA_TFUNCTION);
    const char *name = "host work";
    double us = -1;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        lua_getfield(L, 3, "name");
        name = api_check_name(L, luaL_optstring(L, -1, name), "t:host_work");
        lua_getfield(L, 3, "us");
        us = luaL_optnumber(L, -1, -1);
        if (!lua_isnil(L, -1) && us < 0) luaL_error(L, "t:host_work: us must not be negative");
        lua_pop(L, 1);   /* the name string stays on the stack */
    }
    Backend *b = need(L, "t:host_work", OPS(L) && OPS(L)->host_work_begin);
    int base = lua_gettop(L);
    b->ops->host_work_begin(b, name);
    double t0 = now_us();
    lua_pushvalue(L, 2);
    lua_call(L, 0, LUA_MULTRET);
    double measured = now_us() - t0;
    b->ops->host_work_end(b, us >= 0 ? us : measured);
    return lua_gettop(L) - base;
}

static int box_gc(lua_State *L) {
    Timeline **t = luaL_checkudata(L, 1, TIMELINE_BOX_MT);
    timeline_free(t);
    return 0;
}

/* Pushes a userdata owning the backend's timeline (so a Lua error cannot
 * leak it) and returns the timeline, NULL when the backend keeps none. */
static Timeline *get_timeline(lua_State *L) {
    Timeline **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    luaL_setmetatable(L, TIMELINE_BOX_MT);
    ApiCtx *c = api_ctx(L);
    if (!c || !c->backend) return NULL;
    /* After t:program the run's timeline is the program's (the run's own
     * backend did nothing worth showing meanwhile). */
    RunCtx *ctx = run_ctx(L);
    if (ctx->ran_program) {
        if (ctx->prog_timeline) *box = timeline_copy(ctx->prog_timeline);
        return *box;
    }
    if (!c->backend->ops->timeline_get) return NULL;
    Diag *d = c->backend->ops->timeline_get(c->backend, box);
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
    return *box;
}

static void set_num(lua_State *L, const char *k, double v) {
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static void push_dim(lua_State *L, const unsigned d[3], const char *k) {
    lua_createtable(L, 3, 0);
    for (int i = 0; i < 3; i++) {
        lua_pushinteger(L, d[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, k);
}

/* Pushes the timeline as the JSON's shape (times from the first entry).
 * The Timeline is freed by the caller; this raises only on out of memory. */
void run_push_timeline(lua_State *L, const Timeline *t) {
    lua_createtable(L, 0, 6);
    lua_pushboolean(L, t ? t->modeled : 0);
    lua_setfield(L, -2, "modeled");
    lua_pushstring(L, t ? t->source : "none");
    lua_setfield(L, -2, "source");
    lua_pushstring(L, t ? t->device : "");
    lua_setfield(L, -2, "device");
    lua_createtable(L, t ? t->n_streams : 0, 0);
    for (int i = 0; t && i < t->n_streams; i++) {
        lua_createtable(L, 0, 3);
        lua_pushinteger(L, t->streams[i].id);
        lua_setfield(L, -2, "id");
        lua_pushstring(L, t->streams[i].name);
        lua_setfield(L, -2, "name");
        lua_pushinteger(L, t->streams[i].priority);
        lua_setfield(L, -2, "priority");
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "streams");
    double t0 = 0;
    for (int i = 0; t && i < t->n; i++)
        if (i == 0 || t->v[i].start_us < t0) t0 = t->v[i].start_us;
    lua_createtable(L, t ? t->n : 0, 0);
    for (int i = 0; t && i < t->n; i++) {
        const TimelineEntry *e = &t->v[i];
        lua_createtable(L, 0, 8);
        lua_pushstring(L, timeline_kind_name(e->kind));
        lua_setfield(L, -2, "kind");
        lua_pushinteger(L, e->stream);
        lua_setfield(L, -2, "stream");
        lua_pushstring(L, e->name);
        lua_setfield(L, -2, "name");
        set_num(L, "start_us", e->start_us - t0);
        set_num(L, "dur_us", e->dur_us);
        if (e->kind == TL_H2D || e->kind == TL_D2H || e->kind == TL_D2D || e->kind == TL_MEMSET) {
            lua_pushinteger(L, (lua_Integer)e->bytes);
            lua_setfield(L, -2, "bytes");
        }
        if (e->kind == TL_H2D || e->kind == TL_D2H) {
            lua_pushboolean(L, e->pinned);
            lua_setfield(L, -2, "pinned");
        }
        if (e->kind == TL_KERNEL) {
            push_dim(L, e->grid, "grid");
            push_dim(L, e->block, "block");
        }
        lua_pushinteger(L, e->device);
        lua_setfield(L, -2, "device");
        if (e->process) {
            lua_pushinteger(L, e->process);
            lua_setfield(L, -2, "process");
        }
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "events");
    luaL_setmetatable(L, TIMELINE_MT);
}

static int t_timeline(lua_State *L) {
    check_self(L, "timeline");
    Timeline *t = get_timeline(L);
    run_push_timeline(L, t);
    return 1;
}

/* tl:find{ kind=, name=, stream=, n= } -> the n-th matching entry or nil */
static int timeline_find_lua(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "kind");
    const char *kind = luaL_optstring(L, -1, NULL);
    TimelineKind k;
    if (kind && !timeline_kind_parse(kind, &k))
        luaL_error(L, "find: unknown kind '%s' (h2d d2h d2d memset kernel host sync event)", kind);
    lua_getfield(L, 2, "name");
    const char *name = luaL_optstring(L, -1, NULL);
    lua_getfield(L, 2, "stream");
    bool any_stream = lua_isnil(L, -1);
    lua_Integer stream = 0;
    if (!any_stream) stream = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : stream_check_id(L, lua_gettop(L));
    lua_getfield(L, 2, "n");
    lua_Integer nth = luaL_optinteger(L, -1, 1);
    lua_getfield(L, 1, "events");
    int ev = lua_gettop(L);
    lua_Integer seen = 0, len = (lua_Integer)lua_rawlen(L, ev);
    for (lua_Integer i = 1; i <= len; i++) {
        lua_rawgeti(L, ev, i);
        bool ok = true;
        if (kind) {
            lua_getfield(L, -1, "kind");
            ok = !strcmp(lua_tostring(L, -1), kind);
            lua_pop(L, 1);
        }
        if (ok && name) {
            lua_getfield(L, -1, "name");
            ok = !strcmp(lua_tostring(L, -1), name);
            lua_pop(L, 1);
        }
        if (ok && !any_stream) {
            lua_getfield(L, -1, "stream");
            ok = lua_tointeger(L, -1) == stream;
            lua_pop(L, 1);
        }
        if (ok && ++seen == nth) return 1;
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    return 1;
}

static bool entry_times(lua_State *L, int idx, double *start, double *end, const char **name) {
    if (!lua_istable(L, idx)) return false;
    lua_getfield(L, idx, "start_us");
    lua_getfield(L, idx, "dur_us");
    lua_getfield(L, idx, "name");
    bool ok = lua_isnumber(L, -3) && lua_isnumber(L, -2);
    *start = lua_tonumber(L, -3);
    *end = *start + lua_tonumber(L, -2);
    *name = lua_isstring(L, -1) ? lua_tostring(L, -1) : "?";
    lua_pop(L, 2);  /* keep the name string on the stack */
    return ok;
}

/* t:expect_overlap(a, b [, msg]): two timeline entries share some time. */
static int t_expect_overlap(lua_State *L) {
    check_self(L, "expect_overlap");
    RunCtx *ctx = run_ctx(L);
    const char *msg = luaL_optstring(L, 4, NULL);
    double a0, a1, b0, b1;
    const char *an, *bn;
    bool ha = entry_times(L, 2, &a0, &a1, &an), hb = entry_times(L, 3, &b0, &b1, &bn);
    bool ok = ha && hb && a0 < b1 && b0 < a1;
    const char *text;
    if (!ha || !hb)
        text = lua_pushfstring(L, "%s%sthe %s entry is not in the timeline", msg ? msg : "", msg ? ": " : "",
                               !ha ? "first" : "second");
    else if (ok)
        text = msg ? msg : lua_pushfstring(L, "%s overlaps %s", an, bn);
    else {   /* times as a person writes them (12.3 µs, 4.56 ms), not 14 digits */
        char t[4][32];
        text = lua_pushfstring(L, "%s%s%s (%s to %s) does not overlap %s (%s to %s)", msg ? msg : "", msg ? ": " : "",
                               an, i18n_format_us(a0, t[0], sizeof t[0]), i18n_format_us(a1, t[1], sizeof t[1]), bn,
                               i18n_format_us(b0, t[2], sizeof t[2]), i18n_format_us(b1, t[3], sizeof t[3]));
    }
    run_result_add_check(ctx->r, "overlap", ok, text);
    lua_pushboolean(L, ok);
    return 1;
}

/* t:expect_no_default_stream_work([msg]): nothing ran on stream 0. */
static int t_expect_no_default_stream_work(lua_State *L) {
    check_self(L, "expect_no_default_stream_work");
    RunCtx *ctx = run_ctx(L);
    const char *msg = luaL_optstring(L, 2, NULL);
    Timeline *t = get_timeline(L);
    int bad = -1, n_bad = 0;
    for (int i = 0; t && i < t->n; i++) {
        TimelineKind k = t->v[i].kind;
        if (t->v[i].stream == 0 && k != TL_EVENT && k != TL_SYNC && k != TL_HOST && !n_bad++) bad = i;
    }
    if (bad >= 0)
        lua_pushfstring(L, "%s%s%s ran on the legacy default stream%s", msg ? msg : "", msg ? ": " : "",
                        t->v[bad].name, n_bad > 1 ? lua_pushfstring(L, " (and %d more)", n_bad - 1) : "");
    else
        lua_pushstring(L, msg ? msg : "no work on the legacy default stream");
    run_result_add_check(ctx->r, "default-stream", bad < 0, lua_tostring(L, -1));
    lua_pushboolean(L, bad < 0);
    return 1;
}

void run_stream_add_methods(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"event", t_event},
        {"synchronize", t_synchronize},
        {"elapsed_ms", t_elapsed_ms},
        {"host_work", t_host_work},
        {"timeline", t_timeline},
        {"expect_overlap", t_expect_overlap},
        {"expect_no_default_stream_work", t_expect_no_default_stream_work},
        {NULL, NULL},
    };
    luaL_setfuncs(L, methods, 0);
}

void run_timeline_begin(RunCtx *ctx) {
    if (ctx->b->ops->timeline_reset) ctx->b->ops->timeline_reset(ctx->b);
}

void run_timeline_finish(RunCtx *ctx) {
    if (ctx->ran_program) {
        if (ctx->prog_timeline && ctx->prog_timeline->n > 0)
            json_object_set_new(ctx->metrics, "timeline", timeline_to_json(ctx->prog_timeline));
        return;
    }
    if (!ctx->b->ops->timeline_get) return;
    Timeline *t = NULL;
    Diag *d = ctx->b->ops->timeline_get(ctx->b, &t);
    diag_free(&d);          /* a lost GPU was already reported by the operation that lost it */
    if (t && t->n > 0) json_object_set_new(ctx->metrics, "timeline", timeline_to_json(t));
    timeline_free(&t);
}

void stream_install(lua_State *L) {
    luaL_newmetatable(L, STREAM_MT);
    lua_pushcfunction(L, stream_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, stream_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, stream_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    luaL_newmetatable(L, EVENT_MT);
    lua_pushcfunction(L, event_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, event_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    luaL_newmetatable(L, TIMELINE_BOX_MT);
    lua_pushcfunction(L, box_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newmetatable(L, TIMELINE_MT);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, timeline_find_lua);
    lua_setfield(L, -2, "find");
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    /* the gpu table is on top */
    lua_pushcfunction(L, gpu_stream);
    lua_setfield(L, -2, "stream");
    stream_push(L, 0, false, 0, "default (legacy)");
    lua_setfield(L, -2, "default_stream");
}
