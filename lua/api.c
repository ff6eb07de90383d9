/* lua/api.c: the run's context as the exercise API sees it, shared by
 * gpu.c, stream.c, ref.c and the rest of lua/: the ApiCtx behind a
 * sandbox, ending a run from inside a Lua call (api_abort), name limits and
 * strict tables. It calls nothing else of the API, so none of those files
 * call each other through it. */
#include <assert.h>
#include <lauxlib.h>
#include <string.h>
#include <time.h>

#include "lua/api.h"

ApiCtx *api_ctx(lua_State *L) { return sandbox_user(sandbox_from_lua(L)); }

double api_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

ApiPhase api_phase(ApiCtx *ctx, ApiPhase p) {
    if (!ctx) return PHASE_SCRIPT;
    _Static_assert(PHASE_COUNT <= sizeof ctx->phase_ms / sizeof ctx->phase_ms[0], "ApiCtx.phase_ms is too short");
    ApiPhase prev = (ApiPhase)ctx->phase;
    if (ctx->phase_t0 > 0) {
        double now = api_now_ms();
        ctx->phase_ms[prev] += now - ctx->phase_t0;
        ctx->phase_t0 = now;
    }
    ctx->phase = (int)p;
    return prev;
}

/* A C function run in a phase: upvalue 1 the function, 2 the phase. */
static int phased_call(lua_State *L) {
    lua_CFunction f = lua_tocfunction(L, lua_upvalueindex(1));
    ApiCtx *c = api_ctx(L);
    ApiPhase prev = api_phase(c, (ApiPhase)lua_tointeger(L, lua_upvalueindex(2)));
    int n = f(L);
    api_phase(c, prev);
    return n;
}

void api_wrap_phase(lua_State *L, int table, const char *const *names, ApiPhase p) {
    table = lua_absindex(L, table);
    if (!names) {
        lua_pushnil(L);
        while (lua_next(L, table)) {
            if (lua_tocfunction(L, -1) && lua_type(L, -2) == LUA_TSTRING) {
                lua_pushinteger(L, p);
                lua_pushcclosure(L, phased_call, 2);   /* key, closure */
                lua_pushvalue(L, -2);
                lua_insert(L, -2);                     /* key, key, closure */
                lua_rawset(L, table);   /* replacing an existing key's value keeps lua_next valid */
            } else {
                lua_pop(L, 1);
            }
        }
        return;
    }
    for (; *names; names++) {
        lua_getfield(L, table, *names);
        assert(lua_tocfunction(L, -1));
        lua_pushinteger(L, p);
        lua_pushcclosure(L, phased_call, 2);
        lua_setfield(L, table, *names);
    }
}

const char *api_phase_name(ApiPhase p) {
    static const char *const names[PHASE_COUNT] = {
        [PHASE_SCRIPT] = "script",       [PHASE_COMPILE] = "compile", [PHASE_GENERATE] = "generate",
        [PHASE_UPLOAD] = "upload",       [PHASE_LAUNCH] = "launch",   [PHASE_TIMING] = "timing",
        [PHASE_REFERENCE] = "reference", [PHASE_CHECK] = "check",     [PHASE_DOWNLOAD] = "download",
        [PHASE_PROGRAM] = "program",
    };
    assert(p >= 0 && p < PHASE_COUNT);
    return names[p];
}

const char *api_check_name(lua_State *L, const char *name, const char *what) {
    if (name && strlen(name) > API_NAME_MAX)
        luaL_error(L, "%s: a name of at most %d bytes (this one has %d)", what, API_NAME_MAX, (int)strlen(name));
    return name;
}

int api_abort(lua_State *L, Verdict v, Diag *why) {
    ApiCtx *c = api_ctx(L);
    if (!c) {
        lua_pushstring(L, why ? why->message : "aborted");
        diag_free(&why);
        lua_error(L);
    }
    if (!c->aborted) {
        c->aborted = true;
        c->abort_verdict = v;
    }
    diag_append(&c->abort_diags, why);
    sandbox_abort(L);
}

static int strict_index(lua_State *L) {
    const char *k = luaL_tolstring(L, 2, NULL);
    return sandbox_unknown_key_error(L, lua_tostring(L, lua_upvalueindex(1)), k, 1);
}

void api_make_strict(lua_State *L, const char *what) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, what);
    lua_pushcclosure(L, strict_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}
