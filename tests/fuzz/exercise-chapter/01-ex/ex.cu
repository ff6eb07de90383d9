// The learner's file fuzz_exercise's scripts run (tests/fuzz/fuzz_exercise.c).
#include <cstdio>

__global__ void add_one(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

__global__ void racy(float *x, int n) {
    __shared__ float s[64];
    s[threadIdx.x % 64] = x[threadIdx.x % n];
    x[threadIdx.x % n] = s[(threadIdx.x + 1) % 64];
}

__global__ void say(int n) {
    if (threadIdx.x < n) printf("thread %d\n", threadIdx.x);
}

__global__ void axpy(float a, const float *x, float *y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}
