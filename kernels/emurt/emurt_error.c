/* kernels/emurt/emurt_error.c: cudaGetLastError / cudaPeekAtLastError /
 * cudaGetErrorName / cudaGetErrorString (the names and strings are
 * emurt_error_names.c's). */
#include "kernels/emurt/emurt_internal.h"

cudaError_t cudaGetLastError(void) {
    rt_enter_pure();
    cudaError_t e = rt_last_error_get(true);
    rt_leave("cudaGetLastError", e, 0, "%s", "");
    rt_last_error_set(cudaSuccess); /* returning the error is not a new one */
    return e;
}

cudaError_t cudaPeekAtLastError(void) {
    rt_enter_pure();
    cudaError_t e = rt_last_error_get(false);
    rt_leave("cudaPeekAtLastError", e, 0, "%s", "");
    rt_last_error_set(e);
    return e;
}

const char *cudaGetErrorName(cudaError_t e) {
    rt_enter_pure();
    rt_leave("cudaGetErrorName", cudaSuccess, 0, "%d", (int)e);
    return rt_error_name(e);
}

const char *cudaGetErrorString(cudaError_t e) {
    rt_enter_pure();
    rt_leave("cudaGetErrorString", cudaSuccess, 0, "%d", (int)e);
    return rt_error_string(e);
}
