// tests/programs/dynamic_shared.cu: dynamic shared memory. extern __shared__
// sized by the third launch argument (a block-wide inclusive scan, then two
// arrays carved out of one dynamic buffer); more than 48 KiB needs
// cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) first:
// the launch fails without it and works with it; static and dynamic shared
// memory together.
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

// out = inclusive prefix sum of each block's slice of in (Hillis-Steele, double-buffered)
__global__ void block_scan(const int *in, int *out) {
    extern __shared__ int buf[];  // 2 * blockDim.x ints
    int *a = buf, *b = buf + blockDim.x;
    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    a[t] = in[g];
    __syncthreads();
    for (int off = 1; off < blockDim.x; off *= 2) {
        b[t] = a[t] + (t >= off ? a[t - off] : 0);
        __syncthreads();
        int *tmp = a; a = b; b = tmp;
    }
    out[g] = a[t];
}

// static 1 KiB + dynamic n floats; each thread sums its stripe of the dynamic array
__global__ void big_shared(float *out, int n) {
    __shared__ float partial[256];
    extern __shared__ float data[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = (float)(i % 10);
    __syncthreads();
    float s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += data[n - 1 - i];
    partial[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0;
        for (int k = 0; k < blockDim.x; k++) total += partial[k];
        out[blockIdx.x] = total;
    }
}

int main(void) {
    int failures = 0;
    const int threads = 256, blocks = 4, n = threads * blocks;
    int h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = i % 5;
    int *d_in, *d_out;
    cudaCheck(cudaMalloc(&d_in, sizeof h_in));
    cudaCheck(cudaMalloc(&d_out, sizeof h_out));
    cudaCheck(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    block_scan<<<blocks, threads, 2 * threads * sizeof(int)>>>(d_in, d_out);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < blocks; b++) {
        int run = 0;
        for (int t = 0; t < threads; t++) {
            run += h_in[b * threads + t];
            bad += h_out[b * threads + t] != run;
        }
    }
    printf("block scan: out[255] = %d, out[256] = %d, out[1023] = %d, mismatches %d\n", h_out[255], h_out[256],
           h_out[1023], bad);
    failures += bad;

    // 80 KiB of dynamic shared memory
    const int big_n = 20 * 1024;
    const size_t big_bytes = big_n * sizeof(float);
    float *d_sum, h_sum[2];
    cudaCheck(cudaMalloc(&d_sum, sizeof h_sum));
    big_shared<<<2, 256, big_bytes>>>(d_sum, big_n);
    cudaError_t e = cudaGetLastError();
    printf("80 KiB without the attribute: %s\n", cudaGetErrorName(e));
    failures += e == cudaSuccess;

    cudaCheck(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)big_bytes));
    big_shared<<<2, 256, big_bytes>>>(d_sum, big_n);
    e = cudaGetLastError();
    printf("80 KiB after cudaFuncSetAttribute: %s\n", cudaGetErrorName(e));
    failures += e != cudaSuccess;
    cudaCheck(cudaMemcpy(h_sum, d_sum, sizeof h_sum, cudaMemcpyDeviceToHost));
    double want = 0;
    for (int i = 0; i < big_n; i++) want += i % 10;
    printf("sums: %.0f %.0f (want %.0f)\n", h_sum[0], h_sum[1], want);
    failures += h_sum[0] != want || h_sum[1] != want;

    // one byte more than the attribute allows fails again
    big_shared<<<2, 256, big_bytes + 4>>>(d_sum, big_n);
    e = cudaGetLastError();
    printf("4 bytes past the attribute fails: %s\n", e != cudaSuccess ? "yes" : "no");
    failures += e == cudaSuccess;

    cudaCheck(cudaFree(d_in));
    cudaCheck(cudaFree(d_out));
    cudaCheck(cudaFree(d_sum));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
