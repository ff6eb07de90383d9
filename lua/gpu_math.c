/* lua/gpu_math.c: the numeric helpers a CPU reference needs and Lua 5.4
 * lacks, as gpu.round_f32, gpu.fma, gpu.trunc, gpu.frexp, gpu.tanh ...
 *
 * Lua numbers are doubles; a kernel computes in float (or half). A
 * reference that must match it bit for bit rounds where the kernel rounds:
 * gpu.round_f32(a * b) is the f32 product, gpu.fmaf(a, b, c) CUDA's fmaf
 * (one rounding), gpu.round_f16 / gpu.round_bf16 what a __half or
 * __nv_bfloat16 holds. Each function is C's own (glibc's, correctly
 * rounded where C says so). */
#include <lauxlib.h>
#include <math.h>

#include "lua/api.h"

static int m_round_f32(lua_State *L) {
    lua_pushnumber(L, dtype_round(DT_F32, luaL_checknumber(L, 1)));
    return 1;
}

static int m_round_f16(lua_State *L) {
    lua_pushnumber(L, dtype_round(DT_F16, luaL_checknumber(L, 1)));
    return 1;
}

static int m_round_bf16(lua_State *L) {
    lua_pushnumber(L, dtype_round(DT_BF16, luaL_checknumber(L, 1)));
    return 1;
}

/* fma(a, b, c): a*b + c in double with one rounding. */
static int m_fma(lua_State *L) {
    lua_pushnumber(L, fma(luaL_checknumber(L, 1), luaL_checknumber(L, 2), luaL_checknumber(L, 3)));
    return 1;
}

/* fmaf(a, b, c): each argument rounded to f32 first (a kernel's float
 * variables), then a*b + c rounded once to f32: CUDA's fmaf / __fmaf_rn. */
static int m_fmaf(lua_State *L) {
    float a = (float)luaL_checknumber(L, 1), b = (float)luaL_checknumber(L, 2), c = (float)luaL_checknumber(L, 3);
    lua_pushnumber(L, (double)fmaf(a, b, c));
    return 1;
}

/* trunc(x): toward zero; an integer stays an integer. */
static int m_trunc(lua_State *L) {
    if (lua_isinteger(L, 1)) lua_settop(L, 1);
    else lua_pushnumber(L, trunc(luaL_checknumber(L, 1)));
    return 1;
}

/* frexp(x) -> m, e with x = m * 2^e, 0.5 <= |m| < 1 (0, inf, NaN: m = x, e = 0). */
static int m_frexp(lua_State *L) {
    int e = 0;
    double m = frexp(luaL_checknumber(L, 1), &e);
    lua_pushnumber(L, m);
    lua_pushinteger(L, e);
    return 2;
}

static int m_ldexp(lua_State *L) {
    lua_Integer e = luaL_checkinteger(L, 2);
    if (e > 100000) e = 100000;
    if (e < -100000) e = -100000;
    lua_pushnumber(L, ldexp(luaL_checknumber(L, 1), (int)e));
    return 1;
}

#define UNARY(fn)                                            \
    static int m_##fn(lua_State *L) {                        \
        lua_pushnumber(L, fn(luaL_checknumber(L, 1)));       \
        return 1;                                            \
    }
UNARY(tanh)
UNARY(sinh)
UNARY(cosh)
UNARY(erf)
UNARY(erfc)
UNARY(expm1)
UNARY(log1p)
UNARY(cbrt)
UNARY(exp2)
UNARY(log2)

static int m_hypot(lua_State *L) {
    lua_pushnumber(L, hypot(luaL_checknumber(L, 1), luaL_checknumber(L, 2)));
    return 1;
}

void gpu_math_add(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"round_f32", m_round_f32}, {"round_f16", m_round_f16}, {"round_bf16", m_round_bf16},
        {"fma", m_fma},             {"fmaf", m_fmaf},           {"trunc", m_trunc},
        {"frexp", m_frexp},         {"ldexp", m_ldexp},         {"tanh", m_tanh},
        {"sinh", m_sinh},           {"cosh", m_cosh},           {"erf", m_erf},
        {"erfc", m_erfc},           {"expm1", m_expm1},         {"log1p", m_log1p},
        {"cbrt", m_cbrt},           {"exp2", m_exp2},           {"log2", m_log2},
        {"hypot", m_hypot},         {NULL, NULL},
    };
    luaL_setfuncs(L, fns, 0);
}
