// bug-use-after-free.cu: a bug hunt. Two kernels: y = x, then y = y + x (so y = 2x); something is wrong.
//
//   nvcc -O2 -lineinfo bug-use-after-free.cu -o bug-use-after-free && ./bug-use-after-free
//
// Run it in cudojo and read the findings: the emulator knows every
// allocation and checks every access against them (on a GPU, cudojo also
// runs compute-sanitizer's memcheck). Fix the bug; keep the validation.

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

__global__ void copy(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}

__global__ void add(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += x[i];
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
    int grid = (N + 255) / 256;
    copy<<<grid, 256>>>(d_x, d_y, N);
    cudaCheck(cudaGetLastError());
    add<<<grid, 256>>>(d_x, d_y, N);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaFree(d_x));                   // done with x
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    int wrong = validate(h_x, h_y, N);
    cudaCheck(cudaFree(d_y));
    cudaCheck(cudaFree(d_x));                   // tidy up everything at the end
    free(h_x);
    free(h_y);
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
