/* kernels/emu/emu_run.h: one launch on the emulator (emu_run.c). */
#ifndef CUDOJO_KERNELS_EMU_RUN_H
#define CUDOJO_KERNELS_EMU_RUN_H

#include "kernels/emu/emu_internal.h"

#define EMU_SHARED_DEFAULT ((size_t)48 * 1024)
#define EMU_SHARED_OPTIN ((size_t)227 * 1024)
#define EMU_DEFAULT_BUDGET 1000000000ull

typedef struct EmuRunRequest {
    const Kernel *kernel;
    AllocTable *allocs;
    const LaunchConfig *cfg;
    const KernelArg *args;
    int nargs;
    const EmuOptions *opts;
    const char *source_path, *source;
    unsigned char *heap;
    size_t heap_size;
    const unsigned char *params_raw; /* the whole parameter buffer instead of args (NULL: use args) */
    size_t params_raw_size;
    struct EmuTraceRec *trace;       /* the armed recorder when it wants this launch (emu_trace.c), else NULL */
    struct EmuPool **pool;           /* the Backend's host threads (emu_pool.h), made on first use; NULL:
                                        the launching thread alone */
} EmuRunRequest;

/* Validates the configuration like a GPU launch (returns the Diag a failed
 * launch gives), runs every block, and fills *report. */
Diag *emu_run(const EmuRunRequest *rq, LaunchReport *report);

#endif
