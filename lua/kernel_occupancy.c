/* lua/kernel_occupancy.c: occupancy in the exercise API: k:occupancy{...},
 * t:expect_occupancy(k, {...}) and what every launch records for the TUI's
 * occupancy screen (metrics.kernels[name]).
 *
 * Registers per thread come from ptxas, so they need a cubin for the
 * architecture asked about: the run's own module has one on a GPU (for that
 * GPU); for any other architecture the learner's source is compiled again
 * with the same options for sm_XX (NVRTC's cache makes repeats cheap). On
 * the emulator a launch records registers only when CUDOJO_OCCUPANCY=1 (the
 * TUI sets it): the extra build (PTX + cubin, as compile_cuda always makes
 * the PTX) took 117-146 ms for a small kernel on a 2-core machine, per
 * changed source, which `verify` and `grade` over many files should not pay. */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/occupancy.h"
#include "kernels/profiles.h"
#include "lua/run.h"

#define OCC_CACHE "cudojo.occupancy.cache"

/* The architecture the run's backend is (emulator: its sm_90 profile). */
static int local_cc(const RunCtx *ctx) {
    if (ctx->have_dev && ctx->dev.cc_major > 0) return ctx->dev.cc_major * 10 + ctx->dev.cc_minor;
    return 90;
}

/* Registers and static shared memory of the kernel at kidx built for sm_<cc>.
 * Returns a Diag (caller frees) when that build fails. */
static Diag *kernel_resources(lua_State *L, RunCtx *ctx, int kidx, int cc, int *regs, int *shared) {
    kidx = lua_absindex(L, kidx);
    KernelObj *k = luaL_checkudata(L, kidx, KERNEL_MT);
    const ModuleEntry *me = &ctx->mods[k->mod];
    /* the device's own build (Backend.kernel_resources) measured k->registers for its cc */
    bool device_build = ctx->b->ops->kernel_resources && backend_usable(ctx->b);
    if ((me->cm->cubin_arch == cc || (device_build && cc == local_cc(ctx))) && k->registers >= 0) {
        *regs = k->registers;
        *shared = k->shared_static;
        return NULL;
    }
    int top = lua_gettop(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, OCC_CACHE);
    lua_pushfstring(L, "%s|%d|%s", me->key, cc, k->ki->name);
    if (lua_rawget(L, -2) == LUA_TTABLE) {
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        *regs = (int)lua_tointeger(L, -2);
        *shared = (int)lua_tointeger(L, -1);
        lua_settop(L, top);
        return NULL;
    }
    lua_pop(L, 1);
    lua_getiuservalue(L, kidx, 2);
    int ot = lua_gettop(L);
    const char *defs[64];
    int n_defs = 0;
    lua_getfield(L, ot, "defines");
    for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, ot + 1) && n_defs < 64; i++) {
        lua_rawgeti(L, ot + 1, i);
        defs[n_defs++] = lua_tostring(L, -1);   /* stays on the stack until settop */
    }
    lua_getfield(L, ot, "expr");
    const char *expr = lua_tostring(L, -1);
    lua_getfield(L, ot, "fast_math");
    CompileOptions co;
    memset(&co, 0, sizeof co);
    co.cubin_arch = cc;
    co.opt_level = -1;
    co.fast_math = lua_toboolean(L, -1);
    co.name_exprs = expr ? &expr : NULL;
    co.n_name_exprs = expr ? 1 : 0;
    co.extra_opts = defs;
    co.n_extra_opts = n_defs;
    co.cache_dir = ctx->opts->cache_dir;
    co.confine = ctx->opts->grading;
    CompiledModule *cm = NULL;
    Diag *d = compile_cuda(ctx->cu_display, ctx->cu_text, &co, &cm);
    if (!d) {
        const KernelInfo *ki = compiled_module_find(cm, k->ki->name);
        if (!ki) ki = compiled_module_find(cm, k->ki->lowered);
        if (ki && ki->registers >= 0) {
            *regs = ki->registers;
            *shared = ki->shared_static;
        } else {
            d = diag_error("occupancy", "ptxas gave no register count for %s on sm_%d", k->ki->name, cc);
        }
        json_t *comp = run_metrics_obj(ctx, NULL, "compile");
        json_object_set_new(comp, "occupancy_ms",
                            json_real(json_number_value(json_object_get(comp, "occupancy_ms")) + cm->compile_ms));
        compiled_module_free(&cm);
    }
    if (!d) {
        lua_settop(L, top);
        luaL_getsubtable(L, LUA_REGISTRYINDEX, OCC_CACHE);
        lua_pushfstring(L, "%s|%d|%s", me->key, cc, k->ki->name);
        lua_createtable(L, 2, 0);
        lua_pushinteger(L, *regs);
        lua_rawseti(L, -2, 1);
        lua_pushinteger(L, *shared);
        lua_rawseti(L, -2, 2);
        lua_rawset(L, -3);
    }
    lua_settop(L, top);
    return d;
}

