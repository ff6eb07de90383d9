// tests/programs/functors_lambdas.cu: C++ callables as kernel parameters.
// A template kernel taking a functor by value (a struct with state and an
// operator()), __device__ lambdas with and without captures made on the host
// (--extended-lambda), a __host__ __device__ lambda run on both sides, a
// lambda defined inside a kernel capturing by reference, a variadic template
// kernel with a C++17 fold, and a non-type template parameter unrolling a
// loop. Every result is checked against the same callable run on the host.
// cudojo: nvcc=--extended-lambda
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

template <typename F> __global__ void map(const int *x, int *y, int n, F f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = f(x[i]);
}

struct Affine {
    int a, b;
    char tag;  // padding after it: the functor is copied by value with its layout
    __host__ __device__ int operator()(int v) const { return a * v + b + tag; }
};

struct Clamp {
    int lo, hi;
    __host__ __device__ int operator()(int v) const { return v < lo ? lo : v > hi ? hi : v; }
};

template <typename F, typename G> struct Compose {
    F f;
    G g;
    __host__ __device__ int operator()(int v) const { return g(f(v)); }
};

__global__ void inner_lambda(const int *x, int *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int calls = 0;
    auto twice = [&](int v) {
        calls++;
        return 2 * v + calls;
    };
    if (i < n) y[i] = twice(x[i]) + twice(1);  // calls is 1 then 2
}

template <typename... Args> __global__ void fold_sum(long long *out, Args... args) { *out = (0LL + ... + args); }

template <int K> __global__ void unrolled_pow(const int *x, int *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int p = 1;
#pragma unroll
    for (int k = 0; k < K; k++) p *= x[i];
    y[i] = p;
}

template <typename F> static int check(const char *what, const int *h_x, const int *d_x, int *d_y, int n, F f) {
    map<<<(n + 127) / 128, 128>>>(d_x, d_y, n, f);
    cudaCheck(cudaGetLastError());
    int *y = (int *)malloc(n * sizeof(int));
    cudaCheck(cudaMemcpy(y, d_y, n * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += y[i] != f(h_x[i]);
    printf("%-22s y[0]=%d y[500]=%d mismatches %d\n", what, y[0], y[500], bad);
    free(y);
    return bad;
}

int main(void) {
    const int n = 1000;
    int *h_x = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) h_x[i] = i % 37 - 18;
    int *d_x, *d_y;
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d_y, n * sizeof(int)));
    cudaCheck(cudaMemcpy(d_x, h_x, n * sizeof(int), cudaMemcpyHostToDevice));
    int bad = 0;
    bad += check("functor Affine", h_x, d_x, d_y, n, Affine{3, -4, 'A'});
    bad += check("functor Clamp", h_x, d_x, d_y, n, Clamp{-5, 7});
    bad += check("composed functors", h_x, d_x, d_y, n, Compose<Affine, Clamp>{{2, 1, 0}, {-10, 10}});
    int k = 7;
    auto hd = [=] __host__ __device__(int v) { return v * v - k; };
    bad += check("host-device lambda", h_x, d_x, d_y, n, hd);

    auto dev = [=] __device__(int v) { return v ^ k; };
    map<<<(n + 127) / 128, 128>>>(d_x, d_y, n, dev);
    cudaCheck(cudaGetLastError());
    int y[n];
    cudaCheck(cudaMemcpy(y, d_y, sizeof y, cudaMemcpyDeviceToHost));
    int b2 = 0;
    for (int i = 0; i < n; i++) b2 += y[i] != (h_x[i] ^ k);
    printf("%-22s y[0]=%d y[500]=%d mismatches %d\n", "device lambda", y[0], y[500], b2);
    bad += b2;

    inner_lambda<<<(n + 127) / 128, 128>>>(d_x, d_y, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(y, d_y, sizeof y, cudaMemcpyDeviceToHost));
    b2 = 0;
    for (int i = 0; i < n; i++) b2 += y[i] != 2 * h_x[i] + 1 + 2 + 2;
    printf("%-22s y[0]=%d y[500]=%d mismatches %d\n", "lambda in a kernel", y[0], y[500], b2);
    bad += b2;

    unrolled_pow<3><<<(n + 127) / 128, 128>>>(d_x, d_y, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(y, d_y, sizeof y, cudaMemcpyDeviceToHost));
    b2 = 0;
    for (int i = 0; i < n; i++) b2 += y[i] != h_x[i] * h_x[i] * h_x[i];
    printf("%-22s y[0]=%d y[500]=%d mismatches %d\n", "unrolled_pow<3>", y[0], y[500], b2);
    bad += b2;

    long long *d_s, s = 0;
    cudaCheck(cudaMalloc(&d_s, sizeof s));
    fold_sum<<<1, 1>>>(d_s, 1, 2LL, (short)3, 4000000000LL, (char)5, 6u);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(&s, d_s, sizeof s, cudaMemcpyDeviceToHost));
    printf("fold_sum of 6 mixed arguments: %lld\n", s);
    bad += s != 4000000017LL;

    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    cudaCheck(cudaFree(d_s));
    free(h_x);
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
