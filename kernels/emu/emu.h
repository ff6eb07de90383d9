/* kernels/emu/emu.h: the PTX emulator's entry points beyond the Backend.
 *
 * emu_backend_new() (declared in kernels/backend.h) is the way in for the
 * rest of cudojo. This header adds what tests and the fuzz target need:
 * running the PTX parser and decoder alone on arbitrary text. */
#ifndef CUDOJO_KERNELS_EMU_EMU_H
#define CUDOJO_KERNELS_EMU_EMU_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "kernels/backend.h"

/* Parses and decodes `len` bytes of PTX (need not be NUL-terminated) the way
 * module_load does, then throws the result away. Returns NULL when every
 * entry decodes, else a Diag naming the PTX line and the instruction. Never
 * crashes or asserts on any input. Caller frees the Diag. */
Diag *emu_parse_check(const char *ptx, size_t len);

/* Whether a PTX `.file` path is one of the CUDA toolkit's or the system's
 * headers (Thrust, CUB, cuda_runtime.h, /usr/include), not the learner's.
 * The learner's source is the first `.file` that is not: nvcc numbers files
 * as it meets them, and a Thrust program's first is a Thrust header. */
bool emu_ptx_toolkit_file(const char *path);

/* ---- for the emulator runtime (kernels/emurt/), which launches kernels
 * the way a CUDA program does: by parameter buffer, and touches module
 * variables by name ---- */
typedef struct EmuKernelInfo {
    int n_params;
    const size_t *param_offsets, *param_sizes;  /* valid while the module is loaded */
    size_t param_size;              /* bytes of the whole parameter buffer */
    int first_line;                 /* the learner's line of the kernel's first instruction; 0 unknown */
    size_t shared_static, local_size;
    int n_regs;                     /* the emulator's registers (not ptxas's) */
    int maxntid;                    /* __launch_bounds__ product, 0 none */
} EmuKernelInfo;

/* Fills *out for `kernel` (its PTX entry name); false when the module has no such kernel. */
bool emu_module_kernel_info(const BackendModule *m, const char *kernel, EmuKernelInfo *out);
/* Host address and size of the module's .global/.const variable `name`; false when absent. */
bool emu_module_var(const BackendModule *m, const char *name, DevPtr *addr, size_t *size);
/* The launch of BackendOps.launch with the kernel's parameter buffer as CUDA
 * builds it (`size` bytes, laid out as emu_module_kernel_info says) instead
 * of KernelArgs, so parameters of any size (structs) pass. */
Diag *emu_launch_raw(Backend *b, BackendModule *m, const char *kernel, const LaunchConfig *cfg, const void *params,
                     size_t size, LaunchReport *report);
/* Puts a copy or memset on the modeled timeline without doing it (the
 * runtime does strided and peer copies itself; managed-memory migrations).
 * `name` may be NULL. */
void emu_model_copy(Backend *b, CopyDir dir, int stream, size_t bytes, bool pinned, const char *name);
void emu_model_memset(Backend *b, int stream, size_t bytes, bool async, const char *name);
/* Brackets the replay of one graph launch: its operations are graph nodes
 * on the modeled timeline (one host cost for the launch, smaller gaps
 * between kernel nodes: kernels/costmodel.h). */
void emu_model_graph_begin(Backend *b);
void emu_model_graph_end(Backend *b);
/* cudaStreamQuery and cudaStreamWaitEvent on the modeled timeline. */
Diag *emu_stream_query(Backend *b, int stream, bool *done);
Diag *emu_stream_wait_event(Backend *b, int stream, int event);
/* The modeled host clock (µs) and moving it on to `us` without an entry:
 * the emulator runtime keeps one host clock over its devices. */
double emu_model_host_now(Backend *b);
void emu_model_host_catch_up(Backend *b, double us);
/* Names the allocation that starts at `p` in findings ("c[1000]"). */
void emu_alloc_set_label(Backend *b, DevPtr p, const char *label);

#endif
