/* kernels/emu/emu_trace.h: the warp debugger's recorder — one warp of one
 * block, followed through a launch, for replay.
 *
 * Arm the emulator Backend with a request (which block, which warp, which
 * kernel), run the exercise as usual, then take the trace: the launch runs
 * exactly as it would untraced (every block, every check), and the chosen
 * warp leaves a step at every change of source line and at every barrier:
 * the line, the lanes that run it, the values per lane of the kernel's
 * named variables, the block's shared memory (when it changed), and every
 * memory instruction's 32 lane addresses in between. Replaying the steps
 * is stepping forward and back for free (cudojo debug, the debugger screen;
 * the access map reads the memory records).
 *
 * Variable names: NVRTC's -lineinfo PTX has only line numbers (-G's DWARF
 * describes -G's different code), so a variable is a name assigned on a
 * source line ("int i = ...", "sum += ...", "for (int k = 0; ...") bound
 * to the register the last executed instruction of one of its lines wrote.
 *
 * The trace is bounded (EmuTraceRequest.cap_bytes); a trace cut short says
 * so in `note`. Nothing in here is an emulator internal: app/ and lua/ use
 * it through these types and functions only. */
#ifndef CUDOJO_KERNELS_EMU_TRACE_H
#define CUDOJO_KERNELS_EMU_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "kernels/backend.h"

#define EMU_TRACE_DEFAULT_CAP ((size_t)64 << 20)
#define EMU_TRACE_MAX_VARS 24

typedef struct EmuTraceRequest {
    unsigned block[3];       /* the block to follow */
    int warp;                /* its warp (threads 32·warp ... 32·warp+31) */
    const char *kernel;      /* trace the first launch of this kernel (exercise or PTX name); NULL: the first launch */
    size_t cap_bytes;        /* bound on the trace; 0 = EMU_TRACE_DEFAULT_CAP */
    bool stop_after;         /* once the traced launch is over, refuse every later launch: the
                                debugger needs nothing after it, and a warp switch records again */
} EmuTraceRequest;

typedef enum EmuStepKind {
    EMU_STEP_LINE = 0,       /* the warp is about to run `line` */
    EMU_STEP_BARRIER,        /* lanes `active` arrive at the __syncthreads() on `line` */
    EMU_STEP_END,            /* the warp has finished (every lane exited) */
} EmuStepKind;

/* How a variable's value reads (from the instruction that wrote its register). */
typedef enum EmuValKind { EMU_VAL_INT = 0, EMU_VAL_UINT, EMU_VAL_F32, EMU_VAL_F64, EMU_VAL_HEX, EMU_VAL_F16 } EmuValKind;

typedef struct EmuTraceStep {
    int line;                /* the learner's source line */
    uint8_t kind;            /* EmuStepKind */
    uint32_t active;         /* lanes that run it (an instruction of the line, its guard true);
                              * the others are diverged, predicated off or done */
    uint32_t live;           /* lanes that have not exited */
    uint64_t instructions;   /* warp-instructions this warp ran before the step */
    uint64_t findings;       /* findings of the block so far (a rise: the line before made one) */
    int32_t shared;          /* index of the shared-memory snapshot in force; -1 none */
    uint32_t mem_first;      /* the first memory record made while this step's line ran (emu_trace_mem_of) */
} EmuTraceStep;

/* One variable at one step: its value per lane, which lanes have one. */
typedef struct EmuTraceVal {
    uint64_t lane[32];
    uint32_t set;            /* lanes whose value is the variable's (0: not assigned yet) */
    uint8_t kind;            /* EmuValKind */
} EmuTraceVal;

/* One memory instruction of the warp: 32 lane addresses (lanes in `mask`). */
typedef struct EmuTraceMem {
    int step;                /* the step (line) during which it ran */
    int line;
    uint8_t space;           /* EMU_MEM_GLOBAL, _SHARED, _LOCAL (generic resolved by its address) */
    uint8_t op;              /* EMU_MEM_LOAD, _STORE, _ATOMIC */
    uint8_t width;           /* bytes per lane (vector loads: the whole vector) */
    uint32_t mask;
    uint64_t addr[32];       /* global: device address; shared: byte offset in the block's shared memory */
} EmuTraceMem;

enum { EMU_MEM_GLOBAL = 0, EMU_MEM_SHARED, EMU_MEM_LOCAL };
enum { EMU_MEM_LOAD = 0, EMU_MEM_STORE, EMU_MEM_ATOMIC };

