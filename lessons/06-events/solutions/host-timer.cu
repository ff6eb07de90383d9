// host-timer.cu: why host timers lie about the GPU.
//
//   nvcc -O2 -lineinfo -DN=4194304 -DITERS=160000 host-timer.cu -o host-timer && ./host-timer
//
// The program times busy with the CPU's clock, the way you would time a CPU
// function. A launch returns as soon as the kernel is QUEUED; the GPU runs
// it later while the CPU goes on. So a host timer measures the GPU only
// between two waits: cudaDeviceSynchronize() before the first reading (the
// warm-up launch must be over) and before the second (the timed launch
// must be over).
#include <chrono>
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

// the CPU's clock, in milliseconds
static double now_ms(void)
{
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

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

    busy<<<grid, block>>>(d_x, d_y, N, ITERS);   // warm-up
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());         // the warm-up is over before t0
    double t0 = now_ms();
    busy<<<grid, block>>>(d_x, d_y, N, ITERS);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());         // the timed kernel is over before t1
    double t1 = now_ms();
    printf("host timer: %.4f ms\n", t1 - t0);   // cudojo reads this

    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    int wrong = validate(h_x, h_y, N);
    if (wrong) { printf("FAIL: %d of %d wrong\n", wrong, N); return EXIT_FAILURE; }
    printf("PASS\n");

    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_y);
    return EXIT_SUCCESS;
}
