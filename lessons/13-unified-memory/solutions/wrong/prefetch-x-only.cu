// prefetch-x-only.cu (wrong: y is left on the host; the first kernel faults on it): move managed pages before anyone faults on them.
//
//   nvcc -O2 -lineinfo -DN=16777216 prefetch.cu -o prefetch && ./prefetch
//
// y = 2 * x over N floats of managed memory, REPS times (the same kernel,
// as an iterative solver would run it), then the host reads y. Left alone,
// the first kernel pays a GPU page fault for every page of x and y it
// touches, and the host a CPU page fault for every page of y it reads
// back. cudaMemPrefetchAsync moves the pages in bulk, in advance, at full
// link speed: to the GPU before the first kernel, y back to the host
// before the host reads it.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#ifndef N
#define N 1048576
#endif
#define REPS 4

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

__global__ void scale(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}

// a ramp 0, 1/1024, ..., 1023/1024, repeated: exact in float
static void make_input(float *x, int n)
{
    for (int i = 0; i < n; i++) x[i] = (float)(i % 1024) / 1024.0f;
}

// Compares y with 2 * (i % 1024) / 1024 (x is left on the GPU), returns the wrong count and the sum of y.
static int validate(const float *y, int n, double *sum)
{
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        float want = 2.0f * (float)(i % 1024) / 1024.0f;
        if (y[i] != want && wrong++ == 0) printf("y[%d] = %f, want %f\n", i, y[i], want);
        *sum += y[i];
    }
    return wrong;
}

int main(void)
{
    size_t bytes = (size_t)N * sizeof(float);
    int dev;
    cudaCheck(cudaGetDevice(&dev));
    float *x, *y;
    cudaCheck(cudaMallocManaged(&x, bytes));
    cudaCheck(cudaMallocManaged(&y, bytes));
    make_input(x, N);

    // both arrays to the GPU, in bulk, before the first kernel
    cudaMemLocation gpu = {cudaMemLocationTypeDevice, dev};
    cudaCheck(cudaMemPrefetchAsync(x, bytes, gpu, 0, 0));

    for (int rep = 0; rep < REPS; rep++) {
        scale<<<(N + 255) / 256, 256>>>(x, y, N);
        cudaCheck(cudaGetLastError());
    }

    // the result back to the host before the host reads it
    cudaMemLocation cpu = {cudaMemLocationTypeHost, 0};
    cudaCheck(cudaMemPrefetchAsync(y, bytes, cpu, 0, 0));
    cudaCheck(cudaDeviceSynchronize());

    double sum = 0;
    int wrong = validate(y, N, &sum);
    printf("sum of y: %.4f\n", sum);
    cudaCheck(cudaFree(x));
    cudaCheck(cudaFree(y));
    if (wrong) {
        printf("FAIL: %d wrong\n", wrong);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
