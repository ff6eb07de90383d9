// time-kernel.cu: time a kernel with CUDA events, correctly.
//
//   nvcc -O2 -lineinfo -DN=4194304 -DITERS=4000 time-kernel.cu -o time-kernel && ./time-kernel
//
// The program runs busy once and validates it against the CPU, then times
// REPS launches with two events and prints the time per launch. cudojo
// compares that number with the kernels' duration on the timeline (modeled
// on the emulator, measured by CUPTI on a GPU).
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// N elements, ITERS steps per element, REPS timed launches. cudojo sets
// them (small on the emulator, N = 2^22 on a GPU).
#ifndef N
#define N 1000
#endif
#ifndef ITERS
#define ITERS 20000
#endif
#ifndef REPS
#define REPS 3
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
    float *h_x = (float *)malloc(bytes);
    float *h_y = (float *)malloc(bytes);
    if (!h_x || !h_y) { fprintf(stderr, "out of host memory\n"); return EXIT_FAILURE; }
    make_input(h_x, N);

    float *d_x, *d_y;
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    int block = 256, grid = (N + block - 1) / block;

    // first run: validate against the CPU. It is also the warm-up: the
    // first launch of a kernel pays one-time costs (loading the module onto
    // the GPU, cold caches) that the timed launches must not.
    busy<<<grid, block>>>(d_x, d_y, N, ITERS);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    int wrong = validate(h_x, h_y, N);
    if (wrong) { printf("FAIL: %d of %d wrong\n", wrong, N); return EXIT_FAILURE; }

    // time REPS launches between two events
    cudaEvent_t start, stop;
    cudaCheck(cudaEventCreate(&start));
    cudaCheck(cudaEventCreate(&stop));
    cudaCheck(cudaEventRecord(start));
    for (int r = 0; r < REPS; r++) {
        busy<<<grid, block>>>(d_x, d_y, N, ITERS);
        cudaCheck(cudaGetLastError());
    }
    cudaCheck(cudaEventRecord(stop));
    cudaCheck(cudaEventSynchronize(stop));      // the host waits until stop has happened
    float ms;
    cudaCheck(cudaEventElapsedTime(&ms, start, stop));
    printf("busy: %.4f ms per launch (%d launches)\n", ms / REPS, REPS);   // cudojo reads this
    printf("PASS\n");

    cudaCheck(cudaEventDestroy(start));
    cudaCheck(cudaEventDestroy(stop));
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_y);
    return EXIT_SUCCESS;
}
