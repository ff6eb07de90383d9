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
 * array on the host first waits for its stream, so values are never torn. */
#include <assert.h>
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "lua/api.h"

#define ARRAY_MT "cudojo.array"
#define SCALAR_MT "cudojo.scalar"

static const struct {
    const char *name;
    size_t size;
    bool is_float, is_signed;
} dtypes[DT_COUNT] = {
    [DT_F32] = {"f32", 4, true, true},  [DT_F64] = {"f64", 8, true, true},
    [DT_I32] = {"i32", 4, false, true}, [DT_U32] = {"u32", 4, false, false},
    [DT_I64] = {"i64", 8, false, true}, [DT_U64] = {"u64", 8, false, false},
    [DT_I8] = {"i8", 1, false, true},   [DT_U8] = {"u8", 1, false, false},
    [DT_I16] = {"i16", 2, false, true}, [DT_U16] = {"u16", 2, false, false},
};

size_t dtype_size(DType t) { assert(t >= 0 && t < DT_COUNT); return dtypes[t].size; }
const char *dtype_name(DType t) { assert(t >= 0 && t < DT_COUNT); return dtypes[t].name; }
bool dtype_is_float(DType t) { assert(t >= 0 && t < DT_COUNT); return dtypes[t].is_float; }
bool dtype_is_signed(DType t) { assert(t >= 0 && t < DT_COUNT); return dtypes[t].is_signed; }

bool dtype_parse(const char *s, DType *out) {
    for (int i = 0; i < DT_COUNT; i++)
        if (!strcmp(s, dtypes[i].name)) {
            *out = (DType)i;
            return true;
        }
    return false;
}

static DType check_dtype(lua_State *L, int idx) {
    const char *s = luaL_checkstring(L, idx);
    DType t = DT_F32;
    if (!dtype_parse(s, &t))
        luaL_argerror(L, idx, lua_pushfstring(L, "unknown dtype '%s' (f32 f64 i32 u32 i64 u64 i8 u8 i16 u16)", s));
    return t;
}

ApiCtx *api_ctx(lua_State *L) { return sandbox_user(sandbox_from_lua(L)); }

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

/* ---- element access ----------------------------------------------------- */

double array_get(const GpuArray *a, size_t i) {
    assert(a->host && i < a->n);
    const void *p = a->host;
    switch (a->dtype) {
    case DT_F32: return ((const float *)p)[i];
    case DT_F64: return ((const double *)p)[i];
    case DT_I32: return ((const int32_t *)p)[i];
    case DT_U32: return ((const uint32_t *)p)[i];
    case DT_I64: return (double)((const int64_t *)p)[i];
    case DT_U64: return (double)((const uint64_t *)p)[i];
    case DT_I8: return ((const int8_t *)p)[i];
    case DT_U8: return ((const uint8_t *)p)[i];
    case DT_I16: return ((const int16_t *)p)[i];
    case DT_U16: return ((const uint16_t *)p)[i];
    default: return 0;
    }
}

/* Float → integer dtype conversion that never invokes undefined behaviour. */
static int64_t clamp_i64(double v) {
    if (v != v) return 0;
    if (v >= 9.2233720368547758e18) return INT64_MAX;
    if (v <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)v;
}

int64_t array_get_i64(const GpuArray *a, size_t i) {
    assert(a->host && i < a->n);
    switch (a->dtype) {
    case DT_I64: return ((const int64_t *)a->host)[i];
    case DT_U64: return (int64_t)((const uint64_t *)a->host)[i];
    case DT_F32:
    case DT_F64: return clamp_i64(array_get(a, i));
    default: return (int64_t)array_get(a, i); /* exact for every type of 32 bits or less */
    }
}

uint64_t array_get_u64(const GpuArray *a, size_t i) {
    assert(a->host && i < a->n);
    if (a->dtype == DT_U64) return ((const uint64_t *)a->host)[i];
    return (uint64_t)array_get_i64(a, i);
}

void array_set_i64(GpuArray *a, size_t i, int64_t v) {
    assert(a->host && i < a->n);
    void *p = a->host;
    switch (a->dtype) {
    case DT_F32: ((float *)p)[i] = (float)v; break;
    case DT_F64: ((double *)p)[i] = (double)v; break;
    case DT_I32: ((int32_t *)p)[i] = (int32_t)(uint32_t)v; break;
    case DT_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case DT_I64: ((int64_t *)p)[i] = v; break;
    case DT_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    case DT_I8: ((int8_t *)p)[i] = (int8_t)(uint8_t)v; break;
    case DT_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case DT_I16: ((int16_t *)p)[i] = (int16_t)(uint16_t)v; break;
    case DT_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    default: break;
    }
}

