// WRONG (a typical mistake): synchronizes before the CPU's work, so nothing overlaps.
//
// async-overlap.cu: let the CPU work while the GPU works (cuda-samples'
// asyncAPI).
//
//   nvcc -O2 -lineinfo -DN=4194304 -DITERS=4000 async-overlap.cu -o async-overlap && ./async-overlap
//
// The program queues a copy in, busy, a copy out and an event on the
// default stream, then the CPU counts until the GPU has reached the event.
// Nothing in the queue makes the host wait: the copies are cudaMemcpyAsync
// from and to page-locked host memory (cudaMallocHost), so the CPU counts
// while the kernel runs.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// N elements, ITERS steps per element. cudojo sets them (small on the
// emulator, N = 2^22 on a GPU).
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
    float *h_x, *h_y;
    cudaCheck(cudaMallocHost(&h_x, bytes));     // page-locked: copies can be asynchronous
    cudaCheck(cudaMallocHost(&h_y, bytes));
    make_input(h_x, N);

    float *d_x, *d_y;
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaEvent_t stop;
    cudaCheck(cudaEventCreate(&stop));
    int block = 256, grid = (N + block - 1) / block;

    // queue everything on the default stream (0), without waiting
    cudaCheck(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, 0));
    busy<<<grid, block, 0, 0>>>(d_x, d_y, N, ITERS);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, 0));
    cudaCheck(cudaEventRecord(stop, 0));
    cudaCheck(cudaDeviceSynchronize());

    // the CPU's own work until the GPU has reached stop
    unsigned long counter = 0;
    cudaError_t status;
    while ((status = cudaEventQuery(stop)) == cudaErrorNotReady) counter++;
    cudaCheck(status);
    printf("CPU executed %lu iterations while waiting for GPU to finish\n", counter);   // cudojo reads this

    int wrong = validate(h_x, h_y, N);
    if (wrong) { printf("FAIL: %d of %d wrong\n", wrong, N); return EXIT_FAILURE; }
    printf("PASS\n");

    cudaCheck(cudaEventDestroy(stop));
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    cudaCheck(cudaFreeHost(h_x));
    cudaCheck(cudaFreeHost(h_y));
    return EXIT_SUCCESS;
}
