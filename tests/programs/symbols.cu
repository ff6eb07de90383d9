// tests/programs/symbols.cu: __device__ and __constant__ variables from the
// host — cudaMemcpyToSymbol (whole and at an offset), cudaMemcpyFromSymbol,
// cudaMemcpyToSymbolAsync, cudaGetSymbolAddress (the pointer works with
// cudaMemcpy and as a kernel argument), cudaGetSymbolSize, a static
// initialiser visible before any copy, and a __device__ counter kernels
// accumulate into across launches.
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

__constant__ float coeffs[8];
__constant__ int scale = 3;              // initialised in the module image
__device__ int counter;
__device__ float table[16] = {1, 2, 3};  // the rest are zero

// out[i] = scale * (coeffs[i % 8] + table[i % 16]); counter += 1 per thread
__global__ void use_symbols(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = scale * (coeffs[i % 8] + table[i % 16]);
    atomicAdd(&counter, 1);
}

__global__ void add_to(int *p, int v) { atomicAdd(p, v); }

int main(void) {
    int ok = 1;
    int s0 = -1;
    cudaCheck(cudaMemcpyFromSymbol(&s0, scale, sizeof(int)));
    float t0[16];
    cudaCheck(cudaMemcpyFromSymbol(t0, table, sizeof t0));
    printf("initial scale = %d, table[0..3] = %.0f %.0f %.0f %.0f\n", s0, t0[0], t0[1], t0[2], t0[3]);
    ok &= s0 == 3 && t0[2] == 3 && t0[3] == 0;

    size_t sz_c = 0, sz_t = 0;
    cudaCheck(cudaGetSymbolSize(&sz_c, coeffs));
    cudaCheck(cudaGetSymbolSize(&sz_t, table));
    printf("sizeof coeffs = %zu, sizeof table = %zu\n", sz_c, sz_t);
    ok &= sz_c == 32 && sz_t == 64;

    float c[8] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f};
    cudaCheck(cudaMemcpyToSymbol(coeffs, c, sizeof c));
    float ten = 10.0f;
    cudaCheck(cudaMemcpyToSymbol(coeffs, &ten, sizeof(float), 7 * sizeof(float)));  // coeffs[7] = 10
    int zero = 0, two = 2;
    cudaCheck(cudaMemcpyToSymbol(counter, &zero, sizeof(int)));
    cudaCheck(cudaMemcpyToSymbolAsync(scale, &two, sizeof(int), 0, cudaMemcpyHostToDevice, 0));

    const int n = 100;
    float *d_out, out[n];
    cudaCheck(cudaMalloc(&d_out, n * sizeof(float)));
    use_symbols<<<4, 32>>>(d_out, n);
    cudaCheck(cudaGetLastError());
    use_symbols<<<1, 64>>>(d_out, 50);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float t = i % 16 < 3 ? (float)(i % 16 + 1) : 0.0f;
        float cc = i % 8 == 7 ? 10.0f : c[i % 8];
        if (out[i] != 2 * (cc + t)) bad++;
    }
    printf("out[0] = %.1f, out[7] = %.1f, out[17] = %.1f, mismatches = %d\n", out[0], out[7], out[17], bad);
    ok &= bad == 0;

    int count = 0;
    cudaCheck(cudaMemcpyFromSymbol(&count, counter, sizeof(int)));
    printf("counter after two launches = %d\n", count);
    ok &= count == 150;

    // the symbol's address is an ordinary device pointer
    int *d_counter = NULL;
    cudaCheck(cudaGetSymbolAddress((void **)&d_counter, counter));
    add_to<<<1, 10>>>(d_counter, 5);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(&count, d_counter, sizeof(int), cudaMemcpyDeviceToHost));
    printf("counter through its address = %d\n", count);
    ok &= count == 200;

    float c7 = 0;
    cudaCheck(cudaMemcpyFromSymbol(&c7, coeffs, sizeof(float), 7 * sizeof(float)));
    printf("coeffs[7] read at an offset = %.1f\n", c7);
    ok &= c7 == 10.0f;

    // past the end of the symbol is an error
    float big[9] = {0};
    cudaError_t e = cudaMemcpyToSymbol(coeffs, big, sizeof big);
    printf("copy of 36 bytes into a 32-byte symbol: %s\n", cudaGetErrorName(e));
    ok &= e != cudaSuccess;
    cudaGetLastError();

    cudaCheck(cudaFree(d_out));
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
