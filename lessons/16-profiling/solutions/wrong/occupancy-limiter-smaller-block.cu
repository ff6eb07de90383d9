// occupancy-limiter.cu: what limits how many blocks an SM holds?
//
//   nvcc -O2 -lineinfo -DN=16777216 occupancy-limiter.cu -o occupancy-limiter && ./occupancy-limiter
//
// An SM holds as many blocks of a kernel as its scarcest resource allows:
// threads (2048 per SM on sm_90), blocks (32), registers (65536) or shared
// memory (228 KiB, and 1 KiB more per block for the system).
//
// TODO: run it and read "blocks per SM" (and the kernel's registers and
// shared memory in cudojo's report). Predict what limits sum3's occupancy
// (PREDICT_LIMITER), then change sum3 so that an SM holds all 64 warps
// (at least 75% occupancy), without changing BLOCK or the results.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// Your prediction: what limited sum3's occupancy, "threads", "blocks",
// "registers" or "shared"?
#define PREDICT_LIMITER "shared"

#ifndef N
#define N 65536
#endif
#define BLOCK 128
#define TILE 12288          // floats in sum3's shared tile

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// y[i] = x[i-1] + x[i] + x[i+1] (0 outside), through a shared tile
__global__ void sum3(const float *x, float *y, int n)
{
    __shared__ float tile[TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x + 1;
    tile[t] = i < n ? x[i] : 0.0f;
    if (threadIdx.x == 0) tile[0] = i > 0 && i - 1 < n ? x[i - 1] : 0.0f;
    if (threadIdx.x == blockDim.x - 1) tile[t + 1] = i + 1 < n ? x[i + 1] : 0.0f;
    __syncthreads();
    if (i < n) y[i] = tile[t - 1] + tile[t] + tile[t + 1];
}

int main(void)
{
    size_t bytes = (size_t)N * sizeof(float);
    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes);
    if (!h_x || !h_y) return EXIT_FAILURE;
    for (int i = 0; i < N; i++) h_x[i] = (float)(i % 1024) / 1024.0f;
    float *d_x, *d_y;
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));

    // what the runtime's occupancy calculator says (cuda_occupancy.h's rules)
    int blocks_per_sm = 0;
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, sum3, BLOCK, 0));
    printf("blocks per SM: %d (%d of 64 warps)\n", blocks_per_sm, blocks_per_sm * BLOCK / 32);
    printf("PREDICT: limiter=%s\n", PREDICT_LIMITER);

    sum3<<<(N + BLOCK - 1) / BLOCK, BLOCK>>>(d_x, d_y, N);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    int wrong = 0;
    double sum = 0;
    for (int i = 0; i < N; i++) {
        float want = (i > 0 ? h_x[i - 1] : 0.0f) + h_x[i] + (i + 1 < N ? h_x[i + 1] : 0.0f);
        if (h_y[i] != want && wrong++ == 0) printf("y[%d] = %f, want %f\n", i, h_y[i], want);
        sum += h_y[i];
    }
    printf("sum of y: %.4f\n", sum);
    if (wrong) { printf("FAIL: %d wrong\n", wrong); return EXIT_FAILURE; }
    printf("PASS\n");
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_y);
    return EXIT_SUCCESS;
}
