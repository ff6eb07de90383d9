/* kernels/backend.h: the interface both execution backends implement.
 *
 * `cuda` (kernels/cuda/) runs on a real GPU through cudart; `emu`
 * (kernels/emu/) interprets the same PTX on the CPU. The exercise API in
 * lua/ only ever talks to a Backend. Device memory is addressed by DevPtr:
 * a real device address on the GPU, an emulator address on the emulator.
 * Every allocation carries a label (the Lua array's name) and an element
 * size so findings can say "read a[1000064] but a has 1000003 elements". */
#ifndef CUDOJO_KERNELS_BACKEND_H
#define CUDOJO_KERNELS_BACKEND_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "kernels/compile.h"
#include "kernels/timeline.h"

typedef uint64_t DevPtr;

typedef struct Dim3 {
    unsigned x, y, z;
} Dim3;

/* One kernel argument as raw bytes in the kernel's parameter layout
 * (pointers are DevPtr, 8 bytes; scalars 4 or 8 bytes). */
typedef struct KernelArg {
    size_t size;                    /* 1..16 */
    unsigned char bytes[16];
} KernelArg;

typedef struct LaunchConfig {
    Dim3 grid, block;
    size_t shared_bytes;            /* dynamic shared memory */
    int timed_reps;                 /* 0 = run once; N > 0 = warm-up + N timed runs, median */
    int stream;                     /* 0 = the legacy default stream, else from stream_create */
    bool async;                     /* return once enqueued (CUDA semantics); false = the launch
                                       also waits for the kernel (what run-and-check needs) */
    /* emulator cost model only (the emulator runtime sets them; 0 elsewhere): */
    double extra_us;                /* modeled stall added to the kernel (managed-memory page faults) */
    double host_fraction;           /* share of its global traffic that crosses the host link
                                       (pinned host memory read in place: zero copy) */
    /* GPU timing only: */
    double timed_budget_ms;         /* > 0: after the first 3 timed runs, only as many more as fit in
                                       this many ms of kernel time at their median, and only 2 runs
                                       when those 2 spend it, agree within 1% and take 10 ms or more
                                       each (a GPU's k:time
                                       without reps =); 0 = all timed_reps */
} LaunchConfig;

/* Streams and events are small integers the backend hands out (> 0);
 * stream 0 is the legacy default stream. */
typedef enum CopyDir { COPY_H2D = 0, COPY_D2H, COPY_D2D } CopyDir;

/* One asynchronous copy (copy_async). A pageable host side (pinned = false)
 * makes it synchronous for the host, as in CUDA. */
typedef struct CopyRequest {
    CopyDir dir;
    int stream;
    DevPtr dev;                     /* the device side (destination of D2D) */
    DevPtr dev_src;                 /* D2D only: the source */
    void *host;                     /* H2D source or D2H destination */
    size_t bytes;
    bool pinned;                    /* host memory came from host_alloc; false = pageable: the
                                       copy blocks the host until it is done */
    const char *name;               /* for the timeline ("copy a -> device"); may be NULL */
} CopyRequest;

typedef struct StreamOptions {
    int priority;                   /* lower is higher priority, as in CUDA (0 default) */
    bool non_blocking;              /* does not synchronise with the legacy default stream */
    const char *name;               /* for the timeline; NULL = "stream N" */
} StreamOptions;

/* Emulator execution modes (ignored by the GPU backend). */
typedef struct EmuOptions {
    int threads;                    /* host threads for blocks; 0 = all cores */
    bool deterministic;             /* single thread, fixed warp order */
    bool adversarial;               /* shuffled warp order, poisoned uninitialised shared memory */
    bool metrics;                   /* collect per-line metrics (coalescing, banks, divergence) */
    bool checks;                    /* races, uninitialised reads (bounds are always checked) */
    uint64_t instruction_budget;    /* per launch, warp-instructions; 0 = default */
    uint64_t seed;                  /* the adversarial warp order's seed; 0 = the default (12345) */
    double deadline_s;              /* CLOCK_MONOTONIC seconds after which a launch stops with
                                       did-not-finish at the line its warps were on (the run's time
                                       limit, minus time to report); 0 = none */
} EmuOptions;

typedef struct LaunchReport {
    Diag *findings;                 /* errors/warnings with the learner's file:line, block, thread */
    json_t *metrics;                /* object or NULL: {"totals":{...}, "lines":[...]} (emulator),
                                       {"ms_median":..,"ms_min":..,"reps":..} (GPU) */
    char *device_output;            /* printf output in order, NULL if none */
    char *device_stderr;            /* what a GPU writes to stderr: failed device asserts
                                       ("a.cu:22: void k(int *): block: [2,0,0], thread: [13,0,0]
                                       Assertion `x` failed."), NULL if none */
    double ms_median;               /* timed runs on a GPU; < 0 when not measured */
    double ms_min;
    int reps;
    bool modeled;                   /* true when timings are a model, not a measurement */
} LaunchReport;

