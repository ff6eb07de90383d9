/* kernels/emurt/emurt_internal.h: the state shared by the emulator
 * runtime's files — cudojo's own libcudart.so.<major>, the CUDA runtime API
 * over the emulator Backend (kernels/emu/), loaded into a learner's program
 * instead of NVIDIA's library (kernels/program.h, kernels/emurt/README.md).
 *
 * One global Rt, guarded by one recursive mutex: every API function starts
 * with rt_enter() and ends with rt_leave(), which also writes the "call"
 * record (kernels/progwire.h), keeps cudaGetLastError's state and advances
 * the modeled host clock by the wall time the program spent outside us.
 * Each emulated device (CUDOJO_EMU_DEVICES) is its own emu Backend. */
#ifndef CUDOJO_KERNELS_EMURT_INTERNAL_H
#define CUDOJO_KERNELS_EMURT_INTERNAL_H

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "kernels/backend.h"
#include "kernels/emu/emu.h"
#include "kernels/fatbin.h"
#include "kernels/progwire.h"

#define RT_MAX_DEVICES 8
/* On the merged timeline of several devices, device d's stream s is d * RT_DEVICE_STREAMS + s. */
#define RT_DEVICE_STREAMS 100
#define RT_STREAM_MAGIC 0x5354524du /* "STRM" */
#define RT_EVENT_MAGIC 0x4556454eu  /* "EVEN" */

typedef enum RtMemKind {
    RT_MEM_DEVICE = 0,              /* cudaMalloc, cudaMallocPitch */
    RT_MEM_MANAGED,                 /* cudaMallocManaged, __managed__ */
    RT_MEM_PINNED,                  /* cudaMallocHost, cudaHostAlloc, cudaHostRegister */
    RT_MEM_SYMBOL,                  /* a module's __device__/__constant__ variable */
} RtMemKind;

/* Memory the runtime knows, host and device: which device, what kind, and
 * the name shown in call records and findings. */
typedef struct RtAlloc {
    uintptr_t base;
    size_t size;
    int dev;
    RtMemKind kind;
    bool registered;                /* cudaHostRegister: the program owns the memory */
    bool on_device;                 /* managed: the pages were last on the device side */
    bool read_mostly;               /* managed: cudaMemAdviseSetReadMostly */
    int preferred, last_prefetch;   /* managed: device ids, cudaCpuDeviceId, or cudaInvalidDeviceId */
    unsigned flags;                 /* pinned: cudaHostAlloc's flags */
    struct RtPool *pool;            /* cudaMallocAsync/FromPoolAsync: the pool it came from (emurt_pool.c) */
    bool pool_free;                 /* freed back into its pool: kept mapped, not the program's (rt_alloc_find skips it) */
    int id;
    char name[64];
} RtAlloc;

typedef struct RtModule {
    void *fatbin;                   /* what __cudaRegisterFatBinary received (the wrapper) */
    char *ptx;                      /* NULL until loaded (or when there is none) */
    size_t ptx_len;
    int ptx_arch;                   /* the PTX's virtual architecture (90 = compute_90) */
    char *source_path, *source;     /* the learner's file named by the PTX's .file, its text */
    void *cubin;                    /* the sm_90 cubin when the fat binary has one (registers) */
    size_t cubin_size;
    struct CubinInfo *cubin_info;   /* its kernels' registers, parsed once (NULL: none) */
    Diag *error;                    /* why the PTX could not be read or loaded */
    bool parsed;
    BackendModule *mods[RT_MAX_DEVICES];
    bool failed[RT_MAX_DEVICES];
    bool launched[RT_MAX_DEVICES];  /* a kernel of it launched on the device (CUDA loads the module lazily then) */
} RtModule;

typedef struct RtFunc {
    const void *host;               /* the host stub (what <<<>>> and cudaLaunchKernel pass) */
    char *name;                     /* the PTX entry (mangled) */
    char *pretty;                   /* demangled, for records */
    RtModule *mod;
    char **params;                  /* parameter names from the learner's source (may be NULL) */
    int n_params;
    bool params_tried;
    int max_dyn_shared;             /* cudaFuncAttributeMaxDynamicSharedMemorySize */
    bool nonportable_cluster;       /* cudaFuncAttributeNonPortableClusterSizeAllowed */
    long launches;                  /* kernel records sent */
} RtFunc;

