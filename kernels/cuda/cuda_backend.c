/* kernels/cuda/cuda_backend.c: PLACEHOLDER until the GPU backend lands. */
#include "kernels/backend.h"

Backend *cuda_backend_new(Diag **why) {
    *why = diag_error("backend", "the GPU backend is not built yet");
    return NULL;
}
