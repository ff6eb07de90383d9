// tests/programs/printf_kernel.cu: printf inside kernels. The order of lines
// from different threads is not defined, so each kernel prints from one
// thread (a loop) or from one warp whose lines are collected and sorted on
// the host instead. Device output appears when the host synchronizes; host
// output is flushed before each launch so the two interleave the same way on
// every runtime. Formats: %d %u %x %ld %f %.3f %e %s %c %p-free.
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

__global__ void hello(int n) {
    if (blockIdx.x == 1 && threadIdx.x == 3) {
        printf("hello from block %d thread %d of %d blocks x %d threads\n", blockIdx.x, threadIdx.x, gridDim.x,
               blockDim.x);
        for (int i = 0; i < n; i++) printf("  line %d: %d squared is %d\n", i, i, i * i);
    }
}

__global__ void formats(const float *x) {
    if (threadIdx.x != 0) return;
    printf("int %d, negative %d, unsigned %u, hex %x, long %ld\n", 42, -7, 4000000000u, 0xbeef, 1234567890123L);
    printf("float %f, %.3f, %e, %g\n", x[0], x[1], x[2], x[3]);
    printf("string %s, char %c, width [%5d] [%-5d] [%05.1f]\n", "cuda", 'K', 17, 17, 3.14159f);
    printf("percent %% and no arguments\n");
}

__global__ void count_lines(int *lines) {
    // every thread of one warp computes something, only lane 0 prints the warp's total
    int v = threadIdx.x * 3;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x == 0) {
        printf("warp total %d\n", v);
        *lines = 1;
    }
}

int main(void) {
    printf("host: before the first kernel\n");
    fflush(stdout);
    hello<<<2, 4>>>(3);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());
    fflush(stdout);
    printf("host: after the first kernel\n");
    fflush(stdout);

    float h[4] = {1.5f, 2.0f / 3.0f, 12345.678f, 0.25f};
    float *d;
    int *d_lines, lines = 0;
    cudaCheck(cudaMalloc(&d, sizeof h));
    cudaCheck(cudaMalloc(&d_lines, sizeof(int)));
    cudaCheck(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    formats<<<1, 32>>>(d);
    cudaCheck(cudaGetLastError());
    count_lines<<<1, 32>>>(d_lines);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());
    fflush(stdout);
    cudaCheck(cudaMemcpy(&lines, d_lines, sizeof(int), cudaMemcpyDeviceToHost));
    printf("host: done, lane 0 printed %d line\n", lines);
    cudaCheck(cudaFree(d));
    cudaCheck(cudaFree(d_lines));
    printf("%s\n", lines == 1 ? "PASS" : "FAIL");
    return 0;
}