/* An array the traced launch could touch, to name an address "out[17]"
 * (the access map): a device allocation (its Lua name or the runtime's
 * label) or a shared-memory variable of the kernel. */
typedef struct EmuTraceRegion {
    char name[48];
    uint8_t space;           /* EMU_MEM_GLOBAL or EMU_MEM_SHARED */
    uint64_t base, size;     /* global: device address; shared: byte offset in the block's shared memory */
    uint32_t elem;           /* bytes per element (shared: guessed from the alignment) */
} EmuTraceRegion;

/* What the kernel's code has on a source line (EmuTrace.line_flags). */
enum { EMU_LINE_CODE = 1, EMU_LINE_MEM = 2 };   /* MEM: a global, shared or generic load, store or atomic */

/* A finding of the traced launch (any block), for the screen. */
typedef struct EmuTraceFinding {
    int line;
    bool error;
    bool has_thread;
    unsigned block[3], thread[3];
    char *code, *message;
} EmuTraceFinding;

typedef struct EmuTrace {
    char *kernel;            /* PTX name of the traced kernel */
    Dim3 grid, block;        /* the launch */
    unsigned block_idx[3];   /* the block followed */
    int warp, n_warps;       /* the warp followed, warps per block */
    int n_vars;
    char (*var_names)[32];
    EmuTraceStep *steps;
    int n_steps;
    EmuTraceVal *vals;       /* n_steps × n_vars */
    unsigned char *shared;   /* n_shared snapshots of shared_size bytes */
    size_t shared_size;
    int n_shared;
    EmuTraceMem *mem;
    int n_mem;
    EmuTraceFinding *findings;
    int n_findings;
    int *line_var;           /* per source line (0..max_line): the variable assigned there, -1 none */
    int max_line;
    uint8_t *line_flags;     /* per source line (0..max_line): EMU_LINE_* of the kernel's code */
    EmuTraceRegion *regions; /* the device's allocations and the kernel's shared variables at launch */
    int n_regions;
    bool truncated;          /* the cap stopped the recording */
    char *note;              /* why the trace is short or empty; NULL when whole */
} EmuTrace;

/* Arms the emulator backend `b` to trace the next launch that matches rq
 * (a launch of another kernel runs untraced). An error when b is not the
 * emulator. A second arm replaces the first. Arm and take are defined in
 * emu_backend.c, which holds the recorder. */
Diag *emu_trace_arm(Backend *b, const EmuTraceRequest *rq);
/* The trace of the armed launch (caller frees), and disarms; NULL when no
 * launch matched. A launch whose grid lacks the block, or whose blocks lack
 * the warp, gives a trace with no steps and a note saying so. */
EmuTrace *emu_trace_take(Backend *b);
void emu_trace_free(EmuTrace **t);

/* The variable values at step s (n_vars of them). */
static inline const EmuTraceVal *emu_trace_vals(const EmuTrace *t, int s) {
    return t->vals + (size_t)s * (size_t)t->n_vars;
}
/* The shared-memory snapshot in force at step s, NULL when none. */
const unsigned char *emu_trace_shared_at(const EmuTrace *t, int s);
/* Memory records that ran while step s's line ran: [*first, *end). */
void emu_trace_mem_of(const EmuTrace *t, int s, int *first, int *end);
/* The first step at `line` (from step `from` on, wrapping no), -1 none. */
int emu_trace_find_line(const EmuTrace *t, int line, int from);
/* The step whose line made the block's first finding (the step before the
 * count rises), -1 none. */
int emu_trace_find_finding(const EmuTrace *t);
/* The next barrier step after s (or the last step). */
int emu_trace_next_barrier(const EmuTrace *t, int s);
/* Formats lane `lane` of v into buf ("12", "3.5", "0x7f..."; "-" when unset). */
void emu_trace_format(const EmuTraceVal *v, int lane, char *buf, size_t n);
/* Bytes the trace holds (what cap_bytes bounds). */
size_t emu_trace_bytes(const EmuTrace *t);

/* The source-line parser behind variable names: the name a line assigns
 * ("int i = ..." → i, "s >>= 1" → s, "a[i] = ..." → none); false when none.
 * Exposed for tests. */
bool emu_trace_assigned_name(const char *line, size_t len, char *name, size_t n);

#endif
