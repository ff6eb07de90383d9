// launch-cost.cu: what one kernel launch costs the host.
//
//   nvcc -O2 -lineinfo -DLAUNCHES=2000 launch-cost.cu -o launch-cost && ./launch-cost
//
// A launch (bump<<<...>>>) does not run the kernel: the CPU writes a launch
// command into the stream's queue and returns. Writing it takes a few
// microseconds of CPU time, and that is what this program measures: a host
// clock around LAUNCHES launches that nothing waits for, divided by
// LAUNCHES. One wait after the second reading lets the GPU catch up before
// the results are read.
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// LAUNCHES timed launches of a tiny kernel; cudojo sets it.
#ifndef LAUNCHES
#define LAUNCHES 1000
#endif
#define N 256        // one block: the kernel itself takes about a microsecond

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// x[i] += 1: almost no work, so what we see is the cost of launching it
__global__ void bump(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

// the CPU's clock, in microseconds
static double now_us(void)
{
    using namespace std::chrono;
    return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}

// x started at 0 and was bumped `launches` times: every element equals it.
static int validate(const float *x, int n, int launches)
{
    int wrong = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] != (float)launches && wrong++ == 0)
            printf("x[%d] = %f, want %d\n", i, x[i], launches);
        sum += x[i];
    }
    printf("sum of x: %.1f\n", sum);          // cudojo checks this sum
    return wrong;
}

int main(void)
{
    float *d_x, h_x[N];
    cudaCheck(cudaMalloc(&d_x, N * sizeof(float)));
    cudaCheck(cudaMemset(d_x, 0, N * sizeof(float)));

    bump<<<1, N>>>(d_x, N);                    // warm-up: loads the kernel
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());

    double t0 = now_us();
    for (int i = 0; i < LAUNCHES; i++) {
        bump<<<1, N>>>(d_x, N);                // queued, not run: returns at once
        cudaCheck(cudaGetLastError());         // no wait: only asks the launch's own error
    }
    double t1 = now_us();
    cudaCheck(cudaDeviceSynchronize());        // now the GPU catches up
    printf("launch: %.3f us per launch\n", (t1 - t0) / LAUNCHES);   // cudojo reads this

    cudaCheck(cudaMemcpy(h_x, d_x, sizeof h_x, cudaMemcpyDeviceToHost));
    int wrong = validate(h_x, N, LAUNCHES + 1);
    if (wrong) { printf("FAIL: %d of %d wrong\n", wrong, N); return EXIT_FAILURE; }
    printf("PASS\n");
    cudaCheck(cudaFree(d_x));
    return EXIT_SUCCESS;
}