typedef struct RtVar {
    const void *host;               /* the host shadow */
    char *name;
    RtModule *mod;
    size_t size;
    bool constant, managed;
    void **managed_ptr;             /* __managed__: where the host code reads the address */
} RtVar;

typedef enum RtQKind { RTQ_KERNEL, RTQ_COPY, RTQ_MEMSET, RTQ_CALL, RTQ_RECORD, RTQ_WAIT_EVENT, RTQ_HOST } RtQKind;

/* Work waiting in a stream's queue (emurt_queue.c). */
struct RtStream;
struct RtQOp;
/* How a queued kernel, copy or memset is done when its turn comes: the
 * enqueuer's own function (so the queue calls no file that calls it). */
typedef void (*RtQRun)(struct RtStream *s, struct RtQOp *op);
typedef struct RtQOp {
    RtQKind kind;
    uint64_t seq;                   /* issue order across all streams */
    RtQRun run;                     /* RTQ_KERNEL, RTQ_COPY, RTQ_MEMSET, RTQ_CALL */
    void *blob;                     /* RTQ_CALL: the enqueuer's copy of its arguments (freed after run) */
    struct RtFunc *f;
    dim3 grid, block;
    unsigned char *params;
    size_t psize, shared;
    void *dst;
    const void *src;
    size_t n;
    enum cudaMemcpyKind copy_kind;
    int value;
    struct RtEvent *event;
    cudaHostFn_t fn;
    cudaStreamCallback_t cb;
    cudaStream_t handle;
    void *data;
    struct RtQOp *next;
} RtQOp;

typedef struct RtStream {
    uint32_t magic;
    int dev;
    int id;                         /* the backend's stream id (0 = legacy) */
    unsigned flags;
    int priority;
    struct RtGraph *capture;        /* stream capture in progress */
    enum cudaStreamCaptureMode capture_mode;
    bool capture_origin;            /* cudaStreamBeginCapture was called on it (not joined through an event) */
    pthread_t capture_thread;       /* the thread that began it */
    cudaError_t capture_error;      /* an illegal call during capture invalidates it */
    int *cap_deps, n_cap_deps;      /* capturing: the nodes (indices in capture) its next node depends on */
    RtQOp *head, *tail;             /* work waiting (emurt_queue.c) */
    bool host_running;              /* a host function of this stream runs on its thread */
    bool per_thread;                /* a host thread's cudaStreamPerThread (in g_rt.streams too) */
    uint64_t host_seq;
    struct cudaAccessPolicyWindow apw;  /* cudaStreamSetAttribute: kept, not modeled */
    int sync_policy;
} RtStream;

typedef struct RtEvent {
    uint32_t magic;
    int dev;
    int id;
    unsigned flags;
    struct RtGraph *capture;        /* recorded in a capturing stream: waiting on it joins the capture */
    int *cap_deps, n_cap_deps;      /* ... and depends on these nodes of it (the stream's when recorded) */
    int pending;                    /* records of it still queued */
} RtEvent;

typedef struct RtDevice {
    Backend *b;
    bool peer[RT_MAX_DEVICES];
    unsigned flags;                 /* cudaSetDeviceFlags */
    cudaError_t sticky;             /* a kernel fault: every later call returns it */
    cudaError_t pending_fault;      /* seen at launch, returned from the next synchronising call */
    size_t used;                    /* bytes allocated */
} RtDevice;

typedef struct Rt {
    pthread_mutex_t lock;           /* recursive */
    bool ready;
    Diag *init_error;
    int n_dev;
    RtDevice dev[RT_MAX_DEVICES];
    EmuOptions opts;
    RtModule **mods;
    int n_mods;
    RtFunc **funcs;
    int n_funcs;
    RtVar **vars;
    int n_vars;
    RtAlloc *allocs;                /* sorted by base */
    int n_allocs, cap_allocs;
    int next_alloc_id;
    RtStream **streams;
    int n_streams;
    RtEvent **events;
    int n_events;
    StrBuf out;                     /* device printf output waiting for a synchronisation point */
    StrBuf err;                     /* device assert messages, for stderr at the same point */
    double outside_since_ms;        /* process CPU clock when the program last left a runtime call */
    double host_pending_us;         /* host time not yet on the timeline */
    bool host_time;                 /* CUDOJO_EMU_HOST_TIME=1: measured host time advances the modeled clock */
    bool no_peer;                   /* CUDOJO_EMU_PEER=0: devices cannot reach each other's memory */
    int depth;                      /* nested API calls (host functions calling the API) */
    long kernels, kernels_dropped;  /* launches; kernel records not sent (past PROGWIRE_MAX_CALLS) */
} Rt;

