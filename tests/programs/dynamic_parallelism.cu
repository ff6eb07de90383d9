// tests/programs/dynamic_parallelism.cu: a kernel that launches kernels
// (CUDA dynamic parallelism, built with -rdc=true and cudadevrt): a parent
// launches one child grid per block to fill its slice, and the host checks
// every element. The emulator runtime does not run separately compiled
// programs: there it must fail, saying so.
// cudojo: nvcc=-rdc=true -lcudadevrt
// cudojo: emu-fails=-rdc
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

__global__ void child(int *slice, int n, int base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) slice[i] = base + i * 2;
}

__global__ void parent(int *data, int per_block) {
    if (threadIdx.x == 0) {
        int *slice = data + blockIdx.x * per_block;
        child<<<(per_block + 63) / 64, 64>>>(slice, per_block, blockIdx.x * 1000);
    }
}

int main(void) {
    const int blocks = 4, per = 100, n = blocks * per;
    int *d, h[n];
    cudaCheck(cudaMalloc(&d, sizeof h));
    cudaCheck(cudaMemset(d, 0, sizeof h));
    parent<<<blocks, 32>>>(d, per);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != (i / per) * 1000 + (i % per) * 2;
    printf("h[0] %d, h[150] %d, h[399] %d, wrong %d\n", h[0], h[150], h[399], bad);
    cudaCheck(cudaFree(d));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