void array_set(GpuArray *a, size_t i, double v) {
    assert(a->host && i < a->n);
    if (a->dtype == DT_F32) ((float *)a->host)[i] = (float)v;
    else if (a->dtype == DT_F64) ((double *)a->host)[i] = v;
    else if (a->dtype == DT_U64 && v >= 9.2233720368547758e18)
        ((uint64_t *)a->host)[i] = v >= 1.8446744073709552e19 ? UINT64_MAX : (uint64_t)v;
    else array_set_i64(a, i, clamp_i64(v));
}

#define LOOP_T(T, body) do { T *p = (T *)a->host + i0; for (size_t k = 0; k < n; k++) { body; } } while (0)

void array_load_f64(const GpuArray *a, size_t i0, size_t n, double *out) {
    assert(i0 <= a->n && n <= a->n - i0 && (a->host || n == 0));
    switch (a->dtype) {
    case DT_F32: LOOP_T(const float, out[k] = p[k]); break;
    case DT_F64: memcpy(out, (const double *)a->host + i0, n * sizeof *out); break;
    case DT_I32: LOOP_T(const int32_t, out[k] = p[k]); break;
    case DT_U32: LOOP_T(const uint32_t, out[k] = p[k]); break;
    case DT_I64: LOOP_T(const int64_t, out[k] = (double)p[k]); break;
    case DT_U64: LOOP_T(const uint64_t, out[k] = (double)p[k]); break;
    case DT_I8: LOOP_T(const int8_t, out[k] = p[k]); break;
    case DT_U8: LOOP_T(const uint8_t, out[k] = p[k]); break;
    case DT_I16: LOOP_T(const int16_t, out[k] = p[k]); break;
    case DT_U16: LOOP_T(const uint16_t, out[k] = p[k]); break;
    default: break;
    }
}

void array_store_f64(GpuArray *a, size_t i0, size_t n, const double *in) {
    assert(i0 <= a->n && n <= a->n - i0 && (a->host || n == 0));
    switch (a->dtype) {
    case DT_F32: LOOP_T(float, p[k] = (float)in[k]); break;
    case DT_F64: memcpy((double *)a->host + i0, in, n * sizeof *in); break;
    default:
        for (size_t k = 0; k < n; k++) array_set(a, i0 + k, in[k]);
        break;
    }
}

void array_load_i64(const GpuArray *a, size_t i0, size_t n, int64_t *out) {
    assert(i0 <= a->n && n <= a->n - i0 && (a->host || n == 0));
    switch (a->dtype) {
    case DT_I32: LOOP_T(const int32_t, out[k] = p[k]); break;
    case DT_U32: LOOP_T(const uint32_t, out[k] = p[k]); break;
    case DT_I64: memcpy(out, (const int64_t *)a->host + i0, n * sizeof *out); break;
    case DT_U64: LOOP_T(const uint64_t, out[k] = (int64_t)p[k]); break;
    case DT_I8: LOOP_T(const int8_t, out[k] = p[k]); break;
    case DT_U8: LOOP_T(const uint8_t, out[k] = p[k]); break;
    case DT_I16: LOOP_T(const int16_t, out[k] = p[k]); break;
    case DT_U16: LOOP_T(const uint16_t, out[k] = p[k]); break;
    default:
        for (size_t k = 0; k < n; k++) out[k] = array_get_i64(a, i0 + k);
        break;
    }
}

void array_store_i64(GpuArray *a, size_t i0, size_t n, const int64_t *in) {
    assert(i0 <= a->n && n <= a->n - i0 && (a->host || n == 0));
    switch (a->dtype) {
    case DT_I32: LOOP_T(int32_t, p[k] = (int32_t)(uint32_t)in[k]); break;
    case DT_U32: LOOP_T(uint32_t, p[k] = (uint32_t)in[k]); break;
    case DT_I64: memcpy((int64_t *)a->host + i0, in, n * sizeof *in); break;
    default:
        for (size_t k = 0; k < n; k++) array_set_i64(a, i0 + k, in[k]);
        break;
    }
}

