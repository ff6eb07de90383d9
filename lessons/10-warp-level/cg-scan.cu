// cg-scan.cu: the block scan of block-scan.cu again, written with cooperative
// groups: named groups of threads instead of lane arithmetic and raw masks.
//
//   cg::thread_block block = cg::this_thread_block();   // the whole block
//   auto warp = cg::tiled_partition<32>(block);         // this thread's warp
//   warp.thread_rank()      lane (0..31)      warp.meta_group_rank()  warp number
//   warp.meta_group_size()  warps per block   block.sync()            __syncthreads()
//   cg::inclusive_scan(warp, v)        the warp scan you wrote with __shfl_up_sync
//   cg::reduce(warp, v, cg::plus<int>()) the warp sum (every lane gets it)
//
// Kernel: out[i] = inclusive scan of the block's elements (as before) and
// totals[blockIdx.x] = the block's sum.

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

    // TODO 1: scan v across the warp with cg::inclusive_scan.
    // TODO 2: the last lane of each warp stores the warp's total in warp_sums[w];
    //         block.sync().
    // TODO 3: warp 0 replaces warp_sums[0..warps-1] by their inclusive scan
    //         (cg::inclusive_scan again); block.sync().
    // TODO 4: warps after the first add warp_sums[w - 1].

    if (i < n)
        out[i] = v;

    // TODO 5: the block's total is warp_sums[warps - 1]; thread 0 writes it to
    //         totals[blockIdx.x]. (Or add the warp sums with cg::reduce.)
    (void)lane; (void)w; (void)warps; (void)warp_sums;
}
