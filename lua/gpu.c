/* lua/gpu.c: the `gpu` module: typed arrays and scalar kernel arguments.
 *
 * An array is a full userdata holding a malloc'ed host copy and, once it
 * is first passed to a launch, a device buffer labelled with the array's
 * Lua name (so the emulator can say "read a[1000064] but a has 1000003
 * elements"). Data moves by itself: uploads before a launch when the host
 * copy changed, downloads on the first host read after a launch. __gc frees
 * both, so closing the state frees every device buffer of the run.
 *
 * Explicit movement for stream exercises: a:upload{stream=s} and
 * a:download{stream=s} are asynchronous copies on s (from page-locked host
 * memory when the array is pinned: gpu.pinned / {pinned=true}), a:memset.
 * While such a copy may still use the host buffer, reading or writing the
 * array on the host first waits for its stream, so values are never torn.
 *
 * A view (a:view(offset, n)) owns no data: it reads and writes its
 * parent's host copy and, as a kernel argument, is parent + offset on the
 * device — on the emulator an allocation of its own over the same memory
 * (Backend.mem_view), so the bounds checked are the view's. An array of
 * structs (gpu.array(gpu.struct{...}, n)) has elements of the struct's
 * size; a[i] is a proxy whose fields read and write element i.
 *
 * This file is the Lua side (methods, indexing, the gpu table); the array
 * underneath (elements, allocation, the host copy and device buffer kept
 * in step) is lua/gpu_array.c. */
#include <assert.h>
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "lua/api.h"
#include "lua/gpu_array.h"
#include "lua/par.h"

static DType check_dtype(lua_State *L, int idx) {
    const char *s = luaL_checkstring(L, idx);
    DType t = DT_F32;
    if (!dtype_parse(s, &t))
        luaL_argerror(L, idx, lua_pushfstring(L, "unknown dtype '%s' (f32 f64 f16 bf16 i32 u32 i64 u64 i8 u8 i16 u16, "
                                                 "or a gpu.struct{...})", s));
    return t;
}

/* The struct type object is on top of the stack; it is replaced by the array. */
static GpuArray *push_new_struct(lua_State *L, const StructType *st, int ndim, const size_t *shape) {
    GpuArray *a = array_push_new_sized(L, DT_STRUCT, st->size, ndim, shape);
    a->st = st;
    lua_rotate(L, -2, 1);
    lua_setiuservalue(L, -2, 1);
    return a;
}

/* ---- Lua methods -------------------------------------------------------- */

static size_t check_index(lua_State *L, GpuArray *a, int idx) {
    int isnum = 0;
    lua_Integer i = lua_tointegerx(L, idx, &isnum);
    if (!isnum) luaL_error(L, "array index must be an integer, got %s", luaL_typename(L, idx));
    if (i < 0 || (lua_Unsigned)i >= a->n)
        luaL_error(L, "index %I is out of range for %s (%I elements: indices 0..%I; arrays are 0-based)", i,
                   array_name(L, a, 1), (lua_Integer)a->n, (lua_Integer)a->n - 1);
    return (size_t)i;
}

/* Pushes the value of type t at p: an integer for integer types (a float
 * only for a u64 past 2^63), a float for float types. */
static void push_value(lua_State *L, DType t, const void *p) {
    if (dtype_is_float(t)) lua_pushnumber(L, dtype_load(t, p));
    else if (t == DT_U64 && dtype_load_u64(t, p) > (uint64_t)INT64_MAX) lua_pushnumber(L, dtype_load(t, p));
    else lua_pushinteger(L, dtype_load_i64(t, p));
}

/* Stores the Lua value at idx as type t at p; integer types take only
 * integers. `what` names the place in messages ("c", "p[3].m"). */
static void store_value(lua_State *L, DType t, void *p, int idx, const char *what) {
    if (dtype_is_float(t)) {
        int isnum = 0;
        double v = lua_tonumberx(L, idx, &isnum);
        if (!isnum || lua_type(L, idx) != LUA_TNUMBER) luaL_error(L, "%s holds numbers, not %s", what, luaL_typename(L, idx));
        dtype_store(t, p, v);
        return;
    }
    int isint = 0;
    lua_Integer v = lua_tointegerx(L, idx, &isint);
    if (!isint) {
        if (lua_type(L, idx) == LUA_TNUMBER)
            luaL_error(L, "%s is %s (an integer); %s is not an integer", what, dtype_name(t), lua_tostring(L, idx));
        luaL_error(L, "%s holds numbers, not %s", what, luaL_typename(L, idx));
    }
    dtype_store_i64(t, p, v);
}

static void push_elem(lua_State *L, const GpuArray *a, size_t i) { push_value(L, a->dtype, array_elem_ptr(a, i)); }

/* Stores the Lua value at idx; integers must be integers. */
static void store_elem(lua_State *L, GpuArray *a, size_t i, int idx) {
    if (dtype_is_float(a->dtype)) {   /* the array's name only when there is an error to name it in */
        if (lua_type(L, idx) == LUA_TNUMBER) {
            dtype_store(a->dtype, (void *)array_elem_ptr(a, i), lua_tonumber(L, idx));
            return;
        }
    } else if (lua_isinteger(L, idx)) {
        dtype_store_i64(a->dtype, (void *)array_elem_ptr(a, i), lua_tointeger(L, idx));
        return;
    }
    store_value(L, a->dtype, (void *)array_elem_ptr(a, i), idx, array_name(L, a, 1));
}

