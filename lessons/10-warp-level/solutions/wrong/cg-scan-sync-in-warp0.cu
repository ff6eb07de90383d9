// cg-scan.cu (typical mistake): the second block.sync() is inside `if (w == 0)`.
// A barrier must be reached by every thread of the block; here only warp 0
// reaches it, and the other warps read warp_sums without waiting.

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_scan_cg(const int *in, int *out, int *totals, int n)
{
    __shared__ int warp_sums[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int lane = warp.thread_rank();
    int w = warp.meta_group_rank();
    int warps = warp.meta_group_size();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;

    v = cg::inclusive_scan(warp, v);
    if (lane == warp.num_threads() - 1)
        warp_sums[w] = v;
    block.sync();

    if (w == 0) {
        int s = (lane < warps) ? warp_sums[lane] : 0;
        int sum = cg::reduce(warp, s, cg::plus<int>());
        s = cg::inclusive_scan(warp, s);
        if (lane < warps)
            warp_sums[lane] = s;
        if (lane == 0)
            totals[blockIdx.x] = sum;
        block.sync();
    }

    if (w > 0)
        v += warp_sums[w - 1];
    if (i < n)
        out[i] = v;
}
