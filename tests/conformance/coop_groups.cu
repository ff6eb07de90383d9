// tests/conformance/coop_groups.cu: cooperative_groups thread_block and
// tiled_partition<32>/<8> reductions (shfl under the hood), one int per block.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile_reduce(const int *a, int *out, int *tile8, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> oct = cg::tiled_partition<8>(block);
    __shared__ int sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? a[i] : 0;
    int o = v;
    for (int off = oct.size() / 2; off > 0; off /= 2) o += oct.shfl_down(o, off);
    if (oct.thread_rank() == 0 && i < n) tile8[i / 8] = o;
    for (int off = warp.size() / 2; off > 0; off /= 2) v += warp.shfl_down(v, off);
    if (warp.thread_rank() == 0) sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? sums[warp.thread_rank()] : 0;
        for (int off = warp.size() / 2; off > 0; off /= 2) v += warp.shfl_down(v, off);
        if (warp.thread_rank() == 0) out[blockIdx.x] = v;
    }
}
