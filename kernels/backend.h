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
} LaunchConfig;

/* Emulator execution modes (ignored by the GPU backend). */
typedef struct EmuOptions {
    int threads;                    /* host threads for blocks; 0 = all cores */
    bool deterministic;             /* single thread, fixed warp order */
    bool adversarial;               /* shuffled warp order, poisoned uninitialised shared memory */
    bool metrics;                   /* collect per-line metrics (coalescing, banks, divergence) */
    bool checks;                    /* races, uninitialised reads (bounds are always checked) */
    uint64_t instruction_budget;    /* per launch, warp-instructions; 0 = default */
} EmuOptions;

typedef struct LaunchReport {
    Diag *findings;                 /* errors/warnings with the learner's file:line, block, thread */
    json_t *metrics;                /* object or NULL: {"totals":{...}, "lines":[...]} (emulator),
                                       {"ms_median":..,"ms_min":..,"reps":..} (GPU) */
    char *device_output;            /* printf output in order, NULL if none */
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
    Diag *(*module_load)(Backend *b, const CompiledModule *m, BackendModule **out);
    void (*module_unload)(Backend *b, BackendModule **m);
    /* Runs kernel `kernel` (the exercise's name; resolved through the module's
     * KernelInfo). A failed launch returns a Diag; findings of a launch that
     * ran (races, out-of-bounds, uncoalesced) go into report->findings. The
     * caller owns what report holds afterwards (launch_report_fini). */
    Diag *(*launch)(Backend *b, BackendModule *m, const char *kernel, const LaunchConfig *cfg,
                    const KernelArg *args, int nargs, LaunchReport *report);
    /* Device-to-device copy bandwidth in GB/s (bytes read + written per second),
     * measured once and cached; < 0 when not measurable (emulator). */
    double (*peak_copy_gbs)(Backend *b);
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

/* The backends. Each returns NULL and sets *why when it cannot work here
 * (no GPU: "CUDA driver version is insufficient for CUDA runtime version"). */
Backend *cuda_backend_new(Diag **why);
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