void run_kernel_record_launch(lua_State *L, RunCtx *ctx, int kidx, const char *name, const LaunchConfig *cfg) {
    KernelObj *k = luaL_checkudata(L, kidx, KERNEL_MT);
    int cc = local_cc(ctx);
    int regs = k->registers, shared = k->shared_static;
    bool is_emu = !strcmp(ctx->b->ops->name, "emu");
    if (regs < 0 && is_emu) {
        const char *env = getenv("CUDOJO_OCCUPANCY");
        if (env && !strcmp(env, "1")) {
            Diag *d = kernel_resources(L, ctx, kidx, cc, &regs, &shared);
            if (d) regs = shared = -1;  /* best effort: the run itself compiled and ran */
            diag_free(&d);
        }
    }
    json_t *km = run_metrics_obj(ctx, run_metrics_obj(ctx, NULL, "kernels"), name);
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d", cc);
    json_object_set_new(km, "arch", json_string(arch));
    json_object_set_new(km, "block", json_integer((json_int_t)cfg->block.x * cfg->block.y * cfg->block.z));
    json_object_set_new(km, "shared_dynamic", json_integer((json_int_t)cfg->shared_bytes));
    if (regs >= 0) json_object_set_new(km, "registers", json_integer(regs));
    if (shared >= 0) json_object_set_new(km, "shared_static", json_integer(shared));
}

/* The profile for `arch` (NULL = this run's device). */
static void profile_for(lua_State *L, RunCtx *ctx, const char *arch, DeviceProfile *out, int *cc) {
    const DeviceProfile *p = NULL;
    if (arch) {
        p = profile_find(arch);
        if (!p) luaL_error(L, "occupancy: unknown arch '%s' (known: %s)", arch, profile_names());
    }
    bool gpu = !strcmp(ctx->b->ops->name, "cuda") && ctx->have_dev;
    int here = local_cc(ctx);
    if (gpu && (!p || p->cc_major * 10 + p->cc_minor == here)) {
        profile_from_device(&ctx->dev, out);   /* the real GPU's limits */
    } else {
        if (!p) p = profile_find_cc(here / 10, here % 10);
        if (!p) p = profile_find("sm_90");
        *out = *p;
    }
    *cc = out->cc_major * 10 + out->cc_minor;
}

/* Reads {block=, shared=, arch=} at idx and computes; leaves nothing on the stack. */
static void occupancy_of(lua_State *L, RunCtx *ctx, int kidx, int opts, const char *what, DeviceProfile *prof,
                         OccupancyInput *in, Occupancy *o) {
    luaL_checktype(L, opts, LUA_TTABLE);
    int ty = lua_getfield(L, opts, "block");
    lua_Integer block = 1;
    if (ty == LUA_TTABLE) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        if (n < 1 || n > 3) luaL_error(L, "%s: block = {x, y, z} takes 1 to 3 numbers", what);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            block *= luaL_checkinteger(L, -1);
            lua_pop(L, 1);
        }
    } else if (ty == LUA_TNUMBER && lua_isinteger(L, -1)) {
        block = lua_tointeger(L, -1);
    } else {
        luaL_error(L, "%s: block = <threads per block> is missing", what);
    }
    if (block < 1 || block > 1 << 20) luaL_error(L, "%s: block must be a positive number of threads", what);
    lua_getfield(L, opts, "shared");
    lua_Integer dyn = luaL_optinteger(L, -1, 0);
    if (dyn < 0 || dyn > 1 << 30) luaL_error(L, "%s: shared must be a number of bytes", what);
    lua_getfield(L, opts, "arch");
    const char *arch = lua_isnil(L, -1) ? NULL : luaL_checkstring(L, -1);
    int cc = 0;
    profile_for(L, ctx, arch, prof, &cc);
    lua_pop(L, 3);
    int regs = -1, shared = -1;
    Diag *d = kernel_resources(L, ctx, kidx, cc, &regs, &shared);
    if (d) api_abort(L, VERDICT_COMPILE_ERROR, d);
    *in = (OccupancyInput){(int)block, regs, shared > 0 ? (size_t)shared : 0, (size_t)dyn};
    d = occupancy_compute(prof, in, o);
    if (d) {
        lua_pushstring(L, d->message);
        diag_free(&d);
        lua_error(L);
    }
}

