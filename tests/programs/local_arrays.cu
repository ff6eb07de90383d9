// tests/programs/local_arrays.cu: per-thread arrays in local memory. An
// array indexed by run-time values (it cannot live in registers), a 16 KiB
// per-thread array (past the default 1 KiB stack: the compiler sizes the
// frame, cudaDeviceSetLimit(cudaLimitStackSize) is read back), a struct array
// written through a pointer passed to a __noinline__ function, and
// cudaFuncGetAttributes' localSizeBytes for the big frame.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void histogram_local(const int *keys, int n, int *out) {
    int counts[10] = {0};
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = t; i < n; i += gridDim.x * blockDim.x) counts[keys[i] % 10]++;
    for (int b = 0; b < 10; b++) atomicAdd(&out[b], counts[b]);
}

__global__ void big_frame(const int *seed, long long *out) {
    const int N = 4096;  // 16 KiB of ints per thread
    int buf[N];
    int s = seed[threadIdx.x];
    for (int i = 0; i < N; i++) buf[i] = (s + i * 31) & 1023;
    long long acc = 0;
    for (int i = 0; i < N; i++) acc += buf[(i * 97 + s) % N] * (long long)(i & 7);
    out[threadIdx.x] = acc;
}

struct Particle {
    float x, y;
    int id;
};

__device__ __noinline__ void fill(Particle *p, int m, int base) {
    for (int i = 0; i < m; i++) p[i] = Particle{base + i * 0.5f, -1.0f * i, base * 100 + i};
}

__global__ void through_pointer(float *out) {
    Particle ps[8];
    fill(ps, 8, threadIdx.x);
    float s = 0;
    for (int i = 0; i < 8; i++) s += ps[i].x + ps[i].y + ps[i].id;
    out[threadIdx.x] = s;
}

int main(void) {
    int bad = 0;
    size_t stack = 0;
    cudaCheck(cudaDeviceSetLimit(cudaLimitStackSize, 32 * 1024));
    cudaCheck(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    printf("stack limit set to 32 KiB, reads back >= 32 KiB: %s\n", stack >= 32 * 1024 ? "yes" : "no");
    cudaFuncAttributes fa;
    cudaCheck(cudaFuncGetAttributes(&fa, big_frame));
    printf("big_frame localSizeBytes >= 16 KiB: %s\n", fa.localSizeBytes >= 16384 ? "yes" : "no");

    const int n = 10000;
    int *keys = (int *)malloc(n * sizeof(int)), *d_keys, *d_h, h[10], ref[10] = {0};
    for (int i = 0; i < n; i++) keys[i] = (i * 7919) % 1000, ref[keys[i] % 10]++;
    cudaCheck(cudaMalloc(&d_keys, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d_h, sizeof h));
    cudaCheck(cudaMemcpy(d_keys, keys, n * sizeof(int), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemset(d_h, 0, sizeof h));
    histogram_local<<<8, 64>>>(d_keys, n, d_h);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h, d_h, sizeof h, cudaMemcpyDeviceToHost));
    int hb = 0;
    for (int b = 0; b < 10; b++) hb += h[b] != ref[b];
    printf("local histogram: bin 3 = %d, wrong bins %d\n", h[3], hb);
    bad += hb;

    const int T = 32;
    int seed[T], *d_seed;
    long long big[T], *d_big;
    for (int t = 0; t < T; t++) seed[t] = t * 13 + 1;
    cudaCheck(cudaMalloc(&d_seed, sizeof seed));
    cudaCheck(cudaMalloc(&d_big, sizeof big));
    cudaCheck(cudaMemcpy(d_seed, seed, sizeof seed, cudaMemcpyHostToDevice));
    big_frame<<<1, T>>>(d_seed, d_big);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(big, d_big, sizeof big, cudaMemcpyDeviceToHost));
    int bb = 0;
    static int buf[4096];
    for (int t = 0; t < T; t++) {
        for (int i = 0; i < 4096; i++) buf[i] = (seed[t] + i * 31) & 1023;
        long long acc = 0;
        for (int i = 0; i < 4096; i++) acc += buf[(i * 97 + seed[t]) % 4096] * (long long)(i & 7);
        bb += big[t] != acc;
    }
    printf("16 KiB frame per thread: thread 5 got %lld, wrong threads %d\n", big[5], bb);
    bad += bb;

    float *d_p, p[T];
    cudaCheck(cudaMalloc(&d_p, sizeof p));
    through_pointer<<<1, T>>>(d_p);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(p, d_p, sizeof p, cudaMemcpyDeviceToHost));
    int pb = 0;
    for (int t = 0; t < T; t++) {
        float s = 0;
        for (int i = 0; i < 8; i++) s += (t + i * 0.5f) + (-1.0f * i) + (t * 100 + i);
        pb += p[t] != s;
    }
    printf("structs filled through a pointer: thread 3 got %.1f, wrong threads %d\n", p[3], pb);
    bad += pb;
    cudaCheck(cudaFree(d_keys));
    cudaCheck(cudaFree(d_h));
    cudaCheck(cudaFree(d_seed));
    cudaCheck(cudaFree(d_big));
    cudaCheck(cudaFree(d_p));
    free(keys);
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
