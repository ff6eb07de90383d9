// tests/emurt/programs/uninit.cu: cudaMalloc memory holds nothing until a
// copy, memset or kernel writes it. `sum` reads d_b, of which only the first
// half was copied in: the emulator runtime reports the read of b[512] on
// line 12; d_a (copied in whole) and d_c (memset) read cleanly.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void sum(const float *a, const float *b, const float *c, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i] + c[i];
    out[i] = x + b[i];
}

int main() {
    const int n = 1024;
    float h[n];
    for (int i = 0; i < n; i++) h[i] = 1.0f;
    float *d_a, *d_b, *d_c, *d_out;
    cudaMalloc(&d_a, n * sizeof(float));
    cudaMalloc(&d_b, n * sizeof(float));
    cudaMalloc(&d_c, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_a, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h, n / 2 * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_c, 0, n * sizeof(float));
    sum<<<n / 256, 256>>>(d_a, d_b, d_c, d_out, n);
    printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