/* ---- elements of an array of structs ---------------------------------- */

/* a[i] of an array of structs: a proxy whose fields are element i's
 * (user value 1: the array). */
typedef struct ElemRef {
    GpuArray *a;
    size_t i;
} ElemRef;

static void push_elem_ref(lua_State *L, int aidx, GpuArray *a, size_t i) {
    aidx = lua_absindex(L, aidx);
    ElemRef *e = lua_newuserdatauv(L, sizeof *e, 1);
    e->a = a;
    e->i = i;
    lua_pushvalue(L, aidx);
    lua_setiuservalue(L, -2, 1);
    luaL_setmetatable(L, ELEM_MT);
}

static int struct_field_of(lua_State *L, const StructType *st, int kidx) {
    const char *k = luaL_checkstring(L, kidx);
    int f = struct_field_find(st, k);
    if (f < 0) struct_unknown_field(L, st, k);
    return f;
}

static int elem_index(lua_State *L) {
    ElemRef *e = luaL_checkudata(L, 1, ELEM_MT);
    int f = struct_field_of(L, e->a->st, 2);
    const char *base = array_host_read(L, e->a);
    push_value(L, e->a->st->f[f].type, base + e->i * e->a->st->size + e->a->st->f[f].offset);
    return 1;
}

/* Sets field f of element i from the value at vidx. */
static void store_field(lua_State *L, GpuArray *a, int aidx, size_t i, int f, int vidx) {
    const StructField *sf = &a->st->f[f];
    char *base = array_host_write(L, a, false);
    void *p = base + i * a->st->size + sf->offset;
    if (lua_type(L, vidx) == LUA_TNUMBER && (dtype_is_float(sf->type) || lua_isinteger(L, vidx))) {
        if (dtype_is_float(sf->type)) dtype_store(sf->type, p, lua_tonumber(L, vidx));
        else dtype_store_i64(sf->type, p, lua_tointeger(L, vidx));
        return;
    }
    lua_pushfstring(L, "%s[%I].%s", array_name(L, a, aidx), (lua_Integer)i, sf->name);
    store_value(L, sf->type, p, vidx, lua_tostring(L, -1));
}

static int elem_newindex(lua_State *L) {
    ElemRef *e = luaL_checkudata(L, 1, ELEM_MT);
    int f = struct_field_of(L, e->a->st, 2);
    lua_getiuservalue(L, 1, 1);
    store_field(L, e->a, lua_gettop(L), e->i, f, 3);
    return 0;
}

/* "{x = 1.5, y = 2, m = 3}" */
static int elem_tostring(lua_State *L) {
    ElemRef *e = luaL_checkudata(L, 1, ELEM_MT);
    const StructType *st = e->a->st;
    const char *base = array_host_read(L, e->a);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addchar(&b, '{');
    for (int f = 0; f < st->n; f++) {
        char num[64];
        dtype_format(st->f[f].type, base + e->i * st->size + st->f[f].offset, num, sizeof num);
        lua_pushfstring(L, "%s%s = %s", f ? ", " : "", st->f[f].name, num);
        luaL_addvalue(&b);
    }
    luaL_addchar(&b, '}');
    luaL_pushresult(&b);
    return 1;
}

/* a[i] = { x = 1, m = 2 }: the fields given (the others keep their values),
 * or a[i] = b[j] of the same layout (the whole element). */
static void store_struct_elem(lua_State *L, GpuArray *a, size_t i, int vidx) {
    ElemRef *src = luaL_testudata(L, vidx, ELEM_MT);
    if (src) {
        if (src->a->st->size != a->st->size || memcmp(src->a->st->f, a->st->f, sizeof(StructField) * (size_t)a->st->n))
            luaL_error(L, "%s[%I] = ...: the element is of another struct type", array_name(L, a, 1), (lua_Integer)i);
        const char *from = (const char *)array_host_read(L, src->a) + src->i * a->st->size;
        char tmp[STRUCT_MAX_FIELDS * 8];
        memcpy(tmp, from, a->st->size);
        memcpy((char *)array_host_write(L, a, false) + i * a->st->size, tmp, a->st->size);
        return;
    }
    if (!lua_istable(L, vidx))
        luaL_error(L, "%s is an array of structs: an element is set from a table of fields ({ %s = ... }), not %s",
                   array_name(L, a, 1), a->st->f[0].name, luaL_typename(L, vidx));
    lua_pushnil(L);
    while (lua_next(L, vidx)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            luaL_error(L, "%s[%I] = {...}: fields are set by name ({ %s = ... })", array_name(L, a, 1), (lua_Integer)i,
                       a->st->f[0].name);
        int f = struct_field_of(L, a->st, -2);
        store_field(L, a, 1, i, f, lua_gettop(L));
        lua_pop(L, 1);
    }
}

/* ---- indexing ----------------------------------------------------------- */

