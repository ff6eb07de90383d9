// tests/programs/struct_by_value.cu: structures passed to kernels by value —
// a 72-byte parameter block mixing char, short, int, double, a pointer and a
// nested array (its alignment and padding must match between host and
// device), a small struct returned from a __device__ function, a large
// (1 KiB) parameter struct, and a struct with a float4 member (16-byte
// alignment).
#include <cstdio>
#include <cstdlib>
#include <cstddef>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

struct Params {
    char mode;        // offset 0
    short shift;      // 2
    int n;            // 4
    double scale;     // 8
    float *out;       // 16
    int offsets[9];   // 24
    double bias;      // 64
};

struct Big {
    int values[256];
};

struct Vec {
    float4 v;
    int w;
};

struct MinMax {
    int lo, hi;
};

__device__ MinMax range_of(const int *a, int n) {
    MinMax m = {a[0], a[0]};
    for (int i = 1; i < n; i++) {
        m.lo = min(m.lo, a[i]);
        m.hi = max(m.hi, a[i]);
    }
    return m;
}

__global__ void use_params(Params p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    double v = p.scale * (i + p.offsets[i % 9]) + p.bias;
    if (p.mode == 'n') v = -v;
    p.out[i] = (float)v + (float)p.shift;
}

__global__ void use_big(Big b, int *out) {
    int t = threadIdx.x;
    out[t] = b.values[t] * 2 + b.values[255 - t];
    if (t == 0) {
        MinMax m = range_of(b.values, 256);
        out[256] = m.lo;
        out[257] = m.hi;
    }
}

__global__ void use_vec(Vec a, float *out) {
    out[0] = a.v.x + a.v.y * 10 + a.v.z * 100 + a.v.w * 1000 + a.w;
    out[1] = (float)sizeof(Vec);
    out[2] = (float)offsetof(Vec, w);
}

int main(void) {
    int failures = 0;
    printf("sizeof(Params) = %zu, offsetof bias = %zu\n", sizeof(Params), offsetof(Params, bias));

    const int n = 100;
    float *d_out, h_out[n];
    cudaCheck(cudaMalloc(&d_out, n * sizeof(float)));
    Params p;
    p.mode = 'n';
    p.shift = 7;
    p.n = n;
    p.scale = 0.5;
    p.out = d_out;
    for (int k = 0; k < 9; k++) p.offsets[k] = k * k;
    p.bias = 3.25;
    use_params<<<1, 128>>>(p);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        double v = -(0.5 * (i + (i % 9) * (i % 9)) + 3.25);
        bad += h_out[i] != (float)v + 7.0f;
    }
    printf("Params: out[0] = %.2f, out[10] = %.2f, out[99] = %.2f, mismatches %d\n", h_out[0], h_out[10], h_out[99],
           bad);
    failures += bad;

    Big b;
    for (int i = 0; i < 256; i++) b.values[i] = (i * 37) % 101 - 50;
    int *d_big, h_big[258];
    cudaCheck(cudaMalloc(&d_big, sizeof h_big));
    use_big<<<1, 256>>>(b, d_big);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_big, d_big, sizeof h_big, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int t = 0; t < 256; t++) bad += h_big[t] != b.values[t] * 2 + b.values[255 - t];
    printf("Big (%zu bytes): out[0] = %d, out[255] = %d, min %d, max %d, mismatches %d\n", sizeof(Big), h_big[0],
           h_big[255], h_big[256], h_big[257], bad);
    failures += bad + (h_big[256] != -50) + (h_big[257] != 50);

    Vec v = {make_float4(1, 2, 3, 4), 5};
    float *d_v, h_v[3];
    cudaCheck(cudaMalloc(&d_v, sizeof h_v));
    use_vec<<<1, 1>>>(v, d_v);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_v, d_v, sizeof h_v, cudaMemcpyDeviceToHost));
    printf("Vec: %.0f, device sizeof %.0f (host %zu), offsetof w %.0f\n", h_v[0], h_v[1], sizeof(Vec), h_v[2]);
    failures += h_v[0] != 4326.0f || h_v[1] != (float)sizeof(Vec);

    cudaCheck(cudaFree(d_out));
    cudaCheck(cudaFree(d_big));
    cudaCheck(cudaFree(d_v));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