typedef struct DeviceInfo {
    char name[256];                 /* "NVIDIA H200" / "cudojo PTX emulator (sm_90 profile)" */
    int cc_major, cc_minor;
    int sm_count;
    size_t global_mem;
    size_t shared_per_block;        /* default limit (48 KiB) */
    size_t shared_per_block_optin;
    size_t shared_per_sm;
    int regs_per_sm;
    int regs_per_block;
    int max_threads_per_block;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int warp_size;
    int max_grid[3];
    int max_block[3];
    int driver_version;             /* 13000 = 13.0; 0 unknown */
    int runtime_version;
    double mem_clock_khz;
    int mem_bus_width;
    double peak_bandwidth_gbs;      /* theoretical, from clock × bus width (GB/s) */
} DeviceInfo;

typedef struct Backend Backend;
typedef struct BackendModule BackendModule;

typedef struct BackendOps {
    const char *name;               /* "cuda" or "emu" */
    void (*destroy)(Backend *b);
    Diag *(*device_info)(Backend *b, DeviceInfo *out);
    Diag *(*mem_alloc)(Backend *b, size_t bytes, const char *label, size_t elem_size, DevPtr *out);
    Diag *(*mem_free)(Backend *b, DevPtr p);
    Diag *(*copy_to_device)(Backend *b, DevPtr dst, const void *src, size_t bytes);
    Diag *(*copy_to_host)(Backend *b, void *dst, DevPtr src, size_t bytes);
    Diag *(*memset)(Backend *b, DevPtr dst, int value, size_t bytes);
    /* Initialisation tracking (NULL where the backend cannot track it: the
     * GPU). written = false marks [p, p+bytes) as holding nothing yet, so a
     * kernel reading it is reported (uninit-global) until a store, copy or
     * memset puts something there; written = true marks bytes written by
     * means the backend does not see (the emulator runtime's own copies).
     * Copies and memsets through this interface mark what they write. */
    Diag *(*mem_track_init)(Backend *b, DevPtr p, size_t bytes, bool written);
    /* A view: `bytes` of the allocation at `parent` from byte `offset`, made
     * an allocation of its own for the bounds checks (an access outside the
     * view is out of bounds even where the parent goes on) that shares the
     * parent's memory. Freed with mem_free, before or after the parent. NULL
     * where nothing checks bounds (the GPU: a view is parent + offset). */
    Diag *(*mem_view)(Backend *b, DevPtr parent, size_t offset, size_t bytes, const char *label, size_t elem_size,
                      DevPtr *out);
    /* Host memory the program owns (cudaHostRegister), made an allocation
     * kernels may touch in place at its own address; unregister forgets it
     * (its memory stays the program's). NULL where nothing checks bounds
     * (the GPU maps registered memory itself). */
    Diag *(*mem_register)(Backend *b, void *host, size_t bytes, const char *label);
    void (*mem_unregister)(Backend *b, void *host);
    Diag *(*module_load)(Backend *b, const CompiledModule *m, BackendModule **out);
    void (*module_unload)(Backend *b, BackendModule **m);
    /* Runs kernel `kernel` (the exercise's name; resolved through the module's
     * KernelInfo). A failed launch returns a Diag; findings of a launch that
     * ran (races, out-of-bounds, uncoalesced) go into report->findings. The
     * caller owns what report holds afterwards (launch_report_fini). */
    Diag *(*launch)(Backend *b, BackendModule *m, const char *kernel, const LaunchConfig *cfg,
                    const KernelArg *args, int nargs, LaunchReport *report);
    /* Device-to-device copy bandwidth in GB/s (bytes read + written per second):
     * the better of a tuned copy kernel and cudaMemcpy, measured once per device
     * and driver and cached (kernels/cuda/cuda_peaks.h); < 0 when not measurable
     * (emulator). */
    double (*peak_copy_gbs)(Backend *b);

    /* ---- streams, events, asynchronous work, timeline (NULL when a backend
     * lacks them; both real backends have all). The legacy default stream (0)
     * waits for, and is waited for by, every blocking stream; work in one
     * stream runs in order. The plain copy/memset/launch above stay
     * synchronous and go on stream 0. */
    Diag *(*stream_create)(Backend *b, const StreamOptions *o, int *out);
    Diag *(*stream_destroy)(Backend *b, int stream);
    Diag *(*stream_synchronize)(Backend *b, int stream);
    Diag *(*device_synchronize)(Backend *b);
    Diag *(*event_create)(Backend *b, int *out);
    Diag *(*event_destroy)(Backend *b, int event);
    Diag *(*event_record)(Backend *b, int event, int stream);
    Diag *(*event_synchronize)(Backend *b, int event);
    /* Whether the event has completed (true when never recorded), without
     * waiting; on the emulator each query costs the modeled host a call. */
    Diag *(*event_query)(Backend *b, int event, bool *done);
    /* Milliseconds from ev0 to ev1; both must have completed (else an error,
     * like cudaErrorNotReady). *modeled says it is the cost model's figure. */
    Diag *(*event_elapsed_ms)(Backend *b, int ev0, int ev1, double *ms, bool *modeled);
    /* Page-locked (pinned) host memory, zeroed; host_free(NULL) is a no-op. */
    Diag *(*host_alloc)(Backend *b, size_t bytes, void **out);
    void (*host_free)(Backend *b, void *p);
    /* Host buffers for the Lua arrays (at least HOST_POOL_MIN_BYTES), from
     * the backend's pool (kernels/host_pool.h): a warm worker gets back the
     * buffers of its last run instead of fresh pages. *zeroed says whether
     * the bytes are all zero; when false they are what the last user left,
     * and the caller clears them. On a GPU the buffer is page-locked, so
     * copies to and from it run at full speed; that is no promise to the
     * learner: an array on it is not "pinned" for CUDA's async rules
     * (CopyRequest.pinned stays false, and such a copy blocks the host).
     * NULL when out of memory. host_buffer_give takes it back (kept within
     * the pool's cap, else freed); the backend's destroy frees them all.
     * NULL ops where a backend has no pool. */
    void *(*host_buffer_take)(Backend *b, size_t bytes, bool *zeroed);
    void (*host_buffer_give)(Backend *b, void *p);
    Diag *(*copy_async)(Backend *b, const CopyRequest *rq);
    Diag *(*memset_async)(Backend *b, DevPtr dst, int value, size_t bytes, int stream, const char *name);
    /* Host work for the timeline's host row: begin, then end with its
     * duration in µs (measured by the caller, or chosen for a model). */
    void (*host_work_begin)(Backend *b, const char *name);
    void (*host_work_end)(Backend *b, double us);
    /* False once the device cannot be used any more (a sticky error poisoned
     * the context): the worker answers, then a fresh one takes over. NULL =
     * always usable (the emulator). Use backend_usable(). */
    bool (*usable)(const Backend *b);
    /* Registers per thread, local bytes per thread and static shared bytes of
     * `kernel` as the device's own build of the module uses them (on a GPU
     * these win over ptxas's log). NULL where there is no such build (the
     * emulator). */
    Diag *(*kernel_resources)(Backend *b, BackendModule *m, const char *kernel, int *registers, int *local_bytes,
                              int *shared_static);
    /* Forgets the timeline's entries (a new run starts). */
    void (*timeline_reset)(Backend *b);
    /* The timeline so far (a copy; caller frees; set even when a Diag says
     * the GPU failed). On a GPU this waits for the device so every entry has
     * its times. */
    Diag *(*timeline_get)(Backend *b, Timeline **out);
    /* The emulator's options for the launches that follow (an exercise's
     * t:emu_options: adversarial, seed, instruction_budget, checks, metrics;
     * the host threads stay the backend's); NULL = back to those it was
     * opened with. NULL op where there are none (the GPU). */
    void (*emu_options_set)(Backend *b, const EmuOptions *o);
    void (*emu_options_get)(Backend *b, EmuOptions *out);   /* those in force */
} BackendOps;

