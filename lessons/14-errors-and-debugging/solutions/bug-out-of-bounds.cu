// bug-out-of-bounds.cu: a bug hunt. y = 2x for N floats; something is wrong.
//
//   nvcc -O2 -lineinfo bug-out-of-bounds.cu -o bug-out-of-bounds && ./bug-out-of-bounds
//
// Run it in cudojo and read the findings: the emulator checks every
// access of every thread against the allocations, and names the line, the
// thread and the block of the first bad one (on a GPU, cudojo also runs it
// under compute-sanitizer's memcheck). Fix the bug; keep the validation.

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}

#ifndef N
#define N 1000
#endif

// the input: a ramp 0, 1/1024, ..., 1023/1024, repeated (exact in float)
static void make_input(float *x, int n)
{
    for (int i = 0; i < n; i++) x[i] = (float)(i % 1024) / 1024.0f;
}

// Compares y with 2 * x on the CPU, prints the first mismatch and the sum
// of y (cudojo checks it too). Returns the number of wrong elements.
static int validate(const float *x, const float *y, int n)
{
    int wrong = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        if (y[i] != 2.0f * x[i] && wrong++ == 0) printf("y[%d] = %f, want %f\n", i, y[i], 2.0f * x[i]);
        sum += y[i];
    }
    printf("sum of y: %.4f\n", sum);
    printf("%s\n", wrong ? "FAIL" : "PASS");
    return wrong;
}

__global__ void twice(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];     // the last block has threads past the end
}

int main(void)
{
    size_t bytes = N * sizeof(float);
    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes);
    make_input(h_x, N);
    float *d_x, *d_y;
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    int block = 256, grid = (N + block - 1) / block;
    twice<<<grid, block>>>(d_x, d_y, N);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    int wrong = validate(h_x, h_y, N);
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_y);
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