static int array_index(lua_State *L) {
    GpuArray *a = luaL_checkudata(L, 1, ARRAY_MT);
    if (lua_type(L, 2) == LUA_TNUMBER) {
        size_t i = check_index(L, a, 2);
        if (a->st) {
            push_elem_ref(L, 1, a, i);
            return 1;
        }
        array_host_read(L, a);
        push_elem(L, a, i);
        return 1;
    }
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "dtype")) {
        lua_pushstring(L, dtype_name(a->dtype));
    } else if (!strcmp(k, "struct")) {
        if (a->st) lua_getiuservalue(L, 1, 1);
        else lua_pushnil(L);
    } else if (!strcmp(k, "shape")) {
        lua_createtable(L, a->ndim, 0);
        for (int i = 0; i < a->ndim; i++) {
            lua_pushinteger(L, (lua_Integer)a->shape[i]);
            lua_rawseti(L, -2, i + 1);
        }
    } else if (!strcmp(k, "name")) {
        lua_pushstring(L, array_name(L, a, 1));
    } else {
        luaL_getmetatable(L, ARRAY_MT);
        lua_getfield(L, -1, "methods");
        if (lua_getfield(L, -1, k) == LUA_TNIL) sandbox_unknown_key_error(L, "arrays have no field", k, -2);
    }
    return 1;
}

static int array_newindex(lua_State *L) {
    GpuArray *a = luaL_checkudata(L, 1, ARRAY_MT);
    if (lua_type(L, 2) != LUA_TNUMBER)
        return luaL_error(L, "arrays hold numbers at integer indices; cannot set field '%s'", luaL_tolstring(L, 2, NULL));
    size_t i = check_index(L, a, 2);
    if (a->st) {
        store_struct_elem(L, a, i, 3);
        return 0;
    }
    array_host_write(L, a, false);
    store_elem(L, a, i, 3);
    return 0;
}

/* a:get(i): a[i] (for an array of structs, a:get(i).x reads like C). */
static int array_get_method(lua_State *L) {
    luaL_checkudata(L, 1, ARRAY_MT);
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    return array_index(L);
}

static int array_len(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)any_array_check(L, 1)->n);
    return 1;
}

static int array_tostring(lua_State *L) {
    GpuArray *a = any_array_check(L, 1);
    if (a->ndim == 1) lua_pushfstring(L, "%s[%I] %s", dtype_name(a->dtype), (lua_Integer)a->n, array_name(L, a, 1));
    else lua_pushfstring(L, "%s[%I][%I] %s", dtype_name(a->dtype), (lua_Integer)a->shape[0],
                         (lua_Integer)(a->n / (a->shape[0] ? a->shape[0] : 1)), array_name(L, a, 1));
    return 1;
}

/* ---- fields of an array of structs, views ------------------------------ */

static GpuArray *check_struct_array(lua_State *L, int idx, const char *fn) {
    GpuArray *a = any_array_check(L, idx);
    if (!a->st) luaL_error(L, "%s: %s is an array of %s, not of structs", fn, array_name(L, a, idx), dtype_name(a->dtype));
    return a;
}

/* a:field("x") -> a new array (a copy) of field x of every element. */
static int array_field(lua_State *L) {
    GpuArray *a = check_struct_array(L, 1, "field");
    int f = struct_field_of(L, a->st, 2);
    const StructField *sf = &a->st->f[f];
    const char *src = array_host_read(L, a);
    GpuArray *r = array_push_new(L, sf->type, a->ndim, a->shape);
    size_t es = dtype_size(sf->type);
    for (size_t i = 0; i < a->n; i++) memcpy((char *)r->host + i * es, src + i * a->st->size + sf->offset, es);
    r->name = xasprintf("%s.%s", array_name(L, a, 1), sf->name);
    return 1;
}

/* a:set_field("x", v): field x of every element from v, an array of as
 * many numbers, a Lua table of them, or one number. Returns a. */
static int array_set_field(lua_State *L) {
    GpuArray *a = check_struct_array(L, 1, "set_field");
    int f = struct_field_of(L, a->st, 2);
    const StructField *sf = &a->st->f[f];
    GpuArray *src = array_test(L, 3);
    if (src && (!array_is_numeric(src) || src->n != a->n))
        luaL_error(L, "set_field: %s must be an array of %I numbers", array_name(L, src, 3), (lua_Integer)a->n);
    if (!src && lua_type(L, 3) != LUA_TNUMBER && !lua_istable(L, 3))
        luaL_error(L, "set_field: the values are an array, a table of numbers or one number, not %s", luaL_typename(L, 3));
    if (lua_istable(L, 3) && (size_t)lua_rawlen(L, 3) != a->n)
        luaL_error(L, "set_field: the table has %I values for %I elements", (lua_Integer)lua_rawlen(L, 3), (lua_Integer)a->n);
    const void *sp = src ? array_host_read(L, src) : NULL;
    char *dst = array_host_write(L, a, false);
    lua_pushfstring(L, "%s.%s", array_name(L, a, 1), sf->name);
    const char *what = lua_tostring(L, -1);
    for (size_t i = 0; i < a->n; i++) {
        void *p = dst + i * a->st->size + sf->offset;
        if (src) {
            const void *q = (const char *)sp + i * dtype_size(src->dtype);
            if (dtype_is_float(src->dtype)) dtype_store(sf->type, p, dtype_load(src->dtype, q));
            else dtype_store_i64(sf->type, p, dtype_load_i64(src->dtype, q));
        } else if (lua_istable(L, 3)) {
            lua_rawgeti(L, 3, (lua_Integer)i + 1);
            store_value(L, sf->type, p, lua_gettop(L), what);
            lua_pop(L, 1);
        } else {
            store_value(L, sf->type, p, 3, what);
        }
    }
    lua_settop(L, 1);
    return 1;
}

