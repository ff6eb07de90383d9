/* lua/gpu_array.c: the array underneath the `gpu` module (lua/gpu.c is
 * what Lua sees of it): elements read and written in their dtype, one at a
 * time or in typed runs; allocation within the exercise's cap and __gc; the
 * host copy and the device buffer kept in step (an upload before a launch
 * when the host copy changed, a download on the first host read after one,
 * a wait for an async copy still using the host buffer); a view's host
 * pointer and device allocation; an array's name from the script's locals.
 * It calls nothing in gpu.c. */
#include <assert.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "lua/api.h"
#include "kernels/host_pool.h"
#include "lua/gpu_array.h"
#include "lua/par.h"

/* ---- element access ----------------------------------------------------- */

double array_get(const GpuArray *a, size_t i) { return dtype_load(a->dtype, array_elem_ptr(a, i)); }
int64_t array_get_i64(const GpuArray *a, size_t i) { return dtype_load_i64(a->dtype, array_elem_ptr(a, i)); }
uint64_t array_get_u64(const GpuArray *a, size_t i) { return dtype_load_u64(a->dtype, array_elem_ptr(a, i)); }
void array_set_i64(GpuArray *a, size_t i, int64_t v) { dtype_store_i64(a->dtype, (void *)array_elem_ptr(a, i), v); }
void array_set(GpuArray *a, size_t i, double v) { dtype_store(a->dtype, (void *)array_elem_ptr(a, i), v); }

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
    default:
        for (size_t k = 0; k < n; k++) out[k] = array_get(a, i0 + k);
        break;
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
    case DT_U64: LOOP_T(uint64_t, p[k] = (uint64_t)in[k]); break;
    case DT_I8: LOOP_T(int8_t, p[k] = (int8_t)(uint8_t)in[k]); break;
    case DT_U8: LOOP_T(uint8_t, p[k] = (uint8_t)in[k]); break;
    case DT_I16: LOOP_T(int16_t, p[k] = (int16_t)(uint16_t)in[k]); break;
    case DT_U16: LOOP_T(uint16_t, p[k] = (uint16_t)in[k]); break;
    default:
        for (size_t k = 0; k < n; k++) array_set_i64(a, i0 + k, in[k]);
        break;
    }
}

void array_format_elem(const GpuArray *a, size_t i, char *buf, size_t n) {
    dtype_format(a->dtype, array_elem_ptr(a, i), buf, n);
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

GpuArray *array_check(lua_State *L, int idx) {
    GpuArray *a = luaL_checkudata(L, idx, ARRAY_MT);
    if (!array_is_numeric(a))
        luaL_error(L, "%s is an array of structs; this takes an array of numbers: one field of it is "
                      "%s:field(\"%s\")", array_name(L, a, idx), array_name(L, a, idx), a->st->f[0].name);
    return a;
}

GpuScalar *scalar_test(lua_State *L, int idx) { return luaL_testudata(L, idx, SCALAR_MT); }

/* A zero-filled host buffer of `bytes`: a big one from the backend's pool
 * (*pooled; a reused buffer still holds its last run's data, cleared here
 * on every core: far cheaper than the page faults of fresh memory), else
 * calloc's. NULL when out of memory. */
static void *host_buffer_new(ApiCtx *c, size_t bytes, bool *pooled) {
    *pooled = false;
    Backend *b = c ? c->backend : NULL;
    if (b && b->ops->host_buffer_take && bytes >= HOST_POOL_MIN_BYTES) {
        bool zeroed = false;
        void *p = b->ops->host_buffer_take(b, bytes, &zeroed);
        if (p) {
            if (!zeroed) par_memset(p, 0, bytes);
            *pooled = true;
            return p;
        }
    }
    return calloc(bytes ? bytes : 1, 1);
}

void array_host_free(GpuArray *a) {
    Backend *b = a->ctx ? a->ctx->backend : NULL;
    if (a->pinned && b && b->ops->host_free) b->ops->host_free(b, a->host);
    else if (a->pooled && b) b->ops->host_buffer_give(b, a->host);
    else free(a->host);
    a->host = NULL;
    a->pinned = a->pooled = false;
}

GpuArray *array_push_new_sized(lua_State *L, DType dt, size_t es, int ndim, const size_t *shape) {
    ApiCtx *c = api_ctx(L);
    size_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] && n > SIZE_MAX / shape[i]) luaL_error(L, "gpu.array: size overflows");
        n *= shape[i];
    }
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
    GpuArray *a = lua_newuserdatauv(L, sizeof *a, 2);
    memset(a, 0, sizeof *a);
    a->dtype = dt;
    a->ndim = ndim;
    for (int i = 0; i < ndim; i++) a->shape[i] = shape[i];
    luaL_setmetatable(L, ARRAY_MT);
    /* The userdata owns the buffer from here on: __gc frees it even if a
     * later call raises an error. */
    a->host = host_buffer_new(c, n * es, &a->pooled);
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