void array_format_elem(const GpuArray *a, size_t i, char *buf, size_t n) {
    switch (a->dtype) {
    case DT_F32: snprintf(buf, n, "%.9g", (double)((const float *)a->host)[i]); break;
    case DT_F64: snprintf(buf, n, "%.17g", ((const double *)a->host)[i]); break;
    case DT_U64: snprintf(buf, n, "%llu", (unsigned long long)array_get_u64(a, i)); break;
    default: snprintf(buf, n, "%lld", (long long)array_get_i64(a, i)); break;
    }
}

void array_format_index(const GpuArray *a, size_t i, char *buf, size_t n) {
    if (a->ndim == 2 && a->shape[1]) snprintf(buf, n, "[%zu][%zu]", i / a->shape[1], i % a->shape[1]);
    else if (a->ndim == 3 && a->shape[1] && a->shape[2])
        snprintf(buf, n, "[%zu][%zu][%zu]", i / (a->shape[1] * a->shape[2]), (i / a->shape[2]) % a->shape[1],
                 i % a->shape[2]);
    else snprintf(buf, n, "[%zu]", i);
}

/* ---- lifecycle and data movement --------------------------------------- */

GpuArray *array_test(lua_State *L, int idx) { return luaL_testudata(L, idx, ARRAY_MT); }
GpuArray *array_check(lua_State *L, int idx) { return luaL_checkudata(L, idx, ARRAY_MT); }
GpuScalar *scalar_test(lua_State *L, int idx) { return luaL_testudata(L, idx, SCALAR_MT); }

GpuArray *array_push_new(lua_State *L, DType dt, int ndim, const size_t *shape) {
    ApiCtx *c = api_ctx(L);
    size_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] && n > SIZE_MAX / shape[i]) luaL_error(L, "gpu.array: size overflows");
        n *= shape[i];
    }
    size_t es = dtype_size(dt);
    size_t cap = c && c->array_cap ? c->array_cap : ARRAY_DEFAULT_CAP;
    size_t used = c ? c->array_bytes : 0;
    if (n > cap / es || n * es > cap - used)
        luaL_error(L, "gpu.array: %I elements of %s (%I MiB) exceed what an exercise may allocate (%I MiB in all)",
                   (lua_Integer)n, dtype_name(dt), (lua_Integer)((double)n * (double)es / 1048576.0),
                   (lua_Integer)(cap >> 20));
    /* Lua sees only the small userdata, not the buffer behind it: collect
     * dead arrays every 256 MiB so a loop that makes big arrays does not
     * pile up gigabytes of host (and device) memory. */
    if (c && (c->since_gc += n * es) > ((size_t)256 << 20)) {
        c->since_gc = 0;
        lua_gc(L, LUA_GCCOLLECT);
    }
    GpuArray *a = lua_newuserdatauv(L, sizeof *a, 0);
    memset(a, 0, sizeof *a);
    a->dtype = dt;
    a->ndim = ndim;
    for (int i = 0; i < ndim; i++) a->shape[i] = shape[i];
    luaL_setmetatable(L, ARRAY_MT);
    /* The userdata owns the buffer from here on: __gc frees it even if a
     * later call raises an error. */
    a->host = calloc(n ? n : 1, es);
    if (!a->host) luaL_error(L, "gpu.array: out of host memory for %I elements", (lua_Integer)n);
    a->n = n;
    a->ctx = c;
    if (c) {
        c->array_bytes += n * es;
        a->number = ++c->n_arrays;
    }
    a->host_dirty = true;
    return a;
}

static int array_gc(lua_State *L) {
    GpuArray *a = luaL_checkudata(L, 1, ARRAY_MT);
    Backend *b = a->ctx ? a->ctx->backend : NULL;
    if (a->pending && b && b->ops->stream_synchronize) {
        Diag *d = b->ops->stream_synchronize(b, a->pending_stream);   /* the copy must not outlive the buffer */
        diag_free(&d);
    }
    if (a->has_dev && b) {
        Diag *d = b->ops->mem_free(b, a->dev);
        diag_free(&d);
    }
    a->has_dev = false;
    if (a->ctx && a->host) {
        assert(a->ctx->array_bytes >= a->n * dtype_size(a->dtype));   /* the cap's accounting */
        a->ctx->array_bytes -= a->n * dtype_size(a->dtype);
    }
    if (a->pinned && b && b->ops->host_free) b->ops->host_free(b, a->host);
    else free(a->host);
    a->host = NULL;
    a->pinned = false;
    XFREE(a->name);
    return 0;
}