/* a:view(offset, n [, name]): elements offset .. offset+n-1 of a, as an
 * array of its own that shares a's data (1-D; of a view, a view of its
 * parent). */
static int array_view(lua_State *L) {
    GpuArray *a = any_array_check(L, 1);
    lua_Integer off = luaL_checkinteger(L, 2);
    lua_Integer n = luaL_optinteger(L, 3, (lua_Integer)a->n - off);
    const char *name = api_check_name(L, luaL_optstring(L, 4, NULL), "a:view");
    if (off < 0 || n < 0 || (lua_Unsigned)off > a->n || (lua_Unsigned)n > a->n - (size_t)off)
        luaL_error(L, "view(%I, %I): %s has %I elements, so a view is at most offset..%I", off, n, array_name(L, a, 1),
                   (lua_Integer)a->n, (lua_Integer)a->n);
    GpuArray *root = a->parent ? a->parent : a;
    size_t base = a->parent ? a->offset : 0;
    if (root->uninit)
        luaL_error(L, "view: %s was made with { init = false } and nothing has been written into it by the "
                      "script; views of such arrays are not supported (their reads are checked per array)",
                   array_name(L, root, 0));
    GpuArray *v = lua_newuserdatauv(L, sizeof *v, 2);
    memset(v, 0, sizeof *v);
    luaL_setmetatable(L, ARRAY_MT);
    v->dtype = a->dtype;
    v->st = a->st;
    v->parent = root;
    v->offset = base + (size_t)off;
    v->n = (size_t)n;
    v->ndim = 1;
    v->shape[0] = (size_t)n;
    v->ctx = a->ctx;
    v->number = a->ctx ? ++a->ctx->n_arrays : 0;
    if (name) v->name = xstrdup(name);
    if (a->st) {
        lua_getiuservalue(L, 1, 1);
        lua_setiuservalue(L, -2, 1);
    }
    if (a->parent) lua_getiuservalue(L, 1, 2);
    else lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 2);
    array_view_sync(v);
    return 1;
}

/* splitmix64: tiny, seedable, identical on every platform. */
static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);   /* SPLITMIX_GAMMA */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t api_seed(const ApiCtx *ctx, uint64_t seed) {
    if (!ctx || !ctx->seed_salt) return seed;
    uint64_t s = seed ^ ctx->seed_salt;
    return splitmix(&s);
}