GpuArray *array_push_new(lua_State *L, DType dt, int ndim, const size_t *shape) {
    assert(dt != DT_STRUCT);
    return array_push_new_sized(L, dt, dtype_size(dt), ndim, shape);
}

int array_gc(lua_State *L) {
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
    if (a->parent) {          /* the parent owns the host buffer */
        a->host = NULL;
        a->parent = NULL;
        XFREE(a->name);
        return 0;
    }
    if (a->ctx && a->host) {
        assert(a->ctx->array_bytes >= array_bytes(a));   /* the cap's accounting */
        a->ctx->array_bytes -= array_bytes(a);
    }
    array_host_free(a);
    XFREE(a->name);
    return 0;
}

void array_wait_pending(lua_State *L, GpuArray *a) {
    if (!a->pending) return;
    a->pending = false;
    Backend *b = a->ctx->backend;
    Diag *d = b->ops->stream_synchronize(b, a->pending_stream);
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
}

void array_mark_launched(GpuArray *a) { (a->parent ? a->parent : a)->dev_dirty = true; }

const void *array_host_read(lua_State *L, GpuArray *a) {
    if (a->parent) {
        array_host_read(L, a->parent);
        array_view_sync(a);
        return a->host;
    }
    array_wait_pending(L, a);
    if (a->dev_dirty && a->has_dev) {
        Backend *b = a->ctx->backend;
        ApiPhase was = api_phase(a->ctx, PHASE_DOWNLOAD);
        Diag *d = a->n ? b->ops->copy_to_host(b, a->host, a->dev, array_bytes(a)) : NULL;
        api_phase(a->ctx, was);
        a->ctx->download_bytes += (double)array_bytes(a);
        if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
    }
    a->dev_dirty = false;
    return a->host;
}

void *array_host_write(lua_State *L, GpuArray *a, bool whole) {
    if (a->parent) {
        array_host_write(L, a->parent, false);   /* the rest of the parent keeps its values */
        array_view_sync(a);
        return a->host;
    }
    array_wait_pending(L, a);
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

Backend *array_device_alloc(lua_State *L, GpuArray *a, int idx) {
    ApiCtx *c = a->ctx;
    if (!c || !c->backend) luaL_error(L, "arrays can only go to the device inside run(t)");
    Backend *b = c->backend;
    if (!a->has_dev) {
        const char *label = array_name(L, a, idx);
        Diag *d = b->ops->mem_alloc(b, array_bytes(a), label, array_elem_size(a), &a->dev);
        if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
        a->has_dev = true;
        a->host_dirty = !a->uninit;
        if (a->uninit && b->ops->mem_track_init && a->n) {
            d = b->ops->mem_track_init(b, a->dev, array_bytes(a), false);
            if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
        }
    }
    return b;
}

/* A view on the device: its parent's buffer (uploaded as needed) from
 * offset on; on a backend that checks bounds, an allocation of its own over
 * that memory, made once. */
static DevPtr view_device(lua_State *L, GpuArray *v, int idx) {
    int pidx = 0;
    if (idx) {
        lua_getiuservalue(L, idx, 2);
        pidx = lua_gettop(L);
    }
    DevPtr base = array_device(L, v->parent, pidx);
    if (pidx) lua_pop(L, 1);
    Backend *b = v->ctx->backend;
    size_t es = array_elem_size(v);
    if (!b->ops->mem_view) return base + v->offset * es;
    if (!v->has_dev) {
        Diag *d = b->ops->mem_view(b, base, v->offset * es, v->n * es, array_name(L, v, idx), es, &v->dev);
        if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
        v->has_dev = true;
    }
    return v->dev;
}

DevPtr array_device(lua_State *L, GpuArray *a, int idx) {
    if (idx) idx = lua_absindex(L, idx);
    if (a->parent) return view_device(L, a, idx);
    Backend *b = array_device_alloc(L, a, idx);
    size_t bytes = array_bytes(a);
    if (a->host_dirty) {
        ApiPhase was = api_phase(a->ctx, PHASE_UPLOAD);
        Diag *d = bytes ? b->ops->copy_to_device(b, a->dev, a->host, bytes) : NULL;
        api_phase(a->ctx, was);
        a->ctx->upload_bytes += (double)bytes;
        if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
        a->host_dirty = false;
    }
    return a->dev;
}
