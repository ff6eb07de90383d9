// warp-reduce.cu: out[b] = the sum of the elements that block b's threads
// hold (one element per thread; threads past the end hold 0). No shared-memory
// tree this time: the 32 lanes of a warp add their values through registers
// with __shfl_down_sync, and shared memory only carries one number per warp.
//
//   lane:      0   1   2   3  ...  16  17 ... 31
//   offset 16: v0 += v16, v1 += v17, ...           (lanes 16..31: don't care)
//   offset  8: v0 += v8, ...
//   ...        after offset 1, lane 0 holds the warp's sum
//
// The block size is any multiple of 32 up to 1024 (the exercise uses 256 and 96).

#define FULL_MASK 0xffffffffu

__device__ float warp_sum(float v)
{
    // TODO: for offset = 16, 8, 4, 2, 1: add to v the v of the lane `offset`
    //       places higher (a shuffle down, called by all 32 lanes). Lane 0 ends with the sum.
    return v;
}

extern "C" __global__ void block_sums(const float *x, float *out, int n)
{
    __shared__ float warp_totals[32];             // one slot per warp (at most 32 warps)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // You will need: int lane = threadIdx.x % 32, warp = threadIdx.x / 32,
    //                warps = blockDim.x / 32;

    float v = (i < n) ? x[i] : 0.0f;              // every lane takes part, even past the end
    v = warp_sum(v);

    // TODO 1: lane 0 of each warp stores its warp's sum in warp_totals[warp].
    // TODO 2: the first warp will read what the other warps stored: wait for them.
    // TODO 3: warp 0 takes warp_totals[lane] (0 for lane >= warps), sums it with
    //         warp_sum, and thread 0 writes the block's sum to out[blockIdx.x].

    if (threadIdx.x == 0)
        out[blockIdx.x] = v;
}
