/* lua/ref.c: the `ref` module: CPU references in C, fast enough for the
 * realistic sizes exercises use (a million elements, 1024² matrices), so
 * checking never takes longer than the kernel's own run.
 *
 * Every function returns a new host array (or a number) and leaves its
 * inputs alone. Floating-point results are accumulated in double and
 * rounded once to the result's dtype; integers wrap like the GPU's. Any
 * temporary buffer is malloc'ed only after every argument was checked and
 * freed before the next call that could raise a Lua error. */
#include <assert.h>
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "lua/api.h"

static const void *rd(lua_State *L, GpuArray *a) { return array_host_read(L, a); }

static void check_same_len(lua_State *L, const char *fn, GpuArray *a, GpuArray *b) {
    if (a->n != b->n)
        luaL_error(L, "ref.%s: the arrays differ in length (%I and %I elements)", fn, (lua_Integer)a->n,
                   (lua_Integer)b->n);
}

/* A new array shaped like `a`, of dtype dt. */
static GpuArray *new_like(lua_State *L, const GpuArray *a, DType dt) {
    return array_push_new(L, dt, a->ndim, a->shape);
}

/* Chunked loops: convert ARRAY_CHUNK elements at a time into stack
 * buffers, so the per-element work is a tight loop over doubles. */
#define FOR_CHUNKS(n, i0, m) \
    for (size_t i0 = 0, m = 0; m = ((n) - i0 < ARRAY_CHUNK ? (n) - i0 : ARRAY_CHUNK), i0 < (n); i0 += m)

/* Stores v computed in double (floats) or exactly (integers). */
static void put(GpuArray *r, size_t i, double v, int64_t iv) {
    if (dtype_is_float(r->dtype)) array_set(r, i, v);
    else array_set_i64(r, i, iv);
}

/* Stores doubles; integer dtypes get the nearest integer. */
static void store_rounded(GpuArray *r, size_t i0, size_t m, double *v) {
    if (!dtype_is_float(r->dtype))
        for (size_t k = 0; k < m; k++) v[k] = nearbyint(v[k]);
    array_store_f64(r, i0, m, v);
}

static int ref_add(lua_State *L) {
    GpuArray *a = array_check(L, 1), *b = array_check(L, 2);
    check_same_len(L, "add", a, b);
    rd(L, a);
    rd(L, b);
    GpuArray *r = new_like(L, a, a->dtype);
    if (dtype_is_float(a->dtype)) {
        double x[ARRAY_CHUNK], y[ARRAY_CHUNK];
        FOR_CHUNKS(a->n, i0, m) {
            array_load_f64(a, i0, m, x);
            array_load_f64(b, i0, m, y);
            for (size_t k = 0; k < m; k++) x[k] += y[k];
            array_store_f64(r, i0, m, x);
        }
    } else {
        int64_t x[ARRAY_CHUNK], y[ARRAY_CHUNK];
        FOR_CHUNKS(a->n, i0, m) {
            array_load_i64(a, i0, m, x);
            array_load_i64(b, i0, m, y);
            for (size_t k = 0; k < m; k++) x[k] = (int64_t)((uint64_t)x[k] + (uint64_t)y[k]);
            array_store_i64(r, i0, m, x);
        }
    }
    return 1;
}

static int ref_axpy(lua_State *L) {
    double alpha = luaL_checknumber(L, 1);
    GpuArray *x = array_check(L, 2), *y = array_check(L, 3);
    check_same_len(L, "axpy", x, y);
    rd(L, x);
    rd(L, y);
    GpuArray *r = new_like(L, y, y->dtype);
    double xb[ARRAY_CHUNK], yb[ARRAY_CHUNK];
    FOR_CHUNKS(x->n, i0, m) {
        array_load_f64(x, i0, m, xb);
        array_load_f64(y, i0, m, yb);
        for (size_t k = 0; k < m; k++) yb[k] += alpha * xb[k];
        store_rounded(r, i0, m, yb);
    }
    return 1;
}

