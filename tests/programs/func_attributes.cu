// tests/programs/func_attributes.cu: cudaFuncGetAttributes and
// cudaFuncSetAttribute. Printed: the fields the source fixes — the maximum
// block size (1024, or the __launch_bounds__), static shared memory, the
// raised dynamic shared memory limit — never the register count, which is
// the compiler's choice. A launch past the launch bounds fails.
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

__global__ void plain(float *x) { x[threadIdx.x] += 1.0f; }

__global__ void __launch_bounds__(256) bounded(float *x) { x[threadIdx.x] *= 2.0f; }

__global__ void with_static_shared(float *x) {
    __shared__ float tile[256];
    __shared__ int flags[8];
    tile[threadIdx.x] = x[threadIdx.x];
    if (threadIdx.x < 8) flags[threadIdx.x] = 1;
    __syncthreads();
    x[threadIdx.x] = tile[255 - threadIdx.x] + flags[threadIdx.x % 8];
}

__global__ void with_dynamic_shared(float *x, int n) {
    extern __shared__ float buf[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = x[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = buf[n - 1 - i];
}

static void show(const char *name, const void *f) {
    cudaFuncAttributes a;
    cudaCheck(cudaFuncGetAttributes(&a, f));
    printf("%-20s maxThreadsPerBlock %4d, sharedSizeBytes %4zu\n", name, a.maxThreadsPerBlock, a.sharedSizeBytes);
}

int main(void) {
    show("plain", (const void *)plain);
    show("bounded", (const void *)bounded);
    show("with_static_shared", (const void *)with_static_shared);
    show("with_dynamic_shared", (const void *)with_dynamic_shared);

    cudaCheck(cudaFuncSetAttribute(with_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
    cudaFuncAttributes a;
    cudaCheck(cudaFuncGetAttributes(&a, (const void *)with_dynamic_shared));
    printf("maxDynamicSharedSizeBytes after raising it to 100 KiB: %d\n", a.maxDynamicSharedSizeBytes);

    cudaError_t e = cudaFuncSetAttribute(with_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         300 * 1024);
    printf("raising it past the opt-in limit: %s\n", cudaGetErrorName(e));
    cudaGetLastError();

    // the raised limit is usable: 100 KiB of dynamic shared memory
    const int n = 25 * 1024;
    float *h = (float *)malloc(n * sizeof(float)), *d;
    for (int i = 0; i < n; i++) h[i] = (float)i;
    cudaCheck(cudaMalloc(&d, n * sizeof(float)));
    cudaCheck(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    with_dynamic_shared<<<1, 512, n * sizeof(float)>>>(d, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != (float)(n - 1 - i);
    printf("reversed %d floats through 100 KiB of shared memory: mismatches %d\n", n, bad);

    // launching beyond the block size the launch bounds allow fails
    bounded<<<1, 512>>>(d);
    cudaError_t le = cudaGetLastError();
    printf("bounded<<<1, 512>>> fails: %s\n", le != cudaSuccess ? "yes" : "no");

    cudaCheck(cudaFree(d));
    free(h);
    bool ok = bad == 0 && a.maxDynamicSharedSizeBytes == 100 * 1024 && e == cudaErrorInvalidValue && le != cudaSuccess;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
