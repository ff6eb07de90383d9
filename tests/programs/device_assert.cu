// tests/programs/device_assert.cu: assert() in device code. One thread
// (block 2, thread 13) fails its assertion; the failed assertion with its
// block and thread goes to stderr (not compared) when the host synchronizes,
// the kernel stops, cudaDeviceSynchronize returns cudaErrorAssert, and the
// error is sticky like a fault: calls that do work keep failing with it,
// while cudaGetLastError returns it once and then cudaSuccess (H200).
// Exactly one thread fails, so the run is the same every time.
#include <cassert>
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

__global__ void check_positive(const int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assert(x[i] >= 0);
}

static int failures = 0;

static void expect(const char *what, cudaError_t got, cudaError_t want) {
    printf("%-36s %s\n", what, cudaGetErrorName(got));
    if (got != want) failures++;
}

int main(void) {
    const int n = 128;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = i;
    int *d_x;
    cudaCheck(cudaMalloc(&d_x, sizeof h));
    cudaCheck(cudaMemcpy(d_x, h, sizeof h, cudaMemcpyHostToDevice));
    check_positive<<<4, 32>>>(d_x, n);
    expect("all positive:", cudaDeviceSynchronize(), cudaSuccess);

    h[77] = -1;  // block 2, thread 13
    cudaCheck(cudaMemcpy(d_x, h, sizeof h, cudaMemcpyHostToDevice));
    fflush(stdout);
    check_positive<<<4, 32>>>(d_x, n);
    cudaError_t e = cudaDeviceSynchronize();
    fflush(stdout);
    expect("one negative, synchronize:", e, cudaErrorAssert);
    expect("cudaGetLastError:", cudaGetLastError(), cudaErrorAssert);
    expect("cudaGetLastError again (slot cleared):", cudaGetLastError(), cudaSuccess);
    expect("cudaMemcpy afterwards:", cudaMemcpy(h, d_x, sizeof h, cudaMemcpyDeviceToHost), cudaErrorAssert);
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
// cudojo: emu-errors=Assertion `x[i] >= 0` failed
