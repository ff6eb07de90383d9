// bug-launch-limits.cu: a bug hunt. y = 2x over a W x H image, one thread per pixel; the image stays empty.
//
//   nvcc -O2 -lineinfo bug-launch-limits.cu -o bug-launch-limits && ./bug-launch-limits
//
// Run it in cudojo and read what the launch returned (the call list, and
// the finding). Fix the bug; keep the validation.

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

#define W 200
#define H 150

__global__ void twice2d(const float *x, float *y, int w, int h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < w && row < h) y[row * w + col] = 2.0f * x[row * w + col];
}

int main(void)
{
    int n = W * H;
    size_t bytes = n * sizeof(float);
    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes);
    make_input(h_x, n);
    float *d_x, *d_y;
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemset(d_y, 0, bytes));
    dim3 block(1024, 2);
    dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
    twice2d<<<grid, block>>>(d_x, d_y, W, H);
    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    int wrong = validate(h_x, h_y, n);
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_y);
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
