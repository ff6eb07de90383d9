/* lua/run_ctx.c: what every part of a run (exercise_run.c, kernel.c,
 * kernel_occupancy.c, program*.c) uses of the run they belong to: its
 * clock, the activity it reports to the runner, the metrics objects it
 * fills, the t:method(...) self check, JSON pushed as Lua values. It calls
 * none of them, so they do not call each other for these. */
#include <lauxlib.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "base/xalloc.h"
#include "lua/run.h"
#include "lua/sandbox.h"

double run_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void run_activity(lua_State *L, const char *kind, const char *fmt, ...) {
    RunCtx *ctx = run_ctx(L);
    double now = run_now_ms();
    if (ctx->activity && !strcmp(ctx->activity, "compile") && strcmp(kind, "compile"))
        sandbox_extend_deadline(sandbox_from_lua(L), (now - ctx->activity_t0) / 1000.0);
    if (!ctx->activity || strcmp(ctx->activity, kind)) ctx->activity_t0 = now;
    ctx->activity = kind;
    api_phase(&ctx->api, !strcmp(kind, "compile")  ? PHASE_COMPILE
                         : !strcmp(kind, "kernel")  ? PHASE_LAUNCH
                         : !strcmp(kind, "program") ? PHASE_PROGRAM
                                                    : PHASE_SCRIPT);
    if (!ctx->opts->on_activity) return;
    va_list ap;
    va_start(ap, fmt);
    char *what = xvasprintf(fmt, ap);
    va_end(ap);
    ctx->opts->on_activity(ctx->opts->activity_ud, kind, what);
    free(what);
}

json_t *run_metrics_obj(RunCtx *ctx, json_t *parent, const char *key) {
    if (!parent) parent = ctx->metrics;
    json_t *o = json_object_get(parent, key);
    if (!json_is_object(o)) {
        o = json_object();
        json_object_set_new(parent, key, o);
    }
    return o;
}

void run_note_launch_size(RunCtx *ctx, const json_t *emu_metrics) {
    json_t *wi = json_object_get(json_object_get(emu_metrics, "totals"), "warp_instructions");
    json_t *max = json_object_get(ctx->metrics, "max_launch_warp_instructions");
    if (json_is_integer(wi) && (!json_is_integer(max) || json_integer_value(wi) > json_integer_value(max)))
        json_object_set(ctx->metrics, "max_launch_warp_instructions", wi);
}

void run_check_self(lua_State *L, const char *method) {
    if (lua_type(L, 1) != LUA_TUSERDATA) luaL_error(L, "call it as t:%s(...) (with a colon)", method);
}

void run_push_json(lua_State *L, json_t *j, int depth) {
    luaL_checkstack(L, 4, "json");
    if (json_is_object(j) && depth < 8) {
        lua_newtable(L);
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) {
            if (json_is_null(v)) continue;
            run_push_json(L, v, depth + 1);
            lua_setfield(L, -2, k);
        }
    } else if (json_is_array(j) && depth < 8) {
        lua_newtable(L);
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) {
            run_push_json(L, v, depth + 1);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    } else if (json_is_integer(j)) {
        lua_pushinteger(L, (lua_Integer)json_integer_value(j));
    } else if (json_is_number(j)) {
        lua_pushnumber(L, json_number_value(j));
    } else if (json_is_string(j)) {
        lua_pushstring(L, json_string_value(j));
    } else if (json_is_boolean(j)) {
        lua_pushboolean(L, json_is_true(j));
    } else {
        lua_pushnil(L);
    }
}
