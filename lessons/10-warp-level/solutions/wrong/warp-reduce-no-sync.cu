// warp-reduce.cu (typical mistake): no barrier between storing the warp sums
// and reading them. Warp 0 may read warp_totals[3] before warp 3 has stored
// it; the emulator runs warps in shuffled order and reports the race.

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

    float v = (i < n) ? x[i] : 0.0f;
    v = warp_sum(v);
    if (lane == 0)
        warp_totals[warp] = v;

    if (warp == 0) {
        v = (lane < warps) ? warp_totals[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}
