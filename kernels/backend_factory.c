/* kernels/backend_factory.c: choosing and opening a backend (the GPU when
 * one works, else the emulator), and the GPU's part of `cudojo doctor`. The
 * only file outside kernels/cuda/ that names the GPU backend's functions
 * (tests/kernels/test_no_side_doors.sh checks it). Its own object, so the
 * emulator runtime (kernels/emurt), which links the engine's archive and
 * never opens a GPU, does not pull it in. */
#include "kernels/backend.h"

#include <stdlib.h>

#include "base/xalloc.h"
#include "kernels/cuda/cuda_backend.h"

Backend *backend_open(BackendChoice choice, const EmuOptions *emu, Diag **why, char **note) {
    *why = NULL;
    if (note) *note = NULL;
    if (choice == BACKEND_EMU) return emu_backend_new(emu, why);
    Diag *gpu_why = NULL;
    Backend *b = cuda_backend_new(&gpu_why);
    if (b || choice == BACKEND_CUDA) {
        *why = gpu_why;
        return b;
    }
    if (note) *note = xasprintf("no GPU (%s): using the emulator", gpu_why ? gpu_why->message : "unknown");
    diag_free(&gpu_why);
    return emu_backend_new(emu, why);
}

int backend_gpu_count(void) { return cuda_gpu_count(); }

json_t *backend_gpu_probe(void) { return cuda_doctor_probe(); }
