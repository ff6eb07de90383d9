// managed-basics-no-sync.cu (wrong: reads y while the kernel may still run): one pointer for the host and the GPU (cudaMallocManaged).
//
//   nvcc -O2 -lineinfo -DN=16777216 managed-basics.cu -o managed-basics && ./managed-basics
//
// y = 2 * x over N floats. x and y are managed memory: the host writes x
// through the same pointer the kernel reads, and reads y through the same
// pointer the kernel wrote. No cudaMemcpy: the driver moves the pages when
// the GPU first touches them (a GPU page fault) and back when the host
// does (a CPU page fault). The host waits for the kernel before it reads y.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#ifndef N
#define N 1048576
#endif

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

// Compares y with 2 * x, prints the first mismatch, returns the wrong count and the sum of y.
static int validate(const float *x, const float *y, int n, double *sum)
{
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        if (y[i] != 2.0f * x[i] && wrong++ == 0) printf("y[%d] = %f, want %f\n", i, y[i], 2.0f * x[i]);
        *sum += y[i];
    }
    return wrong;
}

int main(void)
{
    size_t bytes = (size_t)N * sizeof(float);
    float *x, *y;
    cudaCheck(cudaMallocManaged(&x, bytes));
    cudaCheck(cudaMallocManaged(&y, bytes));
    make_input(x, N);                      // the host writes the pages: they live on the host

    scale<<<(N + 255) / 256, 256>>>(x, y, N);   // the GPU touches them: page faults, migration
    cudaCheck(cudaGetLastError());

    double sum = 0;
    int wrong = validate(x, y, N, &sum);   // the host touches y: back to the host
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