static int ref_scale(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    double s = luaL_checknumber(L, 2);
    rd(L, a);
    GpuArray *r = new_like(L, a, a->dtype);
    double b[ARRAY_CHUNK];
    FOR_CHUNKS(a->n, i0, m) {
        array_load_f64(a, i0, m, b);
        for (size_t k = 0; k < m; k++) b[k] *= s;
        store_rounded(r, i0, m, b);
    }
    return 1;
}

static int ref_sum(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    rd(L, a);
    if (!dtype_is_float(a->dtype)) {
        uint64_t s = 0;
        int64_t b[ARRAY_CHUNK];
        FOR_CHUNKS(a->n, i0, m) {
            array_load_i64(a, i0, m, b);
            for (size_t k = 0; k < m; k++) s += (uint64_t)b[k];
        }
        lua_pushinteger(L, (lua_Integer)s);
        return 1;
    }
    /* Kahan–Babuška summation in double: exact enough to judge any float kernel. */
    double s = 0, c = 0, b[ARRAY_CHUNK];
    FOR_CHUNKS(a->n, i0, m) {
        array_load_f64(a, i0, m, b);
        for (size_t k = 0; k < m; k++) {
            double v = b[k], t = s + v;
            c += fabs(s) >= fabs(v) ? (s - t) + v : (v - t) + s;
            s = t;
        }
    }
    lua_pushnumber(L, s + c);
    return 1;
}

static int ref_dot(lua_State *L) {
    GpuArray *a = array_check(L, 1), *b = array_check(L, 2);
    check_same_len(L, "dot", a, b);
    rd(L, a);
    rd(L, b);
    double s = 0, c = 0, x[ARRAY_CHUNK], y[ARRAY_CHUNK];
    FOR_CHUNKS(a->n, i0, m) {
        array_load_f64(a, i0, m, x);
        array_load_f64(b, i0, m, y);
        for (size_t k = 0; k < m; k++) {
            double v = x[k] * y[k], t = s + v;
            c += fabs(s) >= fabs(v) ? (s - t) + v : (v - t) + s;
            s = t;
        }
    }
    lua_pushnumber(L, s + c);
    return 1;
}

static size_t opt_dim(lua_State *L, int idx, size_t def, const char *what) {
    if (lua_isnoneornil(L, idx)) return def;
    lua_Integer v = luaL_checkinteger(L, idx);
    if (v < 0) luaL_error(L, "%s must not be negative", what);
    return (size_t)v;
}

/* C = A·B, row-major, A M×K, B K×N; i-k-j order keeps B's rows streaming. */
static int ref_matmul(lua_State *L) {
    GpuArray *A = array_check(L, 1), *B = array_check(L, 2);
    size_t M = opt_dim(L, 3, A->ndim == 2 ? A->shape[0] : 0, "M");
    size_t N = opt_dim(L, 4, B->ndim == 2 ? B->shape[1] : 0, "N");
    size_t K = opt_dim(L, 5, A->ndim == 2 ? A->shape[1] : 0, "K");
    if (M * K != A->n || K * N != B->n)
        return luaL_error(L, "ref.matmul: A has %I elements and B %I, but M=%I N=%I K=%I needs M*K and K*N",
                          (lua_Integer)A->n, (lua_Integer)B->n, (lua_Integer)M, (lua_Integer)N, (lua_Integer)K);
    rd(L, A);
    rd(L, B);
    size_t shape[2] = {M, N};
    GpuArray *C = array_push_new(L, A->dtype, 2, shape);
    size_t kn = K * N > 0 ? K * N : 1;
    double *bd = malloc(kn * sizeof *bd);
    double *acc = malloc((N ? N : 1) * sizeof *acc);
    if (!bd || !acc) {
        free(bd);
        free(acc);
        return luaL_error(L, "ref.matmul: out of memory");
    }
    array_load_f64(B, 0, K * N, bd);
    for (size_t i = 0; i < M; i++) {
        memset(acc, 0, N * sizeof *acc);
        for (size_t k = 0; k < K; k++) {
            double a = array_get(A, i * K + k);
            const double *brow = bd + k * N;
            for (size_t j = 0; j < N; j++) acc[j] += a * brow[j];
        }
        store_rounded(C, i * N, N, acc);
    }
    free(bd);
    free(acc);
    return 1;
}

