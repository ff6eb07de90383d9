// tests/emurt/programs/events.cu: kernel printf comes out at the next
// synchronisation point (after the host's line before it); a loop polling
// cudaEventQuery ends; the modeled elapsed time is positive; streams and
// async copies report their stream in the call records.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void busy(float *x, int n, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        for (int r = 0; r < rounds; r++) x[i] = x[i] * 0.5f + 1.0f;
    if (i == 0) printf("kernel says hello from block %d\n", blockIdx.x);
}

int main(void) {
    const int n = 1 << 16;
    float *d_x, *h_x;
    cudaMallocHost(&h_x, n * sizeof(float));
    cudaMalloc(&d_x, n * sizeof(float));
    for (int i = 0; i < n; i++) h_x[i] = 0;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a, s);
    cudaMemcpyAsync(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice, s);
    busy<<<n / 256, 256, 0, s>>>(d_x, n, 64);
    cudaMemcpyAsync(h_x, d_x, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaEventRecord(b, s);
    printf("host before the wait\n");
    long polls = 0;
    while (cudaEventQuery(b) == cudaErrorNotReady) polls++;
    printf("polled: %s\n", polls >= 0 ? "done" : "never");
    cudaStreamSynchronize(s);
    float ms = -1;
    cudaError_t e = cudaEventElapsedTime(&ms, a, b);
    printf("elapsed: %s, positive: %s\n", cudaGetErrorName(e), ms > 0 ? "yes" : "no");
    printf("x[5] = %.4f\n", h_x[5]);
    cudaStreamDestroy(s);
    return 0;
}