/* Waits for the stream of an async copy that may still use a's host buffer. */
static void wait_pending(lua_State *L, GpuArray *a) {
    if (!a->pending) return;
    a->pending = false;
    Backend *b = a->ctx->backend;
    Diag *d = b->ops->stream_synchronize(b, a->pending_stream);
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
}

const void *array_host_read(lua_State *L, GpuArray *a) {
    wait_pending(L, a);
    if (a->dev_dirty && a->has_dev) {
        Backend *b = a->ctx->backend;
        Diag *d = a->n ? b->ops->copy_to_host(b, a->host, a->dev, a->n * dtype_size(a->dtype)) : NULL;
        if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
    }
    a->dev_dirty = false;
    return a->host;
}

void *array_host_write(lua_State *L, GpuArray *a, bool whole) {
    wait_pending(L, a);
    if (!whole) array_host_read(L, a);
    a->dev_dirty = false;
    a->host_dirty = true;
    a->uninit = false;   /* the script wrote it: it holds something now */
    return a->host;
}

/* Looks for a local (or upvalue) of the calling Lua functions holding the
 * value at idx: `local c = gpu.array(...)` makes the array "c". */
static char *find_local_name(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_Debug ar;
    for (int level = 1; level <= 6 && lua_getstack(L, level, &ar); level++) {
        const char *nm;
        for (int i = 1; (nm = lua_getlocal(L, &ar, i)); i++) {
            bool hit = nm[0] != '(' && lua_rawequal(L, -1, idx);
            lua_pop(L, 1);
            if (hit) return str_cut(nm, strlen(nm), API_NAME_MAX);
        }
        if (!lua_getinfo(L, "f", &ar)) continue;
        for (int i = 1; (nm = lua_getupvalue(L, -1, i)); i++) {
            bool hit = nm[0] && lua_rawequal(L, -1, idx);
            lua_pop(L, 1);
            if (hit) {
                lua_pop(L, 1);
                return str_cut(nm, strlen(nm), API_NAME_MAX);
            }
        }
        lua_pop(L, 1);
    }
    return NULL;
}

const char *array_name(lua_State *L, GpuArray *a, int idx) {
    if (!a->name && idx) a->name = find_local_name(L, idx);
    if (!a->name) a->name = xasprintf("array#%d", a->number);
    return a->name;
}

/* The device buffer, allocated (not uploaded) when there is none yet. */
static Backend *device_alloc(lua_State *L, GpuArray *a, int idx) {
    ApiCtx *c = a->ctx;
    if (!c || !c->backend) luaL_error(L, "arrays can only go to the device inside run(t)");
    Backend *b = c->backend;
    if (!a->has_dev) {
        const char *label = array_name(L, a, idx);
        Diag *d = b->ops->mem_alloc(b, a->n * dtype_size(a->dtype), label, dtype_size(a->dtype), &a->dev);
        if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
        a->has_dev = true;
        a->host_dirty = !a->uninit;
        if (a->uninit && b->ops->mem_track_init && a->n) {
            d = b->ops->mem_track_init(b, a->dev, a->n * dtype_size(a->dtype), false);
            if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
        }
    }
    return b;
}