static int ref_transpose(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    size_t rows = opt_dim(L, 2, a->ndim == 2 ? a->shape[0] : 0, "rows");
    size_t cols = opt_dim(L, 3, a->ndim == 2 ? a->shape[1] : 0, "cols");
    if (rows * cols != a->n)
        return luaL_error(L, "ref.transpose: %I elements are not %I rows × %I cols", (lua_Integer)a->n,
                          (lua_Integer)rows, (lua_Integer)cols);
    const char *src = rd(L, a);
    size_t shape[2] = {cols, rows};
    GpuArray *r = array_push_new(L, a->dtype, 2, shape);
    size_t es = dtype_size(a->dtype);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) memcpy((char *)r->host + (j * rows + i) * es, src + (i * cols + j) * es, es);
    return 1;
}

static int ref_histogram(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    lua_Integer bins = luaL_checkinteger(L, 2);
    if (bins <= 0) return luaL_error(L, "ref.histogram: bins must be positive");
    double lo = luaL_optnumber(L, 3, 0), hi = luaL_optnumber(L, 4, (double)bins);
    if (!(hi > lo)) return luaL_error(L, "ref.histogram: hi must be above lo");
    rd(L, a);
    size_t shape[1] = {(size_t)bins};
    GpuArray *r = array_push_new(L, DT_U32, 1, shape);
    uint32_t *h = r->host;
    for (size_t i = 0; i < a->n; i++) {
        double x = array_get(a, i);
        if (!(x >= lo && x < hi)) continue;
        /* (x-lo)*bins/(hi-lo), not (x-lo)/(hi-lo)*bins: exact for integer data. */
        double b = floor((x - lo) * (double)bins / (hi - lo));
        if (b >= 0 && b < (double)bins) h[(size_t)b]++;
    }
    return 1;
}

static int ref_scan(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    bool inclusive = true;
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "inclusive");
        if (!lua_isnil(L, -1)) inclusive = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, 2, "exclusive");
        if (lua_toboolean(L, -1)) inclusive = false;
        lua_pop(L, 1);
    }
    rd(L, a);
    GpuArray *r = new_like(L, a, a->dtype);
    double s = 0;
    uint64_t is = 0;
    for (size_t i = 0; i < a->n; i++) {
        double v = array_get(a, i);
        uint64_t iv = (uint64_t)array_get_i64(a, i);
        if (inclusive) {
            s += v;
            is += iv;
        }
        put(r, i, s, (int64_t)is);
        if (!inclusive) {
            s += v;
            is += iv;
        }
    }
    return 1;
}

/* qsort comparators per dtype; NaNs sort last. */
#define CMP_FN(name, T)                                                   \
    static int name(const void *pa, const void *pb) {                    \
        T x = *(const T *)pa, y = *(const T *)pb;                        \
        if (x != x) return y != y ? 0 : 1;                               \
        if (y != y) return -1;                                           \
        return (x > y) - (x < y);                                        \
    }
CMP_FN(cmp_f32, float)
CMP_FN(cmp_f64, double)
CMP_FN(cmp_i32, int32_t)
CMP_FN(cmp_u32, uint32_t)
CMP_FN(cmp_i64, int64_t)
CMP_FN(cmp_u64, uint64_t)
CMP_FN(cmp_i8, int8_t)
CMP_FN(cmp_u8, uint8_t)
CMP_FN(cmp_i16, int16_t)
CMP_FN(cmp_u16, uint16_t)

/* f16 and bf16 (stored as bits) by value. */
#define CMP_HALF(name, decode)                                            \
    static int name(const void *pa, const void *pb) {                    \
        double x = decode(*(const uint16_t *)pa), y = decode(*(const uint16_t *)pb); \
        if (x != x) return y != y ? 0 : 1;                               \
        if (y != y) return -1;                                           \
        return (x > y) - (x < y);                                        \
    }
CMP_HALF(cmp_f16, f16_to_double)
CMP_HALF(cmp_bf16, bf16_to_double)