static void push_result(lua_State *L, const DeviceProfile *p, const OccupancyInput *in, const Occupancy *o) {
    lua_createtable(L, 0, 12);
#define SETI(k, v) (lua_pushinteger(L, (lua_Integer)(v)), lua_setfield(L, -2, k))
    SETI("blocks_per_sm", o->blocks_per_sm);
    SETI("warps_per_sm", o->warps_per_sm);
    SETI("max_warps_per_sm", o->max_warps_per_sm);
    SETI("registers", in->registers);
    SETI("shared_static", in->shared_static);
    SETI("shared", in->shared_dynamic);
    SETI("block", in->block);
#undef SETI
    lua_pushnumber(L, o->occupancy);
    lua_setfield(L, -2, "occupancy");
    lua_pushstring(L, occupancy_limiter_name(o->limiter));
    lua_setfield(L, -2, "limiter");
    lua_pushstring(L, o->explanation);
    lua_setfield(L, -2, "explanation");
    lua_pushstring(L, p->arch);
    lua_setfield(L, -2, "arch");
}

/* Also kept in the run's metrics, so the result shows what was predicted. */
static void record(RunCtx *ctx, const char *name, const DeviceProfile *p, const OccupancyInput *in,
                   const Occupancy *o) {
    json_t *km = run_metrics_obj(ctx, run_metrics_obj(ctx, NULL, "kernels"), name);
    json_object_set_new(km, "occupancy",
                        json_pack("{s:s, s:i, s:i, s:i, s:i, s:f, s:s}", "arch", p->arch, "block", in->block,
                                  "registers", in->registers, "blocks_per_sm", o->blocks_per_sm, "warps_per_sm",
                                  o->warps_per_sm, "occupancy", o->occupancy, "limiter",
                                  occupancy_limiter_name(o->limiter)));
}

int run_k_occupancy(lua_State *L) {
    RunCtx *ctx = run_ctx(L);
    luaL_checkudata(L, 1, KERNEL_MT);
    DeviceProfile p;
    OccupancyInput in;
    Occupancy o;
    occupancy_of(L, ctx, 1, 2, "k:occupancy", &p, &in, &o);
    lua_getiuservalue(L, 1, 1);
    record(ctx, lua_tostring(L, -1), &p, &in, &o);
    lua_pop(L, 1);
    push_result(L, &p, &in, &o);
    return 1;
}

int run_t_expect_occupancy(lua_State *L) {
    RunCtx *ctx = run_ctx(L);
    if (!luaL_testudata(L, 2, KERNEL_MT)) luaL_error(L, "t:expect_occupancy(k, {...}): k must be a t:kernel(...)");
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_getfield(L, 3, "min");
    lua_getfield(L, 3, "max");
    lua_getfield(L, 3, "predicted");
    double mn = luaL_optnumber(L, -3, 0), mx = luaL_optnumber(L, -2, 1);
    bool has_pred = !lua_isnil(L, -1);
    double pred = luaL_optnumber(L, -1, 0);
    lua_pop(L, 3);
    if (mn < 0 || mx > 1 || mn > mx || pred < 0 || pred > 1)
        luaL_error(L, "t:expect_occupancy: min, max and predicted are fractions 0..1 (0.5 = 50%%)");
    DeviceProfile p;
    OccupancyInput in;
    Occupancy o;
    occupancy_of(L, ctx, 2, 3, "t:expect_occupancy", &p, &in, &o);
    lua_getiuservalue(L, 2, 1);
    const char *name = lua_tostring(L, -1);
    record(ctx, name, &p, &in, &o);
    /* A prediction is right to within one warp's share of the SM. */
    double tol = 0.5 / (o.max_warps_per_sm > 0 ? o.max_warps_per_sm : 64);
    bool ok = o.occupancy + 1e-9 >= mn && o.occupancy <= mx + 1e-9;
    if (has_pred) ok = ok && (pred - o.occupancy <= tol && o.occupancy - pred <= tol);
    char want[96] = "";
    if (has_pred) snprintf(want, sizeof want, "you predicted %.1f%%", pred * 100);
    else if (mn > 0 && mx < 1) snprintf(want, sizeof want, "expected %.0f%%..%.0f%%", mn * 100, mx * 100);
    else if (mn > 0) snprintf(want, sizeof want, "expected at least %.0f%%", mn * 100);
    else if (mx < 1) snprintf(want, sizeof want, "expected at most %.0f%%", mx * 100);
    char *msg;
    if (ok && !has_pred)
        msg = xasprintf("occupancy of %s on %s with %d threads per block: %.1f%% (%s)", name, p.arch, in.block,
                        o.occupancy * 100, want[0] ? want : "no bound");
    else
        msg = xasprintf("occupancy of %s on %s with %d threads per block is %.1f%% (%d of %d warps), %s; "
                        "limited by %s. %s",
                        name, p.arch, in.block, o.occupancy * 100, o.warps_per_sm, o.max_warps_per_sm,
                        want[0] ? want : "no bound", occupancy_limiter_name(o.limiter), o.explanation);
    run_result_add_check(ctx->r, "occupancy", ok, msg);
    free(msg);
    lua_pushboolean(L, ok);
    push_result(L, &p, &in, &o);
    return 2;
}
