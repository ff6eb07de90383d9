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
// TODO: write a cudaCheck(call) macro that, when the call does not return
// cudaSuccess, prints to stderr the file and line (__FILE__, __LINE__), the
// call's own text (#call) and cudaGetErrorString(err), then exits with
// EXIT_FAILURE. Wrap every CUDA call in it (after a launch, check
// cudaGetLastError()).
//
// cudojo runs it and reads stderr and the exit status: the program must
// stop at the first call that fails and name that call's line.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

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
    cudaMalloc(&d_y, bytes);
    cudaMalloc(&d_y, bytes);
    cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);
    twice<<<(N + 255) / 256, 256>>>(d_x, d_y, N);
    cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost);

    double sum = 0;
    for (int i = 0; i < N; i++) sum += h_y[i];
    printf("sum of y: %.1f\n", sum);
    cudaFree(d_x);
    cudaFree(d_y);
    free(h_x);
    free(h_y);
    return 0;
}