static int ref_sort(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    const void *src = rd(L, a);
    GpuArray *r = new_like(L, a, a->dtype);
    memcpy(r->host, src, a->n * dtype_size(a->dtype));
    static int (*const cmps[DT_COUNT])(const void *, const void *) = {
        [DT_F32] = cmp_f32, [DT_F64] = cmp_f64, [DT_I32] = cmp_i32, [DT_U32] = cmp_u32, [DT_I64] = cmp_i64,
        [DT_U64] = cmp_u64, [DT_I8] = cmp_i8,   [DT_U8] = cmp_u8,   [DT_I16] = cmp_i16, [DT_U16] = cmp_u16,
        [DT_F16] = cmp_f16, [DT_BF16] = cmp_bf16,
    };
    assert(cmps[r->dtype]);
    qsort(r->host, r->n, dtype_size(r->dtype), cmps[r->dtype]);
    return 1;
}

/* ref.map(a, function(x, i) ... end [, dtype]): plain Lua for anything else. */
static int ref_map(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    DType dt = a->dtype;
    if (!lua_isnoneornil(L, 3) && !dtype_parse(luaL_checkstring(L, 3), &dt))
        return luaL_argerror(L, 3, "unknown dtype");
    rd(L, a);
    GpuArray *r = new_like(L, a, dt);
    int ri = lua_gettop(L);
    for (size_t i = 0; i < a->n; i++) {
        lua_pushvalue(L, 2);
        if (dtype_is_float(a->dtype)) lua_pushnumber(L, array_get(a, i));
        else lua_pushinteger(L, array_get_i64(a, i));
        lua_pushinteger(L, (lua_Integer)i);
        lua_call(L, 2, 1);
        int ok = 0;
        if (dtype_is_float(dt)) {
            double v = lua_tonumberx(L, -1, &ok);
            if (!ok) return luaL_error(L, "ref.map: the function returned %s for element %I, not a number",
                                       luaL_typename(L, -1), (lua_Integer)i);
            array_set(r, i, v);
        } else {
            lua_Integer v = lua_tointegerx(L, -1, &ok);
            if (!ok) return luaL_error(L, "ref.map: the function returned %s for element %I, but the result is %s (integers)",
                                       luaL_tolstring(L, -1, NULL), (lua_Integer)i, dtype_name(dt));
            array_set_i64(r, i, v);
        }
        lua_settop(L, ri);
    }
    return 1;
}

/* One sum per block of `block` consecutive elements (the last may be short). */
static int ref_block_sums(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    lua_Integer block = luaL_checkinteger(L, 2);
    if (block <= 0) return luaL_error(L, "ref.block_sums: block must be positive");
    rd(L, a);
    size_t nb = (a->n + (size_t)block - 1) / (size_t)block;
    GpuArray *r = array_push_new(L, a->dtype, 1, &nb);
    for (size_t b = 0; b < nb; b++) {
        double s = 0;
        uint64_t is = 0;
        for (size_t i = b * (size_t)block; i < a->n && i < (b + 1) * (size_t)block; i++) {
            s += array_get(a, i);
            is += (uint64_t)array_get_i64(a, i);
        }
        put(r, b, s, (int64_t)is);
    }
    return 1;
}

static int ref_minmax(lua_State *L, bool want_max) {
    GpuArray *a = array_check(L, 1);
    if (a->n == 0) return luaL_error(L, "ref.%s of an empty array", want_max ? "max" : "min");
    rd(L, a);
    size_t best = 0;
    for (size_t i = 1; i < a->n; i++) {
        double v = array_get(a, i), b = array_get(a, best);
        if (want_max ? v > b : v < b) best = i;
    }
    if (dtype_is_float(a->dtype)) lua_pushnumber(L, array_get(a, best));
    else lua_pushinteger(L, array_get_i64(a, best));
    return 1;
}

static int ref_max(lua_State *L) { return ref_minmax(L, true); }
static int ref_min(lua_State *L) { return ref_minmax(L, false); }

void ref_push_module(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"add", ref_add},         {"axpy", ref_axpy},   {"scale", ref_scale},
        {"sum", ref_sum},         {"dot", ref_dot},     {"matmul", ref_matmul},
        {"transpose", ref_transpose}, {"histogram", ref_histogram}, {"scan", ref_scan},
        {"sort", ref_sort},       {"map", ref_map},     {"block_sums", ref_block_sums},
        {"max", ref_max},         {"min", ref_min},     {NULL, NULL},
    };
    luaL_newlib(L, fns);
}
