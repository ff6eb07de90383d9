/* lua/gpu_array.h: the array underneath the `gpu` module, shared by its
 * Lua side (lua/gpu.c: methods, indexing, the gpu table) and its core
 * (lua/gpu_array.c: elements, allocation, the host copy and the device
 * buffer kept in step). Private to those two files: the rest of lua/ uses
 * the array through lua/api.h. */
#ifndef CUDOJO_LUA_GPU_ARRAY_H
#define CUDOJO_LUA_GPU_ARRAY_H

#include <assert.h>
#include <lauxlib.h>
#include <stdbool.h>

#include "lua/api.h"

#define ARRAY_MT "cudojo.array"
#define SCALAR_MT "cudojo.scalar"
#define ELEM_MT "cudojo.struct_elem"

/* Any array at idx (also of structs). */
#define any_array_check(L, idx) ((GpuArray *)luaL_checkudata((L), (idx), ARRAY_MT))

/* Element i of a numeric array's host copy. */
static inline const void *array_elem_ptr(const GpuArray *a, size_t i) {
    assert(a->host && i < a->n && !a->st);
    return (const char *)a->host + i * dtype_size(a->dtype);
}

static inline bool array_is_numeric(const GpuArray *a) { return !a->st; }

/* A view's host pointer: its parent's buffer from offset on. */
static inline void array_view_sync(GpuArray *v) {
    if (v->parent) v->host = v->parent->host ? (char *)v->parent->host + v->offset * array_elem_size(v) : NULL;
}

/* Pushes a new zero-filled array of the shape's elements of es bytes each,
 * within the exercise's allocation cap (user value 1: the struct type, 2:
 * a view's parent, both set by the caller). */
GpuArray *array_push_new_sized(lua_State *L, DType dt, size_t es, int ndim, const size_t *shape);
/* Frees a's own host buffer (not a view's) the way it was made: the
 * backend's host_free (pinned), its pool (pooled) or free; host = NULL. */
void array_host_free(GpuArray *a);
/* The array's __gc: frees the device buffer and (unless a view) the host copy. */
int array_gc(lua_State *L);
/* Waits for the stream of an async copy that may still use a's host buffer. */
void array_wait_pending(lua_State *L, GpuArray *a);
/* The device buffer, allocated (not uploaded) when there is none yet; the
 * backend it lives on. */
Backend *array_device_alloc(lua_State *L, GpuArray *a, int idx);

#endif
