/* kernels/emu/emu_backend.c: PLACEHOLDER until the emulator lands (issue 3). */
#include "kernels/backend.h"

Backend *emu_backend_new(const EmuOptions *opts, Diag **why) {
    (void)opts;
    *why = diag_error("backend", "the PTX emulator is not built yet");
    return NULL;
}
