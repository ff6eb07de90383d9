// tests/programs/device_malloc.cu: device limits and the device heap.
// cudaDeviceGetLimit defaults (stack 1 KiB per thread, printf FIFO
// 8650752 bytes on the H200, malloc heap 8 MiB), cudaDeviceSetLimit of the heap before the first
// kernel, malloc/free inside kernels (each thread its own block, one block
// shared through a __shared__ pointer), and a device malloc larger than the
// heap returning NULL.
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

// each thread mallocs n ints, fills them, sums them; out[i] = sum, or -1 when malloc failed
__global__ void per_thread(int n, long long *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = (int *)malloc(n * sizeof(int));
    if (!p) { out[i] = -1; return; }
    for (int k = 0; k < n; k++) p[k] = i + k;
    long long s = 0;
    for (int k = 0; k < n; k++) s += p[k];
    free(p);
    out[i] = s;
}

// thread 0 mallocs for the block; everyone writes its slot; thread 0 sums and frees
__global__ void per_block(long long *out) {
    __shared__ int *shared_buf;
    if (threadIdx.x == 0) shared_buf = (int *)malloc(blockDim.x * sizeof(int));
    __syncthreads();
    if (!shared_buf) { if (threadIdx.x == 0) out[blockIdx.x] = -1; return; }
    shared_buf[threadIdx.x] = threadIdx.x * (blockIdx.x + 1);
    __syncthreads();
    if (threadIdx.x == 0) {
        long long s = 0;
        for (int k = 0; k < blockDim.x; k++) s += shared_buf[k];
        free(shared_buf);
        out[blockIdx.x] = s;
    }
}

__global__ void too_big(int *was_null) {
    void *p = malloc((size_t)1 << 30);
    *was_null = p == NULL;
    free(p);
}

int main(void) {
    size_t stack = 0, fifo = 0, heap = 0;
    cudaCheck(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    cudaCheck(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
    cudaCheck(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    printf("default limits: stack %zu, printf FIFO %zu, malloc heap %zu\n", stack, fifo, heap);
    cudaCheck(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32u << 20));
    cudaCheck(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    printf("malloc heap after setting 32 MiB: %zu\n", heap);

    const int threads = 128, blocks = 4, n = 100;
    long long h[threads * blocks], *d;
    cudaCheck(cudaMalloc(&d, sizeof h));
    per_thread<<<blocks, threads>>>(n, d);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < threads * blocks; i++) bad += h[i] != (long long)n * i + n * (n - 1) / 2;
    printf("per-thread malloc: out[0] = %lld, out[511] = %lld, mismatches %d\n", h[0], h[511], bad);

    per_block<<<blocks, threads>>>(d);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h, d, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
    printf("per-block malloc: %lld %lld %lld %lld\n", h[0], h[1], h[2], h[3]);
    for (int b = 0; b < blocks; b++) bad += h[b] != 8128LL * (b + 1);

    int *d_null, was_null = 0;
    cudaCheck(cudaMalloc(&d_null, sizeof(int)));
    too_big<<<1, 1>>>(d_null);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(&was_null, d_null, sizeof(int), cudaMemcpyDeviceToHost));
    printf("malloc of 1 GiB from a 32 MiB heap returns NULL: %s\n", was_null ? "yes" : "no");

    cudaCheck(cudaFree(d));
    cudaCheck(cudaFree(d_null));
    bool ok = bad == 0 && was_null && stack == 1024;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
