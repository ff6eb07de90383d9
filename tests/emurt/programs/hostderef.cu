// tests/emurt/programs/hostderef.cu: host code that reads device memory
// crashes on a GPU; on the emulator runtime too, with a finding that names
// the allocation. Kernels, copies and pinned memory keep working around it.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void set(int *x, int v) { x[threadIdx.x] = v + threadIdx.x; }

int main(void) {
    int *d_x, *h_p, h[32];
    cudaMalloc(&d_x, 32 * sizeof(int));
    cudaMallocHost(&h_p, 32 * sizeof(int));
    set<<<1, 32>>>(d_x, 100);
    cudaMemcpy(h, d_x, sizeof h, cudaMemcpyDeviceToHost);
    h_p[0] = 7;
    printf("copied back: %d %d, pinned %d\n", h[0], h[31], h_p[0]);
    fflush(stdout);
    printf("read on the host: %d\n", d_x[4]);
    return 0;
}
