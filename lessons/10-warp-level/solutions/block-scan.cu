// block-scan.cu (solution): Hillis-Steele scan in each warp with
// __shfl_up_sync, the warp totals scanned by warp 0, then added back.

#define FULL_MASK 0xffffffffu

__device__ int warp_inclusive_scan(int v)
{
    int lane = threadIdx.x % 32;
    for (int d = 1; d < 32; d *= 2) {
        int below = __shfl_up_sync(FULL_MASK, v, d);   // every lane calls it
        if (lane >= d)
            v += below;
    }
    return v;
}

__device__ int block_inclusive_scan(int v, int *total)
{
    __shared__ int warp_sums[32];
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    int warps = blockDim.x / 32;

    v = warp_inclusive_scan(v);
    __syncthreads();                   // a previous call may still be reading warp_sums
    if (lane == 31)
        warp_sums[warp] = v;
    __syncthreads();

    if (warp == 0) {
        int s = (lane < warps) ? warp_sums[lane] : 0;
        s = warp_inclusive_scan(s);
        if (lane < warps)
            warp_sums[lane] = s;
    }
    __syncthreads();

    if (warp > 0)
        v += warp_sums[warp - 1];
    *total = warp_sums[warps - 1];
    return v;
}

extern "C" __global__ void block_scan(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    int total;
    v = block_inclusive_scan(v, &total);
    if (i < n)
        out[i] = v;
}
