// tests/programs/stream_ordered_alloc.cu: stream-ordered memory allocation.
// cudaMallocAsync / cudaFreeAsync on a stream around the kernels that use
// the memory, in a loop (the pool reuses the memory); the allocation is an
// ordinary device pointer (cudaPointerGetAttributes); the default pool's
// release threshold set and read back; cudaMemPoolTrimTo.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void fill(int *x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

__global__ void accumulate(const int *x, int n, long long *sum) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd((unsigned long long *)sum, (unsigned long long)x[i]);
}

int main(void) {
    int supported = 0, failures = 0;
    cudaCheck(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
    printf("memory pools supported: %d\n", supported);

    cudaMemPool_t pool;
    cudaCheck(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t threshold = 64ull << 20, back = 0;
    cudaCheck(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    cudaCheck(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &back));
    printf("release threshold read back: %llu MiB\n", (unsigned long long)(back >> 20));
    failures += back != threshold;

    cudaStream_t s;
    cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    long long *d_sum, h_sum = 0;
    cudaCheck(cudaMallocAsync(&d_sum, sizeof(long long), s));
    cudaCheck(cudaMemsetAsync(d_sum, 0, sizeof(long long), s));
    const int n = 10000;
    for (int r = 1; r <= 5; r++) {
        int *tmp;
        cudaCheck(cudaMallocAsync(&tmp, n * sizeof(int), s));
        if (r == 1) {
            cudaPointerAttributes a;
            cudaCheck(cudaPointerGetAttributes(&a, tmp));
            printf("a cudaMallocAsync pointer is device memory: %s\n", a.type == cudaMemoryTypeDevice ? "yes" : "no");
            failures += a.type != cudaMemoryTypeDevice;
        }
        fill<<<(n + 255) / 256, 256, 0, s>>>(tmp, n, r);
        accumulate<<<(n + 255) / 256, 256, 0, s>>>(tmp, n, d_sum);
        cudaCheck(cudaGetLastError());
        cudaCheck(cudaFreeAsync(tmp, s));
    }
    cudaCheck(cudaMemcpyAsync(&h_sum, d_sum, sizeof h_sum, cudaMemcpyDeviceToHost, s));
    cudaCheck(cudaFreeAsync(d_sum, s));
    cudaCheck(cudaStreamSynchronize(s));
    printf("sum over 5 rounds of %d elements: %lld\n", n, h_sum);
    failures += h_sum != 15LL * n;
    cudaCheck(cudaMemPoolTrimTo(pool, 0));
    cudaCheck(cudaStreamDestroy(s));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
