// dominant-kernel.cu: which kernel dominates? Predict, then read the timeline.
//
//   nvcc -O2 -lineinfo -DN=4194304 dominant-kernel.cu -o dominant-kernel && ./dominant-kernel
//
// Three kernels make one result: prepare runs once, smooth runs once and
// does SMOOTH_ITERS steps per element, finish is cheap but runs once per
// frame, FRAMES times. The kernel that deserves your attention is the one
// with the largest TOTAL time on the timeline: launches x time per launch.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// Your prediction, after reading the timeline: "prepare", "smooth" or "finish".
#define PREDICT "smooth"

#ifndef N
#define N 16384
#endif
#ifndef SMOOTH_ITERS
#define SMOOTH_ITERS 8000
#endif
#define FRAMES 200

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// y[i] = x[i] (a copy to work on)
__global__ void prepare(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}

// SMOOTH_ITERS steps that leave y[i] as it was (v/2 + v/2 is exact): work
__global__ void smooth(float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = y[i], half = 0.5f * v;
    for (int k = 0; k < SMOOTH_ITERS; k++) v = fmaf(v, 0.5f, half);
    y[i] = v;
}

// y[i] += 1, once per frame
__global__ void finish(float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += 1.0f;
}

int main(void)
{
    size_t bytes = (size_t)N * sizeof(float);
    float *h = (float *)malloc(bytes);
    if (!h) return EXIT_FAILURE;
    for (int i = 0; i < N; i++) h[i] = (float)(i % 1024) / 1024.0f;
    float *d_x, *d_y;
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMemcpy(d_x, h, bytes, cudaMemcpyHostToDevice));
    int block = 256, grid = (N + block - 1) / block;

    prepare<<<grid, block>>>(d_x, d_y, N);
    smooth<<<grid, block>>>(d_y, N);
    for (int f = 0; f < FRAMES; f++) finish<<<grid, block>>>(d_y, N);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h, d_y, bytes, cudaMemcpyDeviceToHost));

    // the CPU reference: x + FRAMES
    int wrong = 0;
    double sum = 0;
    for (int i = 0; i < N; i++) {
        float want = (float)(i % 1024) / 1024.0f + FRAMES;
        if (h[i] != want && wrong++ == 0) printf("y[%d] = %f, want %f\n", i, h[i], want);
        sum += h[i];
    }
    printf("sum of y: %.4f\n", sum);
    printf("PREDICT: dominant=%s\n", PREDICT);     // cudojo compares it with the timeline
    if (wrong) { printf("FAIL: %d wrong\n", wrong); return EXIT_FAILURE; }
    printf("PASS\n");
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h);
    return EXIT_SUCCESS;
}
