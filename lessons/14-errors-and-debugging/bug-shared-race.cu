// bug-shared-race.cu: a bug hunt. Each block reverses its 256 elements through shared memory; something is wrong.
//
//   nvcc -O2 -lineinfo bug-shared-race.cu -o bug-shared-race && ./bug-shared-race
//
// On a GPU this may print PASS many times in a row and fail on the next
// run, or on the next GPU. Run it in cudojo: the emulator schedules the
// warps in an adversarial order and tracks who wrote and read every word of
// shared memory (on a GPU, cudojo also runs compute-sanitizer's racecheck).
// Fix the bug; keep the validation.

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
#define N 4096
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

#define BLOCK 256

// y = 2x, with each block's elements in reverse order inside the block
__global__ void reverse_twice(const float *x, float *y, int n)
{
    __shared__ float tile[BLOCK];
    int t = threadIdx.x, base = blockIdx.x * BLOCK;
    tile[t] = base + t < n ? x[base + t] : 0.0f;
    int from = BLOCK - 1 - t;
    if (base + t < n) y[base + t] = 2.0f * tile[from];
}

int main(void)
{
    size_t bytes = N * sizeof(float);
    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes), *h_r = (float *)malloc(bytes);
    make_input(h_x, N);
    // the same ramp, reversed inside each full block, is what comes back
    for (int b = 0; b < N / BLOCK; b++)
        for (int t = 0; t < BLOCK; t++) h_r[b * BLOCK + t] = h_x[b * BLOCK + BLOCK - 1 - t];
    float *d_x, *d_y;
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    reverse_twice<<<N / BLOCK, BLOCK>>>(d_x, d_y, N);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    int wrong = validate(h_r, h_y, N);
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_y);
    free(h_r);
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