static double opt_field_number(lua_State *L, int t, const char *k, double def) {
    if (lua_isnoneornil(L, t)) return def;
    lua_getfield(L, t, k);
    double v = lua_isnil(L, -1) ? def : luaL_checknumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* Element i of a:random is splitmix's (i+1)-th output from the seed: the
 * state after i+1 steps is seed + (i+1)·γ, so ranges of the array are made
 * on every core and the data is the same as one sequential pass. */
#define SPLITMIX_GAMMA 0x9e3779b97f4a7c15ull
typedef struct RandomCtx {
    GpuArray *a;
    uint64_t seed;
    double lo, hi, hi_r, top;    /* floats: [lo, hi), hi_r = hi rounded to the dtype, top the value below */
    double step;                 /* floats: > 0 = only lo + k * step, k uniform in [0, steps) */
    uint64_t steps;
    int64_t ilo;                 /* integers: [ilo, ilo + span), span 0 = every value */
    uint64_t span;
    unsigned __int128 span_m;    /* fastmod_m(span) */
} RandomCtx;

/* r % d without a division (a 64-bit one costs ~40 cycles, most of making
 * an integer array): Lemire, Kaser and Kurz, "Faster remainder by direct
 * computation" (2019), with m = ceil(2^128 / d) exact for every 64-bit r
 * and d > 0 (their theorem with F = 2N). */
static inline uint64_t fastmod(uint64_t r, unsigned __int128 m, uint64_t d) {
    unsigned __int128 low = m * r;
    unsigned __int128 bottom = ((low & UINT64_MAX) * d) >> 64, top = (low >> 64) * d;
    return (uint64_t)((bottom + top) >> 64);
}

static unsigned __int128 fastmod_m(uint64_t d) { return ~(unsigned __int128)0 / d + 1; }

static void random_range(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    const RandomCtx *c = p;
    GpuArray *a = c->a;
    uint64_t state = c->seed + (uint64_t)i0 * SPLITMIX_GAMMA;
    if (a->dtype == DT_F32 && !(c->step > 0)) {
        /* the common case, straight into the floats: the same values as the
           general loop below (a double rounded once to float), 4-5x faster */
        float *out = (float *)a->host + i0, top = (float)c->top;
        double lo = c->lo, w = c->hi - c->lo;
        bool cap = c->hi > c->lo;
        for (size_t j = 0; j < i1 - i0; j++) {
            float f = (float)(lo + w * ((double)(int64_t)(splitmix(&state) >> 11) * 0x1.0p-53));   /* < 2^53: a signed conversion, one instruction */
            out[j] = cap && (double)f >= c->hi_r ? top : f;
        }
        return;
    }
    if (dtype_is_float(a->dtype)) {
        double buf[ARRAY_CHUNK];
        bool narrow = a->dtype != DT_F64;
        for (size_t j = i0; j < i1; j += ARRAY_CHUNK) {
            size_t m = i1 - j < ARRAY_CHUNK ? i1 - j : ARRAY_CHUNK;
            for (size_t q = 0; q < m; q++) {
                double v = c->step > 0 ? c->lo + (double)(splitmix(&state) % c->steps) * c->step
                                       : c->lo + (c->hi - c->lo) * ((double)(splitmix(&state) >> 11) * 0x1.0p-53);
                /* rounding to the dtype must not reach hi: the range is [lo, hi) */
                if (narrow && c->hi > c->lo && dtype_round(a->dtype, v) >= c->hi_r) v = c->top;
                buf[q] = v;
            }
            array_store_f64(a, j, m, buf);
        }
        return;
    }
    int64_t buf[ARRAY_CHUNK];
    for (size_t j = i0; j < i1; j += ARRAY_CHUNK) {
        size_t m = i1 - j < ARRAY_CHUNK ? i1 - j : ARRAY_CHUNK;
        for (size_t q = 0; q < m; q++) {
            uint64_t r = splitmix(&state);
            buf[q] = (int64_t)((uint64_t)c->ilo + (c->span ? fastmod(r, c->span_m, c->span) : r));
        }
        array_store_i64(a, j, m, buf);
    }
}

static int array_random(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
    bool fl = dtype_is_float(a->dtype);
    double lo = opt_field_number(L, 2, "lo", 0), hi = opt_field_number(L, 2, "hi", fl ? 1 : 99);
    uint64_t state = api_seed(a->ctx, (uint64_t)(int64_t)opt_field_number(L, 2, "seed", 1));
    if (!(hi >= lo)) return luaL_error(L, "random: hi (%f) must not be below lo (%f)", hi, lo);
    array_host_write(L, a, true);
    double step = opt_field_number(L, 2, "step", 0);
    RandomCtx c = {.a = a, .seed = state, .lo = lo, .hi = hi};
    if (step != 0) {
        /* Values on a grid (multiples of step from lo): sums and products of
         * few of them are exact, so a check can ask for equality. */
        if (!fl) return luaL_error(L, "random: step is for float arrays (integers are whole already)");
        if (!(step > 0) || !isfinite(step)) return luaL_error(L, "random: step (%f) must be a positive number", step);
        double k = ceil((hi - lo) / step);
        if (!(k >= 1) || k > 0x1.0p53)
            return luaL_error(L, "random: [lo, hi) = [%f, %f) holds %s steps of %f", lo, hi, k < 1 ? "no" : "too many",
                              step);
        c.step = step;
        c.steps = (uint64_t)k;
    }
    if (fl) {
        c.hi_r = dtype_round(a->dtype, hi);
        c.top = dtype_next_below(a->dtype, c.hi_r);
        if (c.top < lo) c.top = dtype_round(a->dtype, lo);
    } else {
        int64_t ihi = clamp_i64(floor(hi));
        c.ilo = clamp_i64(ceil(lo));
        c.span = (uint64_t)ihi - (uint64_t)c.ilo + 1; /* 0 = the whole 64-bit range */
        if (c.span) c.span_m = fastmod_m(c.span);
    }
    if (a->parent) array_view_sync(a);
    par_for(a->n, ARRAY_CHUNK, PAR_MIN_ELEMS, random_range, &c);
    lua_settop(L, 1);
    return 1;
}

typedef struct IotaCtx {
    GpuArray *a;
    double start, step;
} IotaCtx;

static void iota_range(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    const IotaCtx *c = p;
    double buf[ARRAY_CHUNK];
    for (size_t j = i0; j < i1; j += ARRAY_CHUNK) {
        size_t m = i1 - j < ARRAY_CHUNK ? i1 - j : ARRAY_CHUNK;
        for (size_t q = 0; q < m; q++) buf[q] = c->start + (double)(j + q) * c->step;
        array_store_f64(c->a, j, m, buf);
    }
}

static int array_iota(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    IotaCtx c = {a, luaL_optnumber(L, 2, 0), luaL_optnumber(L, 3, 1)};
    array_host_write(L, a, true);
    par_for(a->n, ARRAY_CHUNK, PAR_MIN_ELEMS, iota_range, &c);
    lua_settop(L, 1);
    return 1;
}

/* a:fill's bytes: one element repeated over FILL_PATTERN bytes (a multiple
 * of every element size), copied over the array on every core. */
#define FILL_PATTERN 4096
typedef struct FillCtx {
    char *p;
    unsigned char pattern[FILL_PATTERN];
} FillCtx;

static void fill_range(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    FillCtx *c = p;
    for (size_t j = i0; j < i1; j += FILL_PATTERN)
        memcpy(c->p + j, c->pattern, i1 - j < FILL_PATTERN ? i1 - j : FILL_PATTERN);
}

static int array_fill(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    luaL_checknumber(L, 2);
    array_host_write(L, a, true);
    if (a->n) {
        store_elem(L, a, 0, 2);
        size_t es = dtype_size(a->dtype), bytes = a->n * es;
        assert(FILL_PATTERN % es == 0);
        FillCtx c = {.p = a->host};
        for (size_t j = 0; j < FILL_PATTERN; j += es) memcpy(c.pattern + j, a->host, es);
        bool zero = true;
        for (size_t j = 0; j < es; j++) zero = zero && !c.pattern[j];
        /* ranges start at multiples of the grain, whole elements each (es divides it) */
        if (zero) par_memset(a->host, 0, bytes);
        else par_for(bytes, (size_t)1 << 20, PAR_MIN_BYTES, fill_range, &c);
    }
    lua_settop(L, 1);
    return 1;
}

static int array_copy(lua_State *L) {
    GpuArray *a = any_array_check(L, 1);
    const void *src = array_host_read(L, a);
    GpuArray *b;
    if (a->st) {
        lua_getiuservalue(L, 1, 1);
        b = push_new_struct(L, a->st, a->ndim, a->shape);
    } else {
        b = array_push_new(L, a->dtype, a->ndim, a->shape);
    }
    par_memcpy(b->host, src, array_bytes(a));
    return 1;
}

static int array_set_table(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    array_host_write(L, a, false);
    size_t k = 0;
    lua_Integer rows = luaL_len(L, 2);
    for (lua_Integer r = 1; r <= rows; r++) {
        lua_geti(L, 2, r);
        if (lua_istable(L, -1)) { /* nested rows of a 2-D array */
            lua_Integer cols = luaL_len(L, -1);
            for (lua_Integer c = 1; c <= cols; c++, k++) {
                if (k >= a->n) luaL_error(L, "set: the table has more values than %s's %I elements", array_name(L, a, 1), (lua_Integer)a->n);
                lua_geti(L, -1, c);
                store_elem(L, a, k, lua_gettop(L));
                lua_pop(L, 1);
            }
        } else {
            if (k >= a->n) luaL_error(L, "set: the table has more values than %s's %I elements", array_name(L, a, 1), (lua_Integer)a->n);
            store_elem(L, a, k++, lua_gettop(L));
        }
        lua_pop(L, 1);
    }
    lua_settop(L, 1);
    return 1;
}

/* A Lua sequence of the values; of an array of structs, one table of
 * fields per element ({ {x = 1, y = 2, m = 3}, ... }). */
static int array_to_table(lua_State *L) {
    GpuArray *a = any_array_check(L, 1);
    const char *h = array_host_read(L, a);
    lua_createtable(L, a->n < INT32_MAX ? (int)a->n : 0, 0);
    for (size_t i = 0; i < a->n; i++) {
        if (a->st) {
            lua_createtable(L, 0, a->st->n);
            for (int f = 0; f < a->st->n; f++) {
                push_value(L, a->st->f[f].type, h + i * a->st->size + a->st->f[f].offset);
                lua_setfield(L, -2, a->st->f[f].name);
            }
        } else {
            push_elem(L, a, i);
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int array_named(lua_State *L) {
    GpuArray *a = any_array_check(L, 1);
    const char *s = api_check_name(L, luaL_checkstring(L, 2), "a:named");
    free(a->name);
    a->name = xstrdup(s);
    lua_settop(L, 1);
    return 1;
}

/* ---- the gpu table ------------------------------------------------------ */

/* Moves a's host buffer into page-locked memory from the backend. */
static void make_pinned(lua_State *L, GpuArray *a) {
    ApiCtx *c = a->ctx;
    if (!c || !c->backend) luaL_error(L, "pinned arrays exist only inside run(t)");
    if (!c->backend->ops->host_alloc) luaL_error(L, "the %s backend has no pinned memory", c->backend->ops->name);
    size_t bytes = array_bytes(a);
    void *p = NULL;
    Diag *d = c->backend->ops->host_alloc(c->backend, bytes, &p);
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
    memcpy(p, a->host, bytes);
    array_host_free(a);
    a->host = p;
    a->pinned = true;
}

static int gpu_array(lua_State *L) {
    /* the element type: a dtype name, or a struct (gpu.struct{} or its table) */
    DType dt = lua_type(L, 1) == LUA_TSTRING ? check_dtype(L, 1) : DT_STRUCT;
    const StructType *st = NULL;
    if (dt == DT_STRUCT) {
        if (lua_type(L, 1) != LUA_TTABLE && lua_type(L, 1) != LUA_TUSERDATA)
            luaL_argerror(L, 1, "the element type is a dtype name (\"f32\") or a gpu.struct{...}");
        st = struct_check(L, 1);
        lua_replace(L, 1);
    }
    size_t shape[ARRAY_MAX_DIMS];
    int ndim = 0;
    if (lua_istable(L, 2)) {
        lua_Integer len = luaL_len(L, 2);
        if (len < 1 || len > ARRAY_MAX_DIMS) luaL_argerror(L, 2, "a shape has 1 to 3 dimensions");
        for (lua_Integer i = 1; i <= len; i++) {
            lua_geti(L, 2, i);
            int ok = 0;
            lua_Integer d = lua_tointegerx(L, -1, &ok);
            if (!ok || d < 0) luaL_argerror(L, 2, "dimensions must be non-negative integers");
            shape[ndim++] = (size_t)d;
            lua_pop(L, 1);
        }
    } else {
        int ok = 0;
        lua_Integer n = lua_tointegerx(L, 2, &ok);
        if (!ok || n < 0)
            luaL_argerror(L, 2, lua_pushfstring(L, "element count must be a non-negative integer, got %s",
                                                luaL_tolstring(L, 2, NULL)));
        shape[ndim++] = (size_t)n;
    }
    int opt = lua_istable(L, 3) ? 3 : 4;   /* gpu.array(dt, n, name, opts) or gpu.array(dt, n, opts) */
    const char *name = opt == 3 ? NULL : luaL_optstring(L, 3, NULL);
    bool pinned = false, init = true;
    if (!lua_isnoneornil(L, opt)) {
        luaL_checktype(L, opt, LUA_TTABLE);
        lua_getfield(L, opt, "pinned");
        pinned = lua_toboolean(L, -1);
        lua_getfield(L, opt, "name");
        if (!lua_isnil(L, -1)) name = luaL_checkstring(L, -1);
        if (lua_getfield(L, opt, "init") != LUA_TNIL) {
            if (!lua_isboolean(L, -1)) luaL_error(L, "gpu.array: init must be true or false");
            init = lua_toboolean(L, -1);
        }
        lua_pop(L, 3);   /* the option table keeps the name alive */
    }
    api_check_name(L, name, "gpu.array");
    GpuArray *a;
    if (st) {
        lua_pushvalue(L, 1);
        a = push_new_struct(L, st, ndim, shape);
    } else {
        a = array_push_new(L, dt, ndim, shape);
    }
    if (name) a->name = xstrdup(name);
    a->uninit = !init;
    if (pinned) make_pinned(L, a);
    return 1;
}

/* gpu.pinned(dtype, n [, name]): gpu.array with page-locked host memory. */
static int gpu_pinned(lua_State *L) {
    lua_settop(L, 3);
    lua_createtable(L, 0, 1);
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "pinned");
    return gpu_array(L);
}

static int push_scalar(lua_State *L, DType dt) {
    GpuScalar s;
    memset(&s, 0, sizeof s);
    s.dtype = dt;
    if (dtype_is_float(dt)) {
        double v = luaL_checknumber(L, 1);
        s.value = dtype_round(dt, v);   /* what the kernel gets: the nearest value of the type */
        if (dt == DT_F16 || dt == DT_BF16) {
            uint16_t h = dt == DT_F16 ? f16_from_double(v) : bf16_from_double(v);
            s.arg.size = 2;
            memcpy(s.arg.bytes, &h, 2);
        } else {
            s.arg = dt == DT_F32 ? kernel_arg_f32((float)v) : kernel_arg_f64(v);
        }
    } else {
        int ok = 0;
        lua_Integer v = lua_tointegerx(L, 1, &ok);
        if (!ok) return luaL_error(L, "gpu.%s needs an integer, got %s", dtype_name(dt), luaL_tolstring(L, 1, NULL));
        bool fits = dt == DT_I32 ? v >= INT32_MIN && v <= INT32_MAX
                  : dt == DT_U32 ? v >= 0 && v <= (lua_Integer)UINT32_MAX
                  : dt == DT_U64 ? v >= 0 : true;
        if (!fits) return luaL_error(L, "gpu.%s(%I): the value does not fit in %s", dtype_name(dt), v, dtype_name(dt));
        s.value = (double)v;
        s.arg = dt == DT_I32 ? kernel_arg_i32((int32_t)v) : dt == DT_U32 ? kernel_arg_u32((uint32_t)v)
              : dt == DT_I64 ? kernel_arg_i64(v) : kernel_arg_u64((uint64_t)v);
    }
    GpuScalar *u = lua_newuserdatauv(L, sizeof *u, 0);
    *u = s;
    luaL_setmetatable(L, SCALAR_MT);
    return 1;
}

static int gpu_i32(lua_State *L) { return push_scalar(L, DT_I32); }
static int gpu_u32(lua_State *L) { return push_scalar(L, DT_U32); }
static int gpu_i64(lua_State *L) { return push_scalar(L, DT_I64); }
static int gpu_u64(lua_State *L) { return push_scalar(L, DT_U64); }
static int gpu_f32(lua_State *L) { return push_scalar(L, DT_F32); }
static int gpu_f64(lua_State *L) { return push_scalar(L, DT_F64); }
static int gpu_f16(lua_State *L) { return push_scalar(L, DT_F16); }
static int gpu_bf16(lua_State *L) { return push_scalar(L, DT_BF16); }

static int scalar_tostring(lua_State *L) {
    GpuScalar *s = luaL_checkudata(L, 1, SCALAR_MT);
    lua_pushnumber(L, s->value);
    lua_pushfstring(L, "gpu.%s(%s)", dtype_name(s->dtype), lua_tostring(L, -1));
    return 1;
}

/* The stream of an options table at idx for an async operation; raises
 * when the backend has no streams. -1 = no stream given (synchronous). */
static int async_stream(lua_State *L, GpuArray *a, int idx, const char *what) {
    if (!lua_isnoneornil(L, idx)) luaL_checktype(L, idx, LUA_TTABLE);
    int s = stream_opt(L, idx);
    if (s >= 0 && (!a->ctx || !a->ctx->backend || !a->ctx->backend->ops->copy_async))
        luaL_error(L, "%s: this backend has no streams", what);
    return s;
}

/* a:upload([{stream = s}]): host -> device now (synchronous), or enqueued on s. */
/* Copies and memsets move a whole array: not a view (its parent's, then). */
static GpuArray *whole_array(lua_State *L, const char *fn) {
    GpuArray *a = any_array_check(L, 1);
    if (a->parent)
        luaL_error(L, "%s: %s is a view; copies and memsets work on the whole array it looks into", fn,
                   array_name(L, a, 1));
    return a;
}

static int array_upload(lua_State *L) {
    GpuArray *a = whole_array(L, "upload");
    int s = async_stream(L, a, 2, "upload");
    array_wait_pending(L, a);
    Backend *b = array_device_alloc(L, a, 1);
    size_t bytes = array_bytes(a);
    Diag *d = NULL;
    if (s < 0) {
        d = bytes ? b->ops->copy_to_device(b, a->dev, a->host, bytes) : NULL;
    } else {
        CopyRequest rq = {COPY_H2D, s, a->dev, 0, a->host, bytes, a->pinned, NULL};
        d = b->ops->copy_async(b, &rq);
        a->pending = bytes > 0;
        a->pending_stream = s;
    }
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
    a->host_dirty = false;
    a->dev_dirty = false;
    lua_settop(L, 1);
    return 1;
}

/* a:download([{stream = s}]): device -> host now, or enqueued on s (the host
 * copy is valid once s is synchronized; reading it waits for s). */
static int array_download(lua_State *L) {
    GpuArray *a = whole_array(L, "download");
    int s = async_stream(L, a, 2, "download");
    array_wait_pending(L, a);
    if (!a->has_dev) luaL_error(L, "download: %s has never been on the device", array_name(L, a, 1));
    Backend *b = a->ctx->backend;
    size_t bytes = array_bytes(a);
    Diag *d = NULL;
    if (s < 0) {
        d = bytes ? b->ops->copy_to_host(b, a->host, a->dev, bytes) : NULL;
    } else {
        CopyRequest rq = {COPY_D2H, s, a->dev, 0, a->host, bytes, a->pinned, NULL};
        d = b->ops->copy_async(b, &rq);
        a->pending = bytes > 0;
        a->pending_stream = s;
    }
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
    a->dev_dirty = false;
    a->host_dirty = false;
    lua_settop(L, 1);
    return 1;
}

/* a:memset(byte [, {stream = s}]): every byte of the device copy set to byte. */
static int array_memset(lua_State *L) {
    GpuArray *a = whole_array(L, "memset");
    lua_Integer v = luaL_checkinteger(L, 2);
    if (v < 0 || v > 255) luaL_error(L, "memset: the value is one byte (0..255), got %I", v);
    int s = async_stream(L, a, 3, "memset");
    array_wait_pending(L, a);
    Backend *b = array_device_alloc(L, a, 1);
    size_t bytes = array_bytes(a);
    Diag *d = s < 0 ? b->ops->memset(b, a->dev, (int)v, bytes)
                    : b->ops->memset_async(b, a->dev, (int)v, bytes, s, NULL);
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
    a->host_dirty = false;
    a->dev_dirty = true;
    lua_settop(L, 1);
    return 1;
}

static const luaL_Reg array_methods[] = {
    {"random", array_random}, {"iota", array_iota},         {"fill", array_fill},
    {"copy", array_copy},     {"set", array_set_table},      {"to_table", array_to_table},
    {"named", array_named},   {"upload", array_upload},      {"download", array_download},
    {"memset", array_memset}, {"view", array_view},          {"get", array_get_method},
    {"field", array_field},   {"set_field", array_set_field}, {NULL, NULL},
};

static const luaL_Reg gpu_funcs[] = {
    {"array", gpu_array}, {"i32", gpu_i32},   {"u32", gpu_u32},       {"i64", gpu_i64},
    {"u64", gpu_u64},     {"f32", gpu_f32},   {"f64", gpu_f64},       {"f16", gpu_f16},
    {"bf16", gpu_bf16},   {"pinned", gpu_pinned}, {NULL, NULL},
};

static void locked_metatable(lua_State *L, const char *name, const luaL_Reg *meta) {
    luaL_newmetatable(L, name);
    luaL_setfuncs(L, meta, 0);
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
}

void gpu_push_module(lua_State *L) {
    static const luaL_Reg array_meta[] = {
        {"__index", array_index}, {"__newindex", array_newindex}, {"__len", array_len},
        {"__gc", array_gc},       {"__tostring", array_tostring}, {NULL, NULL},
    };
    locked_metatable(L, ARRAY_MT, array_meta);
    luaL_newlib(L, array_methods);
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);
    static const luaL_Reg scalar_meta[] = {{"__tostring", scalar_tostring}, {NULL, NULL}};
    locked_metatable(L, SCALAR_MT, scalar_meta);
    lua_pop(L, 1);
    static const luaL_Reg elem_meta[] = {
        {"__index", elem_index}, {"__newindex", elem_newindex}, {"__tostring", elem_tostring}, {NULL, NULL},
    };
    locked_metatable(L, ELEM_MT, elem_meta);
    lua_pop(L, 1);
    luaL_newlib(L, gpu_funcs);
}