extern Rt g_rt;

/* ---- what nvcc's generated code calls (crt/host_runtime.h declares them for C++) ---- */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaUnregisterFatBinary(void **handle);
void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress, const char *deviceName,
                              int ext, size_t size, int constant, int global);
char __cudaInitModule(void **handle);

/* ---- emurt_state.c ----------------------------------------------------------------------- */
/* Starts an API call: initialises on first use, takes the lock, charges the
 * host's time since the last call to the modeled host clock. */
void rt_enter(void);
/* rt_enter for a call that touches no device memory (the guard stays shut). */
void rt_enter_pure(void);
/* Ends it: remembers rc for cudaGetLastError (unless it is cudaSuccess or
 * cudaErrorNotReady), writes the call record with args formatted like
 * printf, releases the lock and returns rc. */
cudaError_t rt_leave(const char *fn, cudaError_t rc, int stream, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Ends a call that the program did not make itself (registration): no record. */
void rt_leave_quiet(void);
/* The calling thread's current device and last error. */
void rt_host_clocks_sync(void);                   /* the devices' modeled host clocks as one */
Timeline *rt_timeline_merged(void);               /* all devices' timelines in one (emurt_state.c) */
int rt_current_device(void);
void rt_set_current_device(int dev);
cudaError_t rt_last_error_get(bool reset);
void rt_last_error_set(cudaError_t e);
/* The current device's sticky error (cudaSuccess when none). A pending
 * kernel fault becomes sticky here when `synchronising`. */
cudaError_t rt_sticky(int dev, bool synchronising);
/* The CUDA error a backend Diag stands for (frees nothing). */
cudaError_t rt_error_from_diag(const Diag *d, cudaError_t fallback);
/* Sends each Diag as a "finding" record (or prints it on stderr when no
 * report channel is open); frees the chain. */
void rt_findings(Diag *d);
/* Prints device printf output collected so far (a synchronisation point). */
void rt_flush_output(void);
double rt_now_ms(void);
/* "d_x+16" for a pointer the runtime knows, else "0x7f..". Static ring of buffers. */
const char *rt_ptr(const void *p);
const char *rt_kind_name(enum cudaMemcpyKind k);
int emurt_unimplemented(const char *fn);
RtAlloc *rt_alloc_find(const void *p);            /* the allocation holding p, or NULL (emurt_memory.c keeps the table) */
RtAlloc *rt_alloc_find_any(const void *p);        /* the same, counting memory a pool holds free (emurt_pool.c) */
Backend *rt_backend(int dev);                     /* the device's emulator Backend */
void rt_device_props(int dev, struct cudaDeviceProp *p); /* cudaGetDeviceProperties without a call record */

/* ---- emurt_guard.c: device memory is PROT_NONE while the program runs outside the runtime ---- */
void rt_guard_init(void);
void rt_guard_open(void);               /* entering the runtime (depth 0 -> 1) */
void rt_guard_close(void);              /* leaving it (depth 1 -> 0) */

/* ---- emurt_error_names.c ---------------------------------------------------------------------- */
/* CUDA's name and text of an error ("cudaErrorInvalidValue", "invalid argument"). Static. */
const char *rt_error_name(cudaError_t e);
const char *rt_error_string(cudaError_t e);

/* ---- memory (emurt_memory.c) --------------------------------------------------------------- */
bool rt_in_alloc(const RtAlloc *a, const void *p, size_t n);   /* [p, p+n) inside a */
RtAlloc *rt_alloc_add(uintptr_t base, size_t size, int dev, RtMemKind kind, const char *name);
void rt_alloc_remove(RtAlloc *a);
/* Copies `n` bytes in the direction `kind` (cudaMemcpyDefault inferred) on
 * `s` (NULL = the legacy stream of the device concerned); `sync` = the
 * blocking cudaMemcpy. */
cudaError_t rt_memcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, RtStream *s, bool sync);
cudaError_t rt_memset(void *dst, int value, size_t n, RtStream *s, bool sync);
/* A cudaMemcpy3D of pitched memory on s (emurt_pitched.c). */
cudaError_t rt_memcpy3d(const struct cudaMemcpy3DParms *p, RtStream *s, bool sync);
/* Allocation helpers shared by emurt_memory.c, emurt_copy.c, emurt_managed.c. */
bool rt_device_side(const RtAlloc *a);          /* device, managed or symbol memory (not pinned host) */
bool rt_device_range(const void *p, size_t n, RtAlloc **out); /* [p, p+n) inside one device-side allocation */
bool rt_poison(void);                            /* fill fresh cudaMalloc memory with 0xff */
/* The only way the runtime writes the program's data into memory (every
 * copy and memset: cudaMemcpy*, cudaMemset*, peers, symbols, graph and
 * queued nodes): the bytes are written, and where they are device memory the
 * emulator stops treating them as uninitialised (a kernel reading them is no
 * uninit-global finding). `elem` bytes of `value` repeat across
 * [dst, dst+n) (1, 2 or 4: cudaMemset's byte or a memset node's element);
 * src and dst of a copy may overlap. */
