// tests/emurt/programs/oob.cu: an off-by-one write the emulator must name
// (the learner's file and line, "c[1000]", block and thread), then the
// sticky error a GPU gives for a faulting access: cudaErrorIllegalAddress
// from the next synchronising call on, for every later call too;
// cudaGetLastError returns it once and then cudaSuccess (as the H200 does).
// On the H200 this small overrun itself does not fault (it lands in the
// allocation's padding): the emulator is stricter on purpose.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) c[i] = 1.0f;
}

int main(void) {
    const int n = 1000;
    float *d_c;
    cudaMalloc(&d_c, n * sizeof(float));
    fill<<<4, 256>>>(d_c, n);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    float *d_more;
    printf("malloc after the fault: %s\n", cudaGetErrorName(cudaMalloc(&d_more, 16)));
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    printf("last error again (cleared): %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("synchronize again (sticky): %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
