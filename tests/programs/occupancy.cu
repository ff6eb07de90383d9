// tests/programs/occupancy.cu: the occupancy calculator.
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for block sizes and dynamic
// shared memory where the answer is fixed by compute capability 9.0's limits
// (2048 threads, 32 blocks, 228 KiB of shared memory with 1 KiB reserved per
// block), not by the compiler's register count: the kernel is small (far
// below 32 registers a thread). cudaOccupancyMaxPotentialBlockSize: the block
// size, and the minimum grid only as a multiple of the SM count.
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

__global__ void scale(float *x, int n, float a) {
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
    if (i == 0 && n < 0) tile[0] = a;  // uses dynamic shared memory without needing it
}

int main(void) {
    cudaDeviceProp p;
    cudaCheck(cudaGetDeviceProperties(&p, 0));
    int failures = 0;
    struct { int block; size_t smem; int want; } cases[] = {
        {1024, 0, 2}, {512, 0, 4}, {256, 0, 8}, {128, 0, 16}, {64, 0, 32}, {32, 0, 32},
        {128, 48 * 1024, 4}, {128, 32 * 1024, 6}, {256, 16 * 1024, 8}, {96, 0, 21},
    };
    for (auto &c : cases) {
        int blocks = -1;
        cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale, c.block, c.smem));
        int warps = blocks * ((c.block + 31) / 32);
        printf("block %4d, dynamic shared %6zu: %2d blocks per SM, %2d of %d warps\n", c.block, c.smem, blocks,
               warps, p.maxThreadsPerMultiProcessor / 32);
        failures += blocks != c.want;
    }

    int min_grid = -1, block = -1;
    cudaCheck(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scale, 0, 0));
    printf("max potential block size: %d\n", block);
    printf("its minimum grid is 2 blocks per SM: %s\n", min_grid == 2 * p.multiProcessorCount ? "yes" : "no");
    failures += block != 1024 || min_grid != 2 * p.multiProcessorCount;

    cudaCheck(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scale, 0, 256));
    printf("with a block size limit of 256: %d\n", block);
    printf("its minimum grid is 8 blocks per SM: %s\n", min_grid == 8 * p.multiProcessorCount ? "yes" : "no");
    failures += block != 256 || min_grid != 8 * p.multiProcessorCount;

    // the answer is what a launch of that shape can actually use
    float *d;
    cudaCheck(cudaMalloc(&d, 1024 * sizeof(float)));
    cudaCheck(cudaMemset(d, 0, 1024 * sizeof(float)));
    scale<<<1, block, 48 * 1024>>>(d, 1024, 2.0f);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaFree(d));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