void rt_mem_copy(void *dst, const void *src, size_t n);
void rt_mem_fill(void *dst, unsigned value, size_t elem, size_t n);
/* On the current device; `fn` (the API call as the source may write it, "cudaHostAlloc|cudaMallocHost")
 * names it from the program's source. */
/* In an API call that synchronises: returns the current device's sticky
 * error, logged as fn's, when the context is dead. */
#define STICKY_SYNC(fn, fmt, ...)                                                        \
    do {                                                                                 \
        cudaError_t st_ = rt_sticky(rt_current_device(), true);                          \
        if (st_) return rt_leave(fn, st_, 0, fmt, __VA_ARGS__);                          \
    } while (0)

cudaError_t rt_device_alloc(void **p, size_t size, RtMemKind kind, const char *fn, RtAlloc **out);
cudaError_t rt_device_free(RtAlloc *a);
const char *rt_out_name(const void *p);          /* "alloc1" for what an allocation call hands back */
/* The program's DWARF line table (emurt_dwarf.c): the file (an index),
 * line and column of the call that returns to `pc`, false outside the
 * program's code or without debug information; and that file's `line`
 * (a pointer into its text, NULL when unreadable). */
bool rt_dwarf_line(uintptr_t pc, int *file, int *line, int *col);
const char *rt_dwarf_source(int file, int line);
/* Names an allocation the way the program does ("d_x"), from the source line
 * of the call to `fn` ("cudaMalloc") found through the executable's DWARF
 * line table (emurt_names.c); leaves it as is when that cannot be read. */
void rt_alloc_name(RtAlloc *a, const char *fn);
bool rt_name_allocation(const char *fn, char *out, size_t n);
/* The arguments of the program's call to `fn` as its source writes them
 * ("h_x", "n * sizeof(float)"); how many were found (0: unknown). */
#define RT_ARG_TEXT 64
int rt_call_args(const char *fn, char (*args)[RT_ARG_TEXT], int max);
/* Managed allocations among a launch's pointer parameters move to the device
 * (modeled); sets the modeled stall of their page faults and the share of the
 * kernel's traffic that reads pinned host memory (zero copy) in *cfg. */
void rt_managed_touch(const unsigned char *params, size_t psize, RtStream *s, LaunchConfig *cfg);

/* ---- memory pools (emurt_pool.c) -------------------------------------------------------------- */
/* cudaFree of a pool allocation (after the device is idle): freed outright,
 * not kept for reuse; the pool's used counter still counts it (H200). */
cudaError_t rt_pool_free_now(RtAlloc *a);
/* A synchronisation of `dev` (-1: every device): frees are complete, each
 * pool gives memory above its release threshold back. */
void rt_pool_sync(int dev);
/* cudaDeviceReset: the device's pools forget their blocks (the allocations are freed by the caller). */
void rt_pool_reset(int dev);

