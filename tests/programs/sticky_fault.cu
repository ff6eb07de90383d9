// tests/programs/sticky_fault.cu: a kernel that faults and the sticky error
// it leaves. An out-of-bounds write just past an allocation may not fault on
// a GPU (the page can be mapped), so the fault here is a store through a
// null pointer, which faults on every GPU: the launch itself succeeds, the
// fault surfaces at the next synchronizing call as cudaErrorIllegalAddress,
// and from then on every runtime call that does work fails with it. The
// last-error slot is not special: cudaGetLastError returns the fault once
// and then cudaSuccess (so does cudaPeekAtLastError), while cudaMalloc,
// cudaMemcpy, launches and synchronizing calls keep failing (measured on the
// H200). The process must end to recover; this one just reports and exits.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void store(int *p, int v) { p[threadIdx.x] = v; }

static int failures = 0;

static void expect(const char *what, cudaError_t got, cudaError_t want) {
    printf("%-40s %s\n", what, cudaGetErrorName(got));
    if (got != want) failures++;
}

int main(void) {
    int *d_x, h[32];
    cudaCheck(cudaMalloc(&d_x, 32 * sizeof(int)));
    store<<<1, 32>>>(d_x, 7);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h, d_x, sizeof h, cudaMemcpyDeviceToHost));
    printf("before the fault: h[31] = %d\n", h[31]);

    int *nowhere = NULL;  // a kernel argument: the compiler cannot see it is null
    store<<<1, 32>>>(nowhere, 1);
    // cudaGetLastError right here is not printed: on a GPU the fault may or may not
    // have been noticed yet when it runs.
    expect("cudaDeviceSynchronize:", cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    expect("cudaGetLastError:", cudaGetLastError(), cudaErrorIllegalAddress);
    expect("cudaGetLastError again (slot cleared):", cudaGetLastError(), cudaSuccess);
    expect("cudaPeekAtLastError:", cudaPeekAtLastError(), cudaSuccess);
    int *d_y = NULL;
    expect("cudaMalloc:", cudaMalloc(&d_y, 64), cudaErrorIllegalAddress);
    expect("cudaMemcpy:", cudaMemcpy(h, d_x, sizeof h, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
    store<<<1, 32>>>(d_x, 9);
    expect("a launch, then cudaGetLastError:", cudaGetLastError(), cudaErrorIllegalAddress);
    expect("cudaStreamSynchronize(0):", cudaStreamSynchronize(0), cudaErrorIllegalAddress);
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
// cudojo: emu-errors=that is a null (or nearly null) pointer
