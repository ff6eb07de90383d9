/* lua/api.h: what the pieces of the exercise API share inside lua/.
 *
 * api.c owns the run's context as the API sees it (api_ctx, api_abort) and
 * api_install.c puts the modules into a sandbox; dtype.c owns the element
 * types; gpu.c typed arrays (a host copy plus a lazily allocated device
 * buffer, views, arrays of structs) and scalar kernel arguments;
 * gpu_struct.c struct layouts; gpu_math.c the numeric helpers; ref.c the C
 * references; stream.c streams and events; check.c the comparisons behind
 * t:expect_*; exercise_run.c the `t` object, kernels and launches. Calls go
 * one way: api_install.c -> gpu.c, stream.c, ref.c, gpu_math.c -> dtype.c,
 * api.c. Not for use outside lua/. */
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
    DT_F16, DT_BF16,             /* IEEE binary16 (__half) and bfloat16 (__nv_bfloat16), stored as bits */
    DT_STRUCT,                   /* an array of structs (GpuArray.st); never a field's type */
    DT_COUNT
} DType;

/* dtype.c. dtype_size of DT_STRUCT is an error (array_elem_size knows). */
size_t dtype_size(DType t);
const char *dtype_name(DType t);
bool dtype_parse(const char *s, DType *out);   /* the numeric types only */
bool dtype_is_float(DType t);
bool dtype_is_signed(DType t);
/* Round to nearest, ties to even, once from the double (NaN, infinities,
 * subnormals, overflow to infinity as IEEE 754 says). */
uint16_t f16_from_double(double x);
double f16_to_double(uint16_t h);
uint16_t bf16_from_double(double x);
double bf16_to_double(uint16_t h);
double dtype_round(DType t, double v);         /* v as the float type t holds it (integers: v) */
double dtype_next_below(DType t, double x);    /* float types: the next value of t below x */
int64_t clamp_i64(double v);                   /* NaN -> 0, out of range -> the nearest end */
/* One element of type t at p (any alignment). */
double dtype_load(DType t, const void *p);
int64_t dtype_load_i64(DType t, const void *p);
uint64_t dtype_load_u64(DType t, const void *p);
void dtype_store(DType t, void *p, double v);
void dtype_store_i64(DType t, void *p, int64_t v);
/* "%.9g" for f32, "%.17g" f64, "%.5g" f16, "%.4g" bf16 (each enough to
 * tell two values apart), integers exactly. */
void dtype_format(DType t, const void *p, char *buf, size_t n);

/* gpu_struct.c: a C struct's layout, fields in the order given, each at
 * the next multiple of its size, the whole padded to its widest field. */
#define STRUCT_MAX_FIELDS 64
#define STRUCT_NAME_MAX 63
typedef struct StructField {
    char name[STRUCT_NAME_MAX + 1];
    DType type;
    size_t offset;
} StructField;

typedef struct StructType {
    int n;
    size_t size, align;
    StructField f[STRUCT_MAX_FIELDS];
} StructType;

/* The struct type at idx: a gpu.struct{} object or a table in its form
 * ({ {"x", "f32"}, ... }); the returned one lives as long as the value
 * at the top of the stack, which this pushes (a gpu.struct object). */
const StructType *struct_check(lua_State *L, int idx);
int struct_field_find(const StructType *st, const char *name);   /* -1 when none */
/* Raises "struct has no field 'k' (did you mean 'x'?)". */
int struct_unknown_field(lua_State *L, const StructType *st, const char *k);
/* Registers the struct type's metatable and adds gpu.struct to the table on top. */
void struct_install(lua_State *L);

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
    /* t:emu_options (emu_options.c), for t:program's emulator runtime too: */
    bool emu_set;                /* the run chose its emulator options: emu */
    EmuOptions emu;
    int emu_devices;             /* t:program's default devices; 0 = 1 */
    /* Where the run's time goes (metrics.phases, api_phase): */
    int phase;                   /* the ApiPhase now running */
    double phase_t0;             /* when it began (monotonic ms); 0 = not counting */
    double phase_ms[16];         /* ms per ApiPhase so far */
    double upload_bytes, download_bytes;
    int ref_cache_hits;          /* costly ref.* answers read from the cache (lua/ref_cache.h) */
    int ref_cache_misses;        /* ... and computed and stored, for the next run to find */
} ApiCtx;

/* The phases of a run, for metrics.phases (`make bench` prints them per
 * exercise). Each API call that does one says so with api_phase; the time
 * between two switches goes to the phase switched from. */
