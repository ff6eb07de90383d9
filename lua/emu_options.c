/* lua/emu_options.c: t:emu_options{ adversarial =, seed =,
 * instruction_budget =, devices = } — the emulator options an exercise
 * may choose for its own run.
 *
 * Runs use the adversarial scheduler by default (warps shuffled, shared
 * memory poisoned), seed 12345, a budget of 1e9 warp-instructions per
 * launch and one device; an exercise changes them for the launches (and
 * t:program runs) that follow, and the next run starts from the defaults
 * again (api_install resets the backend, and so does closing the run's
 * state). On a GPU the options change nothing and the call is allowed, so
 * one exercise serves both backends. */
#include <lauxlib.h>
#include <string.h>

#include "lua/run.h"

#define EMU_SENTINEL_MT "cudojo.emu_options_sentinel"
#define EMU_SENTINEL_KEY "cudojo.emu_options_armed"   /* registry: the sentinel, once armed */
#define EMU_DEFAULT_SEED 12345
#define EMU_DEFAULT_BUDGET 1000000000ull
#define EMU_MAX_BUDGET 100000000000ull   /* 1e11: minutes of emulation; past any exercise's timeout */
#define EMU_MAX_DEVICES 16               /* what t:program's devices allows */

static const char *const emu_option_keys[] = {"adversarial", "seed", "instruction_budget", "devices", NULL};

/* Closing the run's state puts the backend's own options back. */
static int sentinel_gc(lua_State *L) {
    Backend **bp = luaL_checkudata(L, 1, EMU_SENTINEL_MT);
    if (*bp && (*bp)->ops->emu_options_set) (*bp)->ops->emu_options_set(*bp, NULL);
    *bp = NULL;
    return 0;
}

static void arm_reset(lua_State *L, Backend *b) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, EMU_SENTINEL_KEY) != LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    Backend **bp = lua_newuserdatauv(L, sizeof *bp, 0);
    *bp = b;
    if (luaL_newmetatable(L, EMU_SENTINEL_MT)) {
        lua_pushcfunction(L, sentinel_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, EMU_SENTINEL_KEY);
}

static uint64_t opt_integer(lua_State *L, const char *k, uint64_t lo, uint64_t hi, const char *what) {
    int ok = 0;
    lua_Integer v = lua_tointegerx(L, -1, &ok);
    if (!ok || v < 0 || (uint64_t)v < lo || (uint64_t)v > hi)
        luaL_error(L, "t:emu_options: %s must be %s, not %s", k, what, luaL_tolstring(L, -1, NULL));
    return (uint64_t)v;
}

/* t:emu_options([opts]) -> the options now in force: { adversarial, seed,
 * instruction_budget, devices, emulator (false on a GPU) }. */
static int t_emu_options(lua_State *L) {
    if (!lua_isuserdata(L, 1)) return luaL_error(L, "call it as t:emu_options{...} (with a colon)");
    RunCtx *ctx = run_ctx(L);
    ApiCtx *api = &ctx->api;
    Backend *b = api->backend;
    bool emu = b && b->ops->emu_options_get && b->ops->emu_options_set;
    EmuOptions o;
    memset(&o, 0, sizeof o);
    if (api->emu_set) o = api->emu;
    else if (emu) b->ops->emu_options_get(b, &o);
    else o.adversarial = true;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        sandbox_check_keys(L, 2, "t:emu_options has no option", emu_option_keys);
        if (lua_getfield(L, 2, "adversarial") != LUA_TNIL) {
            if (!lua_isboolean(L, -1)) luaL_error(L, "t:emu_options: adversarial must be true or false");
            o.adversarial = lua_toboolean(L, -1);
        }
        if (lua_getfield(L, 2, "seed") != LUA_TNIL)
            o.seed = opt_integer(L, "seed", 1, (uint64_t)INT64_MAX, "a positive integer");
        if (lua_getfield(L, 2, "instruction_budget") != LUA_TNIL)
            o.instruction_budget = opt_integer(L, "instruction_budget", 1000, EMU_MAX_BUDGET,
                                               "a whole number of warp-instructions from 1000 to 1e11");
        if (lua_getfield(L, 2, "devices") != LUA_TNIL)
            api->emu_devices = (int)opt_integer(L, "devices", 1, EMU_MAX_DEVICES, "a whole number from 1 to 16");
        lua_pop(L, 4);
        api->emu = o;
        api->emu_set = true;
        if (emu) {
            arm_reset(L, b);
            b->ops->emu_options_set(b, &o);
        }
    }
    lua_createtable(L, 0, 5);
    lua_pushboolean(L, o.adversarial);
    lua_setfield(L, -2, "adversarial");
    lua_pushinteger(L, (lua_Integer)(o.seed ? o.seed : EMU_DEFAULT_SEED));
    lua_setfield(L, -2, "seed");
    lua_pushinteger(L, (lua_Integer)(o.instruction_budget ? o.instruction_budget : EMU_DEFAULT_BUDGET));
    lua_setfield(L, -2, "instruction_budget");
    lua_pushinteger(L, api->emu_devices ? api->emu_devices : 1);
    lua_setfield(L, -2, "devices");
    lua_pushboolean(L, emu);
    lua_setfield(L, -2, "emulator");
    return 1;
}

void run_emu_add_methods(lua_State *L) {
    lua_pushcfunction(L, t_emu_options);
    lua_setfield(L, -2, "emu_options");
}
