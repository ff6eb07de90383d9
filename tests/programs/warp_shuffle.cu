// tests/programs/warp_shuffle.cu: warp-level primitives in a program. A
// block sum built from __shfl_down_sync per warp plus shared memory across
// warps; __shfl_xor_sync butterfly (every lane gets the total);
// __shfl_sync broadcast from lane 5; __shfl_up_sync inclusive scan;
// __ballot_sync and __popc counting lanes; __any_sync/__all_sync.
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

const unsigned FULL = 0xffffffffu;

__global__ void block_sum(const int *x, int *out, int n) {
    __shared__ int warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? x[i] : 0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(FULL, v, off);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_sums[lane] : 0;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(FULL, v, off);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

// per lane of one warp: [0] butterfly total, [1] lane 5's value, [2] inclusive scan,
// [3] ballot of odd values, [4] popc of it, [5] any > 90, [6] all >= 0
__global__ void warp_ops(const int *x, int *out) {
    int lane = threadIdx.x;
    int v = x[lane];
    int total = v;
    for (int m = 16; m > 0; m >>= 1) total += __shfl_xor_sync(FULL, total, m);
    int from5 = __shfl_sync(FULL, v, 5);
    int scan = v;
    for (int off = 1; off < 32; off <<= 1) {
        int up = __shfl_up_sync(FULL, scan, off);
        if (lane >= off) scan += up;
    }
    unsigned odd = __ballot_sync(FULL, v & 1);
    out[0 * 32 + lane] = total;
    out[1 * 32 + lane] = from5;
    out[2 * 32 + lane] = scan;
    out[3 * 32 + lane] = (int)odd;
    out[4 * 32 + lane] = __popc(odd);
    out[5 * 32 + lane] = __any_sync(FULL, v > 90);
    out[6 * 32 + lane] = __all_sync(FULL, v >= 0);
}

int main(void) {
    int failures = 0;
    const int n = 10000, threads = 256, blocks = (n + threads - 1) / threads;
    int *h = (int *)malloc(n * sizeof(int)), *sums = (int *)malloc(blocks * sizeof(int));
    for (int i = 0; i < n; i++) h[i] = (i * 31) % 97;
    int *d_x, *d_out;
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d_out, 7 * 32 * sizeof(int)));
    cudaCheck(cudaMemcpy(d_x, h, n * sizeof(int), cudaMemcpyHostToDevice));
    int *d_sums;
    cudaCheck(cudaMalloc(&d_sums, blocks * sizeof(int)));
    block_sum<<<blocks, threads>>>(d_x, d_sums, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(sums, d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    long total = 0, ref = 0;
    for (int b = 0; b < blocks; b++) total += sums[b];
    for (int i = 0; i < n; i++) ref += h[i];
    printf("block sums: %d blocks, first %d, last %d, total %ld (reference %ld)\n", blocks, sums[0], sums[blocks - 1],
           total, ref);
    failures += total != ref;

    int w[7 * 32];
    warp_ops<<<1, 32>>>(d_x, d_out);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(w, d_out, sizeof w, cudaMemcpyDeviceToHost));
    int wsum = 0, run = 0, bad = 0;
    unsigned odd = 0;
    for (int l = 0; l < 32; l++) {
        wsum += h[l];
        if (h[l] & 1) odd |= 1u << l;
    }
    for (int l = 0; l < 32; l++) {
        run += h[l];
        bad += w[l] != wsum || w[32 + l] != h[5] || w[64 + l] != run || (unsigned)w[96 + l] != odd ||
               w[128 + l] != __builtin_popcount(odd);
    }
    printf("warp: total %d on every lane, lane 5's value %d, scan[31] %d, odd ballot 0x%08x (%d lanes)\n", w[0],
           w[32], w[64 + 31], (unsigned)w[96], w[128]);
    printf("any > 90: %d, all >= 0: %d, mismatches %d\n", w[160], w[192], bad);
    failures += bad;

    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_out));
    cudaCheck(cudaFree(d_sums));
    free(h);
    free(sums);
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
