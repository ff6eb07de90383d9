// warp-reduce.cu (typical mistake): the shuffle is inside `if (i < n)`. In the
// last block the lanes past the end never reach __shfl_down_sync, yet the
// full mask promises that all 32 lanes take part: undefined behaviour on a
// GPU (a hang or garbage), reported by the emulator.

#define FULL_MASK 0xffffffffu

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

extern "C" __global__ void block_sums(const float *x, float *out, int n)
{
    __shared__ float warp_totals[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    int warps = blockDim.x / 32;

    if (lane == 0)
        warp_totals[warp] = 0.0f;
    if (i < n) {
        float v = warp_sum(x[i]);
        if (lane == 0)
            warp_totals[warp] = v;
    }
    __syncthreads();

    if (warp == 0) {
        float v = (lane < warps) ? warp_totals[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}