/* ---- the page model of managed memory (emurt_um.c) ------------------------------------------- */
void rt_um_init(void);                          /* the SIGSEGV handler for host accesses */
void rt_um_add(RtAlloc *a);                     /* a cudaMallocManaged allocation (fresh pages) */
void rt_um_forget(uintptr_t base);              /* before it is freed */
void rt_um_set_read_mostly(const void *p, bool on);
void rt_um_enter(void);                         /* entering the runtime: CPU faults to the timeline */
void rt_um_leave(void);                         /* leaving it: host protections */
double rt_um_kernel(const unsigned char *params, size_t psize, RtStream *s); /* GPU faults; stall µs */
size_t rt_um_prefetch(const void *p, size_t count, bool to_dev); /* bytes that moved */
bool rt_um_tracked(const void *p);
double rt_um_host_fraction(const unsigned char *params, size_t psize);

/* ---- registration and launch (emurt_register.c) ---------------------------------------------- */
RtFunc *rt_func_find(const void *host_or_handle);
RtVar *rt_var_find(const void *host);
/* Loads the module on `dev` (parses the PTX on first use); NULL and the
 * CUDA error in *err when it cannot. */
BackendModule *rt_module_get(RtModule *m, int dev, cudaError_t *err);
cudaError_t rt_launch(RtFunc *f, dim3 grid, dim3 block, void **args, size_t shared, RtStream *s);
/* Runs a launch whose parameter buffer is built already (graphs replay these). */
cudaError_t rt_launch_params(RtFunc *f, dim3 grid, dim3 block, const unsigned char *params, size_t psize,
                             size_t shared, RtStream *s);
/* Registers per thread of f from the fat binary's sm_90 cubin (-1: none;
 * the emulator's own count is not ptxas's), and the most threads a block of
 * a kernel using `regs` may have on sm_90 (1024 when regs <= 0). */
/* sm_90's register file: 64K 32-bit registers per SM (and per block),
 * given to warps in units of 256 (8 per thread). */
#define SM90_REGS 65536
#define SM90_REG_UNIT 8
const struct CubinKernel *rt_func_cubin(const RtFunc *f); /* its sm_90 cubin's entry; NULL: PTX only */
int rt_kernel_registers(const RtFunc *f);
int rt_max_threads_for_registers(int regs);
/* Blocks of f (block_size threads, `shared` dynamic bytes) one SM holds at once (emurt_func.c). */
cudaError_t rt_blocks_per_sm(RtFunc *f, int block_size, size_t shared, int *out);
/* The device address of a registered variable on the current device. */
cudaError_t rt_symbol_address(const void *symbol, uintptr_t *addr, size_t *size);

/* ---- which stream a handle is (emurt_stream_lookup.c) ------------------------------------------- */
/* Resolves a cudaStream_t: NULL/cudaStreamLegacy → the current device's
 * legacy stream (a static per device), cudaStreamPerThread → its per-thread
 * stream, else a stream we made; NULL when it is not one of ours.
 * `ptsz`: the call came through a _ptsz entry point (stream 0 is per-thread). */
RtStream *rt_stream(cudaStream_t s, bool ptsz);
RtStream *rt_stream_legacy(int dev);
/* The stream synchronous calls use: the legacy stream, or the calling
 * thread's per-thread stream inside a _ptds/_ptsz entry point (rt_ptsz). */
RtStream *rt_default_stream(int dev);
void rt_ptsz(bool on);
const char *rt_stream_name(const RtStream *s);

/* ---- work that waits (emurt_queue.c) ----------------------------------------------------------- */
/* Whether work issued now to s must wait in its queue (s or what it depends on is busy). */
bool rt_queue_needed(RtStream *s);
/* Queue a kernel, copy or memset on s; `run` does it when its turn comes. */
void rt_queue_launch(RtStream *s, RtFunc *f, dim3 grid, dim3 block, const unsigned char *params, size_t psize,
                     size_t shared, RtQRun run);
void rt_queue_copy(RtStream *s, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, RtQRun run);
void rt_queue_memset(RtStream *s, void *dst, int value, size_t n, RtQRun run);
/* Queue any other stream operation (2D/3D copies and memsets, peer copies,
 * prefetches, stream-ordered frees, graph nodes): `args` (size bytes) is
 * copied into op->blob, and `run` reads it back when the op's turn comes. */