DevPtr array_device(lua_State *L, GpuArray *a, int idx) {
    Backend *b = device_alloc(L, a, idx);
    size_t bytes = a->n * dtype_size(a->dtype);
    if (a->host_dirty) {
        Diag *d = bytes ? b->ops->copy_to_device(b, a->dev, a->host, bytes) : NULL;
        if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
        a->host_dirty = false;
    }
    return a->dev;
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

static void push_elem(lua_State *L, const GpuArray *a, size_t i) {
    if (dtype_is_float(a->dtype)) lua_pushnumber(L, array_get(a, i));
    else if (a->dtype == DT_U64 && array_get_u64(a, i) > (uint64_t)INT64_MAX) lua_pushnumber(L, array_get(a, i));
    else lua_pushinteger(L, array_get_i64(a, i));
}

/* Stores the Lua value at idx; integers must be integers. */
static void store_elem(lua_State *L, GpuArray *a, size_t i, int idx) {
    if (dtype_is_float(a->dtype)) {
        int isnum = 0;
        double v = lua_tonumberx(L, idx, &isnum);
        if (!isnum || lua_type(L, idx) != LUA_TNUMBER)
            luaL_error(L, "%s holds numbers, not %s", array_name(L, a, 1), luaL_typename(L, idx));
        array_set(a, i, v);
        return;
    }
    int isint = 0;
    lua_Integer v = lua_tointegerx(L, idx, &isint);
    if (!isint) {
        if (lua_type(L, idx) == LUA_TNUMBER)
            luaL_error(L, "%s is %s (an integer array); %s is not an integer", array_name(L, a, 1),
                       dtype_name(a->dtype), lua_tostring(L, idx));
        luaL_error(L, "%s holds numbers, not %s", array_name(L, a, 1), luaL_typename(L, idx));
    }
    array_set_i64(a, i, v);
}

static int array_index(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    if (lua_type(L, 2) == LUA_TNUMBER) {
        size_t i = check_index(L, a, 2);
        array_host_read(L, a);
        push_elem(L, a, i);
        return 1;
    }
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "dtype")) {
        lua_pushstring(L, dtype_name(a->dtype));
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
    GpuArray *a = array_check(L, 1);
    if (lua_type(L, 2) != LUA_TNUMBER)
        return luaL_error(L, "arrays hold numbers at integer indices; cannot set field '%s'", luaL_tolstring(L, 2, NULL));
    size_t i = check_index(L, a, 2);
    array_host_write(L, a, false);
    store_elem(L, a, i, 3);
    return 0;
}

static int array_len(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)array_check(L, 1)->n);
    return 1;
}

static int array_tostring(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    if (a->ndim == 1) lua_pushfstring(L, "%s[%I] %s", dtype_name(a->dtype), (lua_Integer)a->n, array_name(L, a, 1));
    else lua_pushfstring(L, "%s[%I][%I] %s", dtype_name(a->dtype), (lua_Integer)a->shape[0],
                         (lua_Integer)(a->n / (a->shape[0] ? a->shape[0] : 1)), array_name(L, a, 1));
    return 1;
}

/* splitmix64: tiny, seedable, identical on every platform. */
static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
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

static int array_random(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
    bool fl = dtype_is_float(a->dtype);
    double lo = opt_field_number(L, 2, "lo", 0), hi = opt_field_number(L, 2, "hi", fl ? 1 : 99);
    uint64_t state = api_seed(a->ctx, (uint64_t)(int64_t)opt_field_number(L, 2, "seed", 1));
    if (!(hi >= lo)) return luaL_error(L, "random: hi (%f) must not be below lo (%f)", hi, lo);
    array_host_write(L, a, true);
    if (fl) {
        double buf[ARRAY_CHUNK];
        float top = nextafterf((float)hi, (float)lo);
        for (size_t i0 = 0; i0 < a->n; i0 += ARRAY_CHUNK) {
            size_t m = a->n - i0 < ARRAY_CHUNK ? a->n - i0 : ARRAY_CHUNK;
            for (size_t k = 0; k < m; k++) {
                double v = lo + (hi - lo) * ((double)(splitmix(&state) >> 11) * 0x1.0p-53);
                /* rounding to f32 must not reach hi: the range is [lo, hi) */
                if (a->dtype == DT_F32 && (float)v >= (float)hi && hi > lo) v = top;
                buf[k] = v;
            }
            array_store_f64(a, i0, m, buf);
        }
    } else {
        int64_t ilo = clamp_i64(ceil(lo)), ihi = clamp_i64(floor(hi));
        uint64_t span = (uint64_t)ihi - (uint64_t)ilo + 1; /* 0 = the whole 64-bit range */
        for (size_t i = 0; i < a->n; i++) {
            uint64_t r = splitmix(&state);
            array_set_i64(a, i, (int64_t)((uint64_t)ilo + (span ? r % span : r)));
        }
    }
    lua_settop(L, 1);
    return 1;
}

static int array_iota(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    double start = luaL_optnumber(L, 2, 0), step = luaL_optnumber(L, 3, 1);
    array_host_write(L, a, true);
    for (size_t i = 0; i < a->n; i++) array_set(a, i, start + (double)i * step);
    lua_settop(L, 1);
    return 1;
}

static int array_fill(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    luaL_checknumber(L, 2);
    array_host_write(L, a, true);
    if (a->n) {
        store_elem(L, a, 0, 2);
        size_t es = dtype_size(a->dtype);
        for (size_t i = 1; i < a->n; i++) memcpy((char *)a->host + i * es, a->host, es);
    }
    lua_settop(L, 1);
    return 1;
}

