// check-every-call.cu: make a silent failure loud.
//
//   nvcc -O2 -lineinfo check-every-call.cu -o check-every-call && ./check-every-call
//
// This program doubles N floats on the GPU. It has a bug (leave it there:
// this exercise is about finding out, the next ones are about fixing) and
// it never looks at what the CUDA calls return, so it runs to the end and
// prints nonsense. Every CUDA runtime call returns a cudaError_t; a program
// that ignores it learns about a failure only from wrong answers, far from
// the call that failed.
//
// Every call goes through cudaCheck: the first one that fails prints its
// file, line, text and error string and ends the program with
// EXIT_FAILURE. (The bug: cudaMalloc(&d_y, ...) twice, so d_x stays NULL
// and the first copy fails with cudaErrorInvalidValue.)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// cudaCheck(call): file:line, the call's text and the error, then exit
#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, what, cudaGetErrorString(err),
                cudaGetErrorName(err));
    }
}

#ifndef N
#define N 4096
#endif

__global__ void twice(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}

int main(void)
{
    size_t bytes = N * sizeof(float);
    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes);
    for (int i = 0; i < N; i++) { h_x[i] = (float)(i % 1024); h_y[i] = 0.0f; }

    float *d_x = NULL, *d_y = NULL;
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    twice<<<(N + 255) / 256, 256>>>(d_x, d_y, N);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));

    double sum = 0;
    for (int i = 0; i < N; i++) sum += h_y[i];
    printf("sum of y: %.1f\n", sum);
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_y);
    return 0;
}
