// tests/programs/cg_partitions.cu: cooperative groups inside a block. Static
// tiles (tiled_partition<16>, <4>) with their shuffles, votes and ranks; a
// dynamic tiled_partition(block, 8); coalesced_threads() in a divergent
// branch; labeled_partition and binary_partition; cg::reduce with plus,
// greater and bit_xor; cg::inclusive_scan and exclusive_scan; the block's
// index helpers; cg::memcpy_async into shared memory with cg::wait. The host
// recomputes every value.
#include <cstdio>
#include <cstdlib>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

const int T = 128, COLS = 14;

__global__ void groups(const int *x, int *out) {
    __shared__ int staged[T];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, staged, x + blockIdx.x * T, sizeof(int) * T);
    cg::wait(block);
    int t = block.thread_rank();
    int v = staged[t];
    int *o = out + (blockIdx.x * T + t) * COLS;
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
    o[0] = cg::reduce(t16, v, cg::plus<int>());
    o[1] = t16.shfl_down(v, 3);
    o[2] = t16.meta_group_rank() * 100 + t16.meta_group_size();
    o[3] = (int)t16.ballot(v % 2 == 1) + t16.any(v > 1000) * 100000 + t16.all(v >= 0) * 200000;
    o[4] = cg::reduce(t4, v, cg::greater<int>());
    o[5] = cg::inclusive_scan(t16, v);
    o[6] = cg::exclusive_scan(t4, v);
    cg::thread_group d8 = cg::tiled_partition(block, 8);
    o[7] = d8.thread_rank() * 10 + (int)d8.size();
    if (v % 3 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        o[8] = active.thread_rank() * 100 + (int)active.size();
        cg::coalesced_group byparity = cg::labeled_partition(active, v % 2);
        o[9] = byparity.thread_rank() * 100 + (int)byparity.size();
    } else {
        o[8] = -1;
        o[9] = -1;
    }
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<32> w2 = cg::tiled_partition<32>(block);
    cg::coalesced_group big = cg::binary_partition(w2, v >= 500);
    o[10] = (int)big.size() * 100 + big.thread_rank();
    o[11] = cg::reduce(warp, (unsigned)v, cg::bit_xor<unsigned>());
    o[12] = block.group_index().x * 1000 + block.thread_index().x;
    o[13] = (int)block.num_threads() + (int)block.dim_threads().x * 10000;
}

int main(void) {
    const int blocks = 2, n = blocks * T;
    int *h = (int *)malloc(n * sizeof(int)), *got = (int *)malloc(n * COLS * sizeof(int));
    for (int i = 0; i < n; i++) h[i] = (i * 37) % 1001;
    int *d_x, *d_o;
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d_o, n * COLS * sizeof(int)));
    cudaCheck(cudaMemcpy(d_x, h, n * sizeof(int), cudaMemcpyHostToDevice));
    groups<<<blocks, T>>>(d_x, d_o);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(got, d_o, n * COLS * sizeof(int), cudaMemcpyDeviceToHost));
    int bad[COLS] = {0};
    for (int i = 0; i < n; i++) {
        int b = i / T, t = i % T, v = h[i], w[COLS];
        int s16 = i / 16 * 16, s4 = i / 4 * 4, s32 = i / 32 * 32, s8 = i / 8 * 8;
        w[0] = 0;
        for (int k = s16; k < s16 + 16; k++) w[0] += h[k];
        w[1] = i + 3 < s16 + 16 ? h[i + 3] : v;
        w[2] = (t / 16) * 100 + T / 16;
        unsigned ballot = 0;
        bool any = false, all = true;
        for (int k = s16; k < s16 + 16; k++) {
            ballot |= (unsigned)(h[k] % 2 == 1) << (k - s16);
            any |= h[k] > 1000;
            all &= h[k] >= 0;
        }
        w[3] = (int)ballot + any * 100000 + all * 200000;
        w[4] = 0;
        for (int k = s4; k < s4 + 4; k++) w[4] = h[k] > w[4] ? h[k] : w[4];
        w[5] = 0;
        for (int k = s16; k <= i; k++) w[5] += h[k];
        w[6] = 0;
        for (int k = s4; k < i; k++) w[6] += h[k];
        w[7] = (t % 8) * 10 + 8;
        if (v % 3 == 0) {
            int rank = 0, size = 0, prank = 0, psize = 0;
            for (int k = s32; k < s32 + 32; k++) {
                if (h[k] % 3) continue;
                size++;
                rank += k < i;
                if (h[k] % 2 == v % 2) psize++, prank += k < i;
            }
            w[8] = rank * 100 + size;
            w[9] = prank * 100 + psize;
        } else w[8] = w[9] = -1;
        int bsize = 0, brank = 0;
        unsigned x = 0;
        for (int k = s32; k < s32 + 32; k++) {
            if ((h[k] >= 500) == (v >= 500)) bsize++, brank += k < i;
            x ^= (unsigned)h[k];
        }
        w[10] = bsize * 100 + brank;
        w[11] = (int)x;
        w[12] = b * 1000 + t;
        w[13] = T + T * 10000;
        (void)s8;
        for (int c = 0; c < COLS; c++) bad[c] += got[i * COLS + c] != w[c];
    }
    int total = 0;
    const char *names[COLS] = {"reduce plus (tile 16)", "shfl_down (tile 16)", "meta group rank/size",
                               "ballot/any/all (tile 16)", "reduce greater (tile 4)", "inclusive_scan (tile 16)",
                               "exclusive_scan (tile 4)", "tiled_partition(block, 8)", "coalesced_threads",
                               "labeled_partition", "binary_partition", "reduce bit_xor (tile 32)",
                               "group_index/thread_index", "num_threads/dim_threads"};
    for (int c = 0; c < COLS; c++) {
        printf("%-26s thread 77: %-8d mismatches %d\n", names[c], got[77 * COLS + c], bad[c]);
        total += bad[c];
    }
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_o));
    free(h);
    free(got);
    printf("%s\n", total == 0 ? "PASS" : "FAIL");
    return total == 0 ? 0 : 1;
}
