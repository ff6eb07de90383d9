// tests/programs/reduction.cu: the classic parallel reduction, written the
// way the CUDA samples teach it — a grid-stride load, a shared-memory tree
// with __syncthreads, the last warp unrolled with __shfl_down_sync, one
// partial per block, then a second launch over the partials — validated
// against the CPU before it is timed (timing printed only as a predicate).
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

template <int BLOCK>
__global__ void reduce_sum(const long long *in, long long *out, int n) {
    __shared__ long long s[BLOCK];
    long long v = 0;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) v += in[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int w = BLOCK / 2; w >= 32; w /= 2) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        v = s[threadIdx.x];
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0) out[blockIdx.x] = v;
    }
}

int main(void) {
    const int n = 1 << 18, block = 256, grid = 120;
    long long *h = (long long *)malloc(n * sizeof(long long));
    long long ref = 0;
    for (int i = 0; i < n; i++) {
        h[i] = (long long)((i * 2654435761u) % 1000003) - 500000;
        ref += h[i];
    }
    long long *d_in, *d_part, *d_out, result = 0;
    cudaCheck(cudaMalloc(&d_in, n * sizeof(long long)));
    cudaCheck(cudaMalloc(&d_part, grid * sizeof(long long)));
    cudaCheck(cudaMalloc(&d_out, sizeof(long long)));
    cudaCheck(cudaMemcpy(d_in, h, n * sizeof(long long), cudaMemcpyHostToDevice));

    reduce_sum<block><<<grid, block>>>(d_in, d_part, n);
    cudaCheck(cudaGetLastError());
    reduce_sum<block><<<1, block>>>(d_part, d_out, grid);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(&result, d_out, sizeof result, cudaMemcpyDeviceToHost));
    printf("n = %d, %d blocks of %d: sum %lld, reference %lld\n", n, grid, block, result, ref);
    bool ok = result == ref;

    // validated; now timed, after a warm-up
    cudaEvent_t t0, t1;
    cudaCheck(cudaEventCreate(&t0));
    cudaCheck(cudaEventCreate(&t1));
    reduce_sum<block><<<grid, block>>>(d_in, d_part, n);
    cudaCheck(cudaEventRecord(t0));
    for (int r = 0; r < 3; r++) {
        reduce_sum<block><<<grid, block>>>(d_in, d_part, n);
        reduce_sum<block><<<1, block>>>(d_part, d_out, grid);
    }
    cudaCheck(cudaEventRecord(t1));
    cudaCheck(cudaEventSynchronize(t1));
    float ms = 0;
    cudaCheck(cudaEventElapsedTime(&ms, t0, t1));
    double gbs = 3.0 * n * sizeof(long long) / (ms / 1e3) / 1e9;
    printf("bandwidth measured and positive: %s\n", gbs > 0 ? "yes" : "no");
    cudaCheck(cudaMemcpy(&result, d_out, sizeof result, cudaMemcpyDeviceToHost));
    printf("same sum after the timed runs: %s\n", result == ref ? "yes" : "no");
    ok &= result == ref && gbs > 0;

    cudaCheck(cudaEventDestroy(t0));
    cudaCheck(cudaEventDestroy(t1));
    cudaCheck(cudaFree(d_in));
    cudaCheck(cudaFree(d_part));
    cudaCheck(cudaFree(d_out));
    free(h);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
