// stream-events.cu: an event belongs to a stream.
//
//   nvcc -O2 -lineinfo -DN=1024 -DITERS=1000000 stream-events.cu -o stream-events && ./stream-events
//
// The program runs two independent kernels, busy on d_x[0] and on d_x[1],
// each on a stream of its own so that they run at the same time, and times
// each one with a pair of events recorded on the kernel's own stream.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// N elements per kernel, ITERS steps per element. cudojo sets them: on a
// GPU few elements (4 blocks) and many steps, so that two kernels fit side
// by side and each runs for milliseconds.
#ifndef N
#define N 1000
#endif
#ifndef ITERS
#define ITERS 20000
#endif

// ---------------------------------------------------------------------------
// error checking: every CUDA call goes through cudaCheck

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// ---------------------------------------------------------------------------
// the kernel (finished: this chapter is about the host side)

// y[i] = 2 * x[i], the long way: every step leaves acc equal to x[i]
// (x/2 + x/2 is exact), so the kernel takes a while and its answer is exact.
__global__ void busy(const float *x, float *y, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float half = 0.5f * x[i], acc = x[i];
    for (int j = 0; j < iters; j++) acc = fmaf(acc, 0.5f, half);
    y[i] = 2.0f * acc;
}

// ---------------------------------------------------------------------------
// the input and the CPU reference

// a ramp 0, 1/1024, ..., 1023/1024, repeated: exact in float
static void make_input(float *x, int n)
{
    for (int i = 0; i < n; i++) x[i] = (float)(i % 1024) / 1024.0f;
}

// Compares y with 2 * x, prints the first mismatch and the sum of y (the
// exercise checks it too). Returns the number of wrong elements.
static int validate(const float *x, const float *y, int n)
{
    int wrong = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        if (y[i] != 2.0f * x[i] && wrong++ == 0)
            printf("y[%d] = %f, want %f\n", i, y[i], 2.0f * x[i]);
        sum += y[i];
    }
    printf("sum of y: %.4f\n", sum);          // cudojo checks this sum
    return wrong;
}

// ---------------------------------------------------------------------------

int main(void)
{
    size_t bytes = N * sizeof(float);
    float *h_x = (float *)malloc(bytes), *h_y[2];
    if (!h_x) { fprintf(stderr, "out of host memory\n"); return EXIT_FAILURE; }
    make_input(h_x, N);
    float *d_x[2], *d_y[2];
    cudaStream_t s[2];
    cudaEvent_t start[2], stop[2];
    for (int k = 0; k < 2; k++) {
        h_y[k] = (float *)malloc(bytes);
        if (!h_y[k]) { fprintf(stderr, "out of host memory\n"); return EXIT_FAILURE; }
        cudaCheck(cudaMalloc(&d_x[k], bytes));
        cudaCheck(cudaMalloc(&d_y[k], bytes));
        cudaCheck(cudaMemcpy(d_x[k], h_x, bytes, cudaMemcpyHostToDevice));
        cudaCheck(cudaStreamCreate(&s[k]));
        cudaCheck(cudaEventCreate(&start[k]));
        cudaCheck(cudaEventCreate(&stop[k]));
    }
    int block = 256, grid = (N + block - 1) / block;

    // warm-up (time-kernel): the first launch of busy loads it onto the GPU.
    // n = 0: it computes nothing.
    busy<<<1, block>>>(d_x[0], d_y[0], 0, ITERS);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());   // the warm-up is done

    for (int k = 0; k < 2; k++) {
        cudaCheck(cudaEventRecord(start[k], s[k]));
        busy<<<grid, block, 0, s[k]>>>(d_x[k], d_y[k], N, ITERS);
        cudaCheck(cudaGetLastError());
        cudaCheck(cudaEventRecord(stop[k], s[k]));
    }
    cudaCheck(cudaDeviceSynchronize());
    for (int k = 0; k < 2; k++) {
        float ms;
        cudaCheck(cudaEventElapsedTime(&ms, start[k], stop[k]));
        printf("kernel %d: %.4f ms\n", k, ms);   // cudojo reads this
    }

    int wrong = 0;
    for (int k = 0; k < 2; k++) {
        cudaCheck(cudaMemcpy(h_y[k], d_y[k], bytes, cudaMemcpyDeviceToHost));
        wrong += validate(h_x, h_y[k], N);
    }
    if (wrong) { printf("FAIL: %d of %d wrong\n", wrong, 2 * N); return EXIT_FAILURE; }
    printf("PASS\n");

    for (int k = 0; k < 2; k++) {
        cudaCheck(cudaEventDestroy(start[k]));
        cudaCheck(cudaEventDestroy(stop[k]));
        cudaCheck(cudaStreamDestroy(s[k]));
        cudaCheck(cudaFree(d_x[k]));
        cudaCheck(cudaFree(d_y[k]));
        free(h_y[k]);
    }
    free(h_x);
    return EXIT_SUCCESS;
}
