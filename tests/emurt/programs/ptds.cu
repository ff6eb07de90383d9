// tests/emurt/programs/ptds.cu: built with --default-stream per-thread, a
// program calls the _ptds/_ptsz entry points (cudaMemcpyToSymbol_ptds,
// cudaMemcpy2DAsync_ptsz, ...): they must work, not fall to a stub.
#include <cstdio>
#include <cuda_runtime.h>
__constant__ float coef[4];
__device__ float out[4];
__global__ void k() { out[threadIdx.x] = coef[threadIdx.x] * 2; }
int main() {
    float h[4] = {1, 2, 3, 4}, r[4];
    printf("to symbol: %s\n", cudaGetErrorName(cudaMemcpyToSymbol(coef, h, sizeof h)));
    k<<<1, 4>>>();
    printf("from symbol: %s\n", cudaGetErrorName(cudaMemcpyFromSymbol(r, out, sizeof r)));
    float *d; size_t pitch;
    cudaMallocPitch(&d, &pitch, 4 * sizeof(float), 2);
    printf("2D: %s\n", cudaGetErrorName(cudaMemcpy2D(d, pitch, h, 8, 8, 2, cudaMemcpyHostToDevice)));
    cudaStream_t s; cudaStreamCreate(&s);
    printf("2D async: %s\n", cudaGetErrorName(cudaMemcpy2DAsync(h, 8, d, pitch, 8, 2, cudaMemcpyDeviceToHost, s)));
    cudaStreamSynchronize(s);
    printf("%g %g %g %g | %g %g\n", r[0], r[1], r[2], r[3], h[0], h[3]);
}
