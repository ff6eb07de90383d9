// block-scan.cu: an inclusive scan (prefix sum) of each block's elements,
//   out[i] = in[first of my block] + ... + in[i],
// built from warp scans. Two levels, like the reduction:
//
//   1. each warp scans its 32 values with __shfl_up_sync (Hillis-Steele):
//        d = 1:  v[l] += v[l-1]   (lanes l >= 1)
//        d = 2:  v[l] += v[l-2]   (lanes l >= 2)
//        d = 4, 8, 16 ...         after 5 steps lane l holds v[0] + ... + v[l]
//   2. lane 31 of each warp holds the warp's total. Warp 0 scans those totals
//      (one per warp) and every warp adds the totals of the warps before it.
//
// The block size is any multiple of 32 up to 1024 (the exercise uses 256, 1024 and 96).

#define FULL_MASK 0xffffffffu

__device__ int warp_inclusive_scan(int v)
{
    int lane = threadIdx.x % 32;
    // TODO: for d = 1, 2, 4, 8, 16: read v from the lane d below with a
    //       shuffle up (every lane of the warp must call it, even lanes that
    //       will not use the value) and add it only if that lane exists.
    (void)lane;
    return v;
}

// Every thread of the block must call this (it has barriers). Returns the
// inclusive scan of v over the block, and the block's total in *total.
__device__ int block_inclusive_scan(int v, int *total)
{
    __shared__ int warp_sums[32];
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    int warps = blockDim.x / 32;

    v = warp_inclusive_scan(v);
    __syncthreads();        // a previous call may still be reading warp_sums

    // TODO 1: lane 31 stores its warp's total in warp_sums[warp]; barrier.
    // TODO 2: warp 0 replaces warp_sums[0..warps-1] by their inclusive scan
    //         (lanes >= warps scan a 0 and store nothing); barrier.
    // TODO 3: warps after the first add the total of all warps before them,
    //         warp_sums[warp - 1].

    *total = warp_sums[warps - 1];
    (void)lane; (void)warp;
    return v;
}

extern "C" __global__ void block_scan(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;       // all threads scan, even past the end
    int total;
    v = block_inclusive_scan(v, &total);
    if (i < n)
        out[i] = v;
}