struct Backend {
    const BackendOps *ops;
};

void launch_report_init(LaunchReport *r);
void launch_report_fini(LaunchReport *r);

/* Convenience arg builders. */
KernelArg kernel_arg_ptr(DevPtr p);
KernelArg kernel_arg_i32(int32_t v);
KernelArg kernel_arg_u32(uint32_t v);
KernelArg kernel_arg_i64(int64_t v);
KernelArg kernel_arg_u64(uint64_t v);
KernelArg kernel_arg_f32(float v);
KernelArg kernel_arg_f64(double v);

/* The backends (kernels/backend_factory.c opens them; tests may too). Each
 * returns NULL and sets *why when it cannot work here (no GPU: "CUDA driver
 * version is insufficient for CUDA runtime version"). */
Backend *cuda_backend_new(Diag **why);
/* How many CUDA GPUs this machine has (0 without a driver or GPU); no
 * context is made. */
int backend_gpu_count(void);
/* The GPU's part of `cudojo doctor`, JSON (caller decrefs): whether a driver
 * is installed, the GPUs, whether the GPU backend works and why not, its
 * timeline source and the device's peaks (measured now when not cached).
 * kernels/doctor.h shows the fields. */
json_t *backend_gpu_probe(void);
/* Whether b can still run work (Backend.usable; true when it has no such op). */
bool backend_usable(const Backend *b);
Backend *emu_backend_new(const EmuOptions *opts, Diag **why);

typedef enum BackendChoice {
    BACKEND_AUTO = 0,               /* GPU when one works, else the emulator */
    BACKEND_CUDA,
    BACKEND_EMU,
} BackendChoice;

/* Opens the chosen backend; AUTO falls back to the emulator (and says why in
 * *note, caller frees, may be NULL). */
Backend *backend_open(BackendChoice choice, const EmuOptions *emu, Diag **why, char **note);
void backend_close(Backend **b);
BackendChoice backend_choice_parse(const char *s, bool *ok);

#endif