static int array_copy(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    const void *src = array_host_read(L, a);
    GpuArray *b = array_push_new(L, a->dtype, a->ndim, a->shape);
    memcpy(b->host, src, a->n * dtype_size(a->dtype));
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

static int array_to_table(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    array_host_read(L, a);
    lua_createtable(L, a->n < INT32_MAX ? (int)a->n : 0, 0);
    for (size_t i = 0; i < a->n; i++) {
        push_elem(L, a, i);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int array_named(lua_State *L) {
    GpuArray *a = array_check(L, 1);
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
    size_t bytes = a->n * dtype_size(a->dtype);
    void *p = NULL;
    Diag *d = c->backend->ops->host_alloc(c->backend, bytes, &p);
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
    memcpy(p, a->host, bytes);
    free(a->host);
    a->host = p;
    a->pinned = true;
}

static int gpu_array(lua_State *L) {
    DType dt = check_dtype(L, 1);
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
    GpuArray *a = array_push_new(L, dt, ndim, shape);
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
        s.value = v;
        s.arg = dt == DT_F32 ? kernel_arg_f32((float)v) : kernel_arg_f64(v);
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

static int scalar_tostring(lua_State *L) {
    GpuScalar *s = luaL_checkudata(L, 1, SCALAR_MT);
    lua_pushnumber(L, s->value);
    lua_pushfstring(L, "gpu.%s(%s)", dtype_name(s->dtype), lua_tostring(L, -1));
    return 1;
}

static int strict_index(lua_State *L) {
    const char *k = luaL_tolstring(L, 2, NULL);
    return sandbox_unknown_key_error(L, lua_tostring(L, lua_upvalueindex(1)), k, 1);
}

/* Makes reading an unknown key of the table on top an error ("gpu has no field 'arary'"). */
static void make_strict(lua_State *L, const char *what) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, what);
    lua_pushcclosure(L, strict_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
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
static int array_upload(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    int s = async_stream(L, a, 2, "upload");
    wait_pending(L, a);
    Backend *b = device_alloc(L, a, 1);
    size_t bytes = a->n * dtype_size(a->dtype);
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
    GpuArray *a = array_check(L, 1);
    int s = async_stream(L, a, 2, "download");
    wait_pending(L, a);
    if (!a->has_dev) luaL_error(L, "download: %s has never been on the device", array_name(L, a, 1));
    Backend *b = a->ctx->backend;
    size_t bytes = a->n * dtype_size(a->dtype);
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
    GpuArray *a = array_check(L, 1);
    lua_Integer v = luaL_checkinteger(L, 2);
    if (v < 0 || v > 255) luaL_error(L, "memset: the value is one byte (0..255), got %I", v);
    int s = async_stream(L, a, 3, "memset");
    wait_pending(L, a);
    Backend *b = device_alloc(L, a, 1);
    size_t bytes = a->n * dtype_size(a->dtype);
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
    {"memset", array_memset}, {NULL, NULL},
};

static const luaL_Reg gpu_funcs[] = {
    {"array", gpu_array}, {"i32", gpu_i32}, {"u32", gpu_u32}, {"i64", gpu_i64},
    {"u64", gpu_u64},     {"f32", gpu_f32}, {"f64", gpu_f64}, {"pinned", gpu_pinned},
    {NULL, NULL},
};

void api_install(Sandbox *sb) {
    lua_State *L = sandbox_lua(sb);
    luaL_newmetatable(L, ARRAY_MT);
    static const luaL_Reg meta[] = {
        {"__index", array_index}, {"__newindex", array_newindex}, {"__len", array_len},
        {"__gc", array_gc},       {"__tostring", array_tostring},
        {NULL, NULL},
    };
    luaL_setfuncs(L, meta, 0);
    luaL_newlib(L, array_methods);
    lua_setfield(L, -2, "methods");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    luaL_newmetatable(L, SCALAR_MT);
    lua_pushcfunction(L, scalar_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);

    luaL_newlib(L, gpu_funcs);
    stream_install(L);
    make_strict(L, "gpu has no field");
    sandbox_set_global(sb, "gpu");
    ref_push_module(L);
    make_strict(L, "ref has no function");
    sandbox_set_global(sb, "ref");
    prelude_push(L, "hostcheck");
    sandbox_set_global(sb, "hostcheck");
}