void rt_queue_call(RtStream *s, const void *args, size_t size, RtQRun run);
void rt_queue_event(RtStream *s, RtEvent *e, bool wait);
/* Runs a host function (or stream callback when cb is set) on its own thread after what precedes it in s. */
void rt_host_func(RtStream *s, cudaHostFn_t fn, cudaStreamCallback_t cb, cudaStream_t handle, void *data);
/* Runs every queued operation that can run now, and wakes the waiters. */
void rt_dispatch(void);
/* Whether s has work pending (queued, a host function running, or behind another stream). */
bool rt_stream_busy(RtStream *s);
/* Wait, with the runtime's lock released, until the stream / the device (-1: all) / the event is done. */
void rt_wait_stream(RtStream *s);
void rt_wait_device(int dev);
void rt_wait_event(RtEvent *e);
/* The wait of the first launch of a module's kernel on dev (CUDA's lazy
 * loading): until no host function runs or waits in a queue on dev; after
 * 3 s it says on stderr what it waits for (once). */
void rt_wait_lazy_load(int dev, const char *kernel);

/* ---- events (emurt_event.c) ------------------------------------------------------------------- */
RtEvent *rt_event_find(const void *e);
/* cudaEventRecord / cudaStreamWaitEvent without the call record (graph event nodes replay these). */
cudaError_t rt_event_record(RtEvent *e, RtStream *s, unsigned flags);
cudaError_t rt_stream_wait_event(RtStream *s, RtEvent *e, unsigned flags);

/* ---- graphs (emurt_graph.c) -------------------------------------------------------------------- */
struct RtGraph;
/* While `s` captures: records the operation instead of running it. */
cudaError_t rt_capture_launch(RtStream *s, RtFunc *f, dim3 grid, dim3 block, const unsigned char *params,
                              size_t psize, size_t shared);
cudaError_t rt_capture_copy(RtStream *s, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t rt_capture_memset(RtStream *s, void *dst, int value, size_t n);
cudaError_t rt_capture_host(RtStream *s, cudaHostFn_t fn, void *data);
cudaError_t rt_capture_copy3d(RtStream *s, const struct cudaMemcpy3DParms *p);
cudaError_t rt_capture_memset2d(RtStream *s, void *dst, size_t pitch, int value, size_t width, size_t height);
/* An event recorded in a capturing stream takes the stream's dependencies
 * (with cudaEventRecordExternal it is also an event record node); a stream
 * that waits on it joins the capture, or adds them to its own. *captured:
 * the wait was a capture's (nothing to wait for); a stream of one capture
 * waiting on an event of another still going on is
 * cudaErrorStreamCaptureMerge, both captures invalidated (H200). */
void rt_capture_event_record(RtStream *s, RtEvent *e, unsigned flags);
cudaError_t rt_capture_wait_event(RtStream *s, RtEvent *e, unsigned flags, bool *captured);
/* A call not allowed while capturing (a query, a synchronize) spoils the capture. */
void rt_capture_invalidate(RtStream *s);
/* cudaEventQuery or cudaEventSynchronize of e: when e was last recorded in a
 * capture still going on (whatever the mode) it stands for no work that
 * will run: cudaErrorCapturedEvent (H200, session 9), and that capture is
 * invalidated (every stream in it); else cudaSuccess. */
cudaError_t rt_capture_event_use(const RtEvent *e);
/* A potentially unsafe call (cudaMalloc, a synchronous copy, a synchronize,
 * cudaEventQuery...) made while a capture forbids it to this thread (the
 * thread's capture mode, cudaThreadExchangeStreamCaptureMode, and the modes
 * the captures began with, as CUDA documents cudaStreamCaptureMode): those
 * captures are invalidated and it is cudaErrorStreamCaptureUnsupported;
 * else cudaSuccess. */
cudaError_t rt_capture_unsafe_call(void);
/* Work on the legacy stream of `dev` while a blocking stream of it captures:
 * cudaErrorStreamCaptureImplicit, and that capture is invalidated. */
cudaError_t rt_capture_legacy_use(int dev);
int rt_thread_capture_mode(void);                 /* emurt_stream_attr.c */

#endif
