/* lua/api.h: what the pieces of the exercise API share inside lua/.
 *
 * gpu.c owns typed arrays (a host copy plus a lazily allocated device
 * buffer) and scalar kernel arguments; ref.c the C references; check.c the
 * comparisons behind t:expect_*; exercise_run.c the `t` object, kernels and
 * launches. Not for use outside lua/. */
#ifndef CUDOJO_LUA_API_H
#define CUDOJO_LUA_API_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/result.h"
#include "kernels/backend.h"
#include "lua/sandbox.h"

typedef enum DType {
    DT_F32 = 0, DT_F64, DT_I32, DT_U32, DT_I64, DT_U64, DT_I8, DT_U8, DT_I16, DT_U16,
    DT_COUNT
} DType;

size_t dtype_size(DType t);
const char *dtype_name(DType t);
bool dtype_parse(const char *s, DType *out);
bool dtype_is_float(DType t);
bool dtype_is_signed(DType t);

/* Run state the arrays need; the run context (exercise_run.c) starts with
 * one, set as the sandbox's user pointer. NULL user = host-only arrays. */
typedef struct ApiCtx {
    Backend *backend;            /* NULL: no device (course loading, tests of refs) */
    size_t array_bytes;          /* host bytes held by live arrays */
    size_t array_cap;            /* 0 = ARRAY_DEFAULT_CAP */
    size_t since_gc;             /* array bytes allocated since the last full collection */
    int n_arrays;                /* numbering for "array#N" */
    Diag *abort_diags;           /* why the run was aborted (device error...) */
    Verdict abort_verdict;
    bool aborted;
    uint64_t seed_salt;          /* 0: a learner's run; else a grading run's seed, mixed into every data seed */
} ApiCtx;

/* The seed a script's `seed` becomes: itself in a learner's run, a mix of
 * it and the grading seed in a grading run (so a cached answer fails). */
uint64_t api_seed(const ApiCtx *ctx, uint64_t seed);

#define ARRAY_DEFAULT_CAP ((size_t)4 << 30)
#define ARRAY_MAX_DIMS 3

typedef struct GpuArray {
    DType dtype;
    size_t n;                    /* elements */
    int ndim;
    size_t shape[ARRAY_MAX_DIMS];
    void *host;                  /* malloc'ed, freed by __gc */
    char *name;                  /* NULL until known; malloc'ed */
    int number;                  /* N of "array#N" */
    ApiCtx *ctx;
    DevPtr dev;
    bool has_dev;
    bool host_dirty;             /* host changed since the last upload */
    bool dev_dirty;              /* a launch may have changed the device copy */
    bool pinned;                 /* host buffer from the backend's host_alloc (page-locked) */
    bool pending;                /* an async copy on pending_stream may still use the host buffer */
    int pending_stream;
    bool uninit;                 /* {init = false}: the device copy starts holding nothing (not uploaded;
                                  * the emulator reports a kernel's read of it) until the script writes */
} GpuArray;

typedef struct GpuScalar {
    DType dtype;
    KernelArg arg;
    double value;
} GpuScalar;

/* Installs the gpu and ref globals into a sandbox. */
void api_install(Sandbox *sb);
/* Pushes the prelude table named `global` ("hostcheck":
 * lua/prelude/hostcheck.lua; loaded on first use); false when there is no
 * such prelude (nothing pushed). */
bool prelude_push(lua_State *L, const char *global);
ApiCtx *api_ctx(lua_State *L);   /* NULL when host-only */
/* `name` (an array's, a kernel's, a stream's) when it is at most
 * API_NAME_MAX bytes, else an error naming `what`: names reach messages,
 * emulator findings and the progress database. */
#define API_NAME_MAX 200
const char *api_check_name(lua_State *L, const char *name, const char *what);

/* Records why the run stops (the Diag chain is taken) and unwinds Lua. */
int api_abort(lua_State *L, Verdict v, Diag *why) __attribute__((noreturn));

GpuArray *array_test(lua_State *L, int idx);
GpuArray *array_check(lua_State *L, int idx);
/* Pushes a new zero-filled array; raises a Lua error past the size cap. */
GpuArray *array_push_new(lua_State *L, DType dt, int ndim, const size_t *shape);
/* Host data, downloaded first when a launch may have changed it. */
const void *array_host_read(lua_State *L, GpuArray *a);
/* Host data for writing; `whole` = every element will be overwritten. */
void *array_host_write(lua_State *L, GpuArray *a, bool whole);
/* The device buffer, allocated and uploaded as needed (label = name). */
DevPtr array_device(lua_State *L, GpuArray *a, int idx);
/* The name for messages: its own, a local of the calling Lua code holding
 * the array at stack index idx, else "array#N". */
const char *array_name(lua_State *L, GpuArray *a, int idx);

double array_get(const GpuArray *a, size_t i);
void array_set(GpuArray *a, size_t i, double v);
int64_t array_get_i64(const GpuArray *a, size_t i);
uint64_t array_get_u64(const GpuArray *a, size_t i);
void array_set_i64(GpuArray *a, size_t i, int64_t v);
/* Bulk conversions of elements [i0, i0+n) (the switch on dtype is hoisted
 * out of the loop: the hot paths of ref.c and the generators use these). */
#define ARRAY_CHUNK 2048
void array_load_f64(const GpuArray *a, size_t i0, size_t n, double *out);
void array_store_f64(GpuArray *a, size_t i0, size_t n, const double *in);
void array_load_i64(const GpuArray *a, size_t i0, size_t n, int64_t *out);
void array_store_i64(GpuArray *a, size_t i0, size_t n, const int64_t *in);
/* "%.9g" for f32, "%.17g" f64, integers exactly. */
void array_format_elem(const GpuArray *a, size_t i, char *buf, size_t n);
/* "[i]", "[r][c]" or "[i][j][k]". */
void array_format_index(const GpuArray *a, size_t i, char *buf, size_t n);

GpuScalar *scalar_test(lua_State *L, int idx);

/* stream.c: streams and events. Registers their metatables and adds
 * gpu.stream and gpu.default_stream to the (gpu) table on top. */
void stream_install(lua_State *L);
/* The id of the stream object at idx (0 = the legacy default stream). */
int stream_check_id(lua_State *L, int idx);
/* The `stream` field of the options table at idx: its id, -1 when absent. */
int stream_opt(lua_State *L, int idx);

/* ref.c: pushes the ref table. */
void ref_push_module(lua_State *L);

/* check.c: comparisons; each adds one CheckResult to r and says if it passed.
 * got/want data must be host-synced by the caller. */
typedef struct CheckOpts {
    bool close;                  /* expect_close (else expect_equal) */
    double rel, abs;
    const char *name;            /* the check's name in messages */
} CheckOpts;

#define CHECK_MAX_MISMATCHES 8

bool check_arrays(RunResult *r, const GpuArray *got, const GpuArray *want, const CheckOpts *o);
/* got compared against one value for every element. */
bool check_array_scalar(RunResult *r, const GpuArray *got, double want, const CheckOpts *o);
bool check_scalars(RunResult *r, double got, double want, const CheckOpts *o);

#endif
