// tests/programs/cooperative_launch.cu: cooperative groups across the whole
// grid. cudaLaunchCooperativeKernel (the device supports it:
// cudaDevAttrCooperativeLaunch) with a grid small enough to be resident at
// once, grid.sync() between two phases of one kernel (phase 2 reads what
// other blocks wrote in phase 1), thread_block and tiled_partition<32>
// reductions with cg::reduce. The emulator does not run grid-wide
// synchronisation yet: there the program must fail, naming it.
// cudojo: emu-fails=cooperative_groups::this_grid().sync()
#include <cstdio>
#include <cstdlib>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

// phase 1: each block sums its slice into partial[block]; grid.sync();
// phase 2: every block reads all partials, block b writes total * (b + 1)
__global__ void two_phase(const int *x, int n, int *partial, int *out) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ int warp_sums[32];
    int v = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) v += x[i];
    int ws = cg::reduce(warp, v, cg::plus<int>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = ws;
    block.sync();
    if (block.thread_rank() == 0) {
        int s = 0;
        for (int w = 0; w < (int)warp.meta_group_size(); w++) s += warp_sums[w];
        partial[blockIdx.x] = s;
    }
    grid.sync();
    if (block.thread_rank() == 0) {
        int total = 0;
        for (int b = 0; b < (int)gridDim.x; b++) total += partial[b];
        out[blockIdx.x] = total * (blockIdx.x + 1);
    }
}

int main(void) {
    int coop = 0;
    cudaCheck(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    printf("cooperative launch supported: %d\n", coop);
    const int n = 50000, blocks = 8, threads = 256;
    int *h = (int *)malloc(n * sizeof(int));
    long ref = 0;
    for (int i = 0; i < n; i++) {
        h[i] = i % 17;
        ref += h[i];
    }
    int per_sm = 0;
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, two_phase, threads, 0));
    printf("the grid fits on the device at once: %s\n", per_sm >= 1 ? "yes" : "no");

    int *d_x, *d_partial, *d_out, out[blocks];
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d_partial, blocks * sizeof(int)));
    cudaCheck(cudaMalloc(&d_out, blocks * sizeof(int)));
    cudaCheck(cudaMemcpy(d_x, h, n * sizeof(int), cudaMemcpyHostToDevice));
    int nn = n;
    void *args[] = {&d_x, &nn, &d_partial, &d_out};
    cudaCheck(cudaLaunchCooperativeKernel((void *)two_phase, dim3(blocks), dim3(threads), args, 0, 0));
    cudaCheck(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < blocks; b++) bad += out[b] != ref * (b + 1);
    printf("total %d (reference %ld), block 7 wrote %d, mismatches %d\n", out[0], ref, out[7], bad);

    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_partial));
    cudaCheck(cudaFree(d_out));
    free(h);
    bool ok = bad == 0 && coop == 1 && per_sm >= 1;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
