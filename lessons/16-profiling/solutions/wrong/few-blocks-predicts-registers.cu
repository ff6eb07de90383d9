// few-blocks.cu: theoretical occupancy says 100%, the GPU is mostly idle.
//
//   nvcc -O2 -lineinfo -DN=16777216 few-blocks.cu -o few-blocks && ./few-blocks
//
// Theoretical occupancy is what one SM COULD hold (here all 64 warps: 8
// blocks of 256 threads). Achieved occupancy is what it held on average,
// and a grid of 66 blocks on a 132-SM GPU leaves half the SMs empty and the
// other half at 8 of 64 warps, however good the theory. The grid-stride
// loop lets any grid cover the array, so size the grid to the GPU: SMs x
// blocks per SM (from cudaGetDeviceProperties and the occupancy
// calculator).
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// Your prediction: why is achieved occupancy far below theoretical,
// "registers", "shared" or "few-blocks"?
#define PREDICT_GAP "registers"

#ifndef N
#define N 1048576
#endif
#define WORK 64     // steps per element: enough arithmetic to keep warps busy
#define BLOCK 256

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// y[i] = 2 x[i], the long way (every step is exact), grid-stride
__global__ void work(const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float half = 0.5f * x[i], acc = x[i];
        for (int k = 0; k < WORK; k++) acc = fmaf(acc, 0.5f, half);
        y[i] = 2.0f * acc;
    }
}

static int grid_for_the_gpu(void)
{
    cudaDeviceProp prop;
    cudaCheck(cudaGetDeviceProperties(&prop, 0));
    int per_sm = 0;
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, work, BLOCK, 0));
    return prop.multiProcessorCount * per_sm;   // one full wave
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

    work<<<66, BLOCK>>>(d_x, d_y, N);          // the baseline: half the SMs
    int grid = grid_for_the_gpu();
    work<<<grid, BLOCK>>>(d_x, d_y, N);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));

    int wrong = 0;
    double sum = 0;
    for (int i = 0; i < N; i++) {
        if (h_y[i] != 2.0f * h_x[i] && wrong++ == 0) printf("y[%d] = %f, want %f\n", i, h_y[i], 2.0f * h_x[i]);
        sum += h_y[i];
    }
    printf("sum of y: %.4f\n", sum);
    printf("PREDICT: gap=%s\n", PREDICT_GAP);
    if (wrong) { printf("FAIL: %d wrong\n", wrong); return EXIT_FAILURE; }
    printf("PASS\n");
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_y);
    return EXIT_SUCCESS;
}