typedef enum ApiPhase {
    PHASE_SCRIPT = 0,            /* the exercise's own Lua (and what no call claims) */
    PHASE_COMPILE,               /* NVRTC or nvcc, or their caches */
    PHASE_GENERATE,              /* input data: random, iota, fill, set, copy */
    PHASE_UPLOAD,                /* host -> device copies */
    PHASE_LAUNCH,                /* k:launch (on the emulator: the emulator's own time) */
    PHASE_TIMING,                /* k:time: the checked launch and the timed repetitions */
    PHASE_REFERENCE,             /* ref.* (CPU references) */
    PHASE_CHECK,                 /* t:expect_equal / expect_close */
    PHASE_DOWNLOAD,              /* device -> host copies */
    PHASE_PROGRAM,               /* t:program: the child process (and its emulator) */
    PHASE_COUNT
} ApiPhase;

/* Switches the run's phase to p and returns the one it was in (to switch
 * back to). A NULL ctx (host-only arrays) does nothing. */
ApiPhase api_phase(ApiCtx *ctx, ApiPhase p);
/* Makes each C function named in `names` (NULL-terminated; NULL = every C
 * function) of the table at `table` run in phase p. */
void api_wrap_phase(lua_State *L, int table, const char *const *names, ApiPhase p);
/* "script", "compile", ... (the metrics' names, without "_ms"). */
const char *api_phase_name(ApiPhase p);
/* Monotonic milliseconds. */
double api_now_ms(void);

/* The seed a script's `seed` becomes: itself in a learner's run, a mix of
 * it and the grading seed in a grading run (so a cached answer fails). */
uint64_t api_seed(const ApiCtx *ctx, uint64_t seed);

#define ARRAY_DEFAULT_CAP ((size_t)4 << 30)
#define ARRAY_MAX_DIMS 3

typedef struct GpuArray {
    DType dtype;                 /* DT_STRUCT: st says what an element is */
    const StructType *st;        /* arrays of structs: the layout (the userdata's user value 1 keeps it) */
    struct GpuArray *parent;     /* a view (a:view): the array it looks into (user value 2 keeps it);
                                  * host is then parent's host + offset elements, set on each access */
    size_t offset;               /* a view's first element in parent */
    size_t n;                    /* elements */
    int ndim;
    size_t shape[ARRAY_MAX_DIMS];
    void *host;                  /* malloc'ed (or from the backend: pinned, pooled), freed by __gc */
    char *name;                  /* NULL until known; malloc'ed */
    int number;                  /* N of "array#N" */
    ApiCtx *ctx;
    DevPtr dev;
    bool has_dev;
    bool host_dirty;             /* host changed since the last upload */
    bool dev_dirty;              /* a launch may have changed the device copy */
    bool pinned;                 /* host buffer from the backend's host_alloc (page-locked) */
    bool pooled;                 /* host buffer from the backend's host_buffer_take (its pool of big
                                  * buffers, reused run after run): __gc gives it back */
    bool pending;                /* an async copy on pending_stream may still use the host buffer */
    int pending_stream;
    bool uninit;                 /* {init = false}: the device copy starts holding nothing (not uploaded;
                                  * the emulator reports a kernel's read of it) until the script writes */
} GpuArray;

static inline size_t array_elem_size(const GpuArray *a) { return a->st ? a->st->size : dtype_size(a->dtype); }
static inline size_t array_bytes(const GpuArray *a) { return a->n * array_elem_size(a); }

typedef struct GpuScalar {
    DType dtype;
    KernelArg arg;
    double value;
} GpuScalar;

/* api_install.c: installs the gpu, ref and hostcheck globals into a
 * sandbox (a run's sandbox starts from the backend's own emulator options). */
void api_install(Sandbox *sb);
/* gpu.c: registers the array and scalar metatables, pushes the gpu table. */
void gpu_push_module(lua_State *L);
/* gpu_math.c: adds gpu.round_f32, gpu.fma, ... to the table on top. */
void gpu_math_add(lua_State *L);
/* api.c: makes reading an unknown key of the table on top an error
 * ("gpu has no field 'arary' (did you mean 'array'?)"). */
void api_make_strict(lua_State *L, const char *what);
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

/* Any array (also of structs), or NULL. */
GpuArray *array_test(lua_State *L, int idx);
/* An array of numbers (an array of structs is an error naming its fields). */
GpuArray *array_check(lua_State *L, int idx);
/* Pushes a new zero-filled array; raises a Lua error past the size cap. */
GpuArray *array_push_new(lua_State *L, DType dt, int ndim, const size_t *shape);
/* A launch was given a (every array passed to one is assumed written). */
void array_mark_launched(GpuArray *a);
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
/* dtype_format of element i. */
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
