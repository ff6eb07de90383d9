// compact-ballot.cu (typical mistake): only the threads inside the array vote.
// In the last block the lanes past the end skip __ballot_sync, yet the full
// mask says all 32 lanes take part: undefined on a GPU, reported by the emulator.

#define FULL_MASK 0xffffffffu

extern "C" __global__ void compact_positive(const float *x, float *out, int *counts, int n)
{
    __shared__ int warp_counts[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    int warps = blockDim.x / 32;

    if (lane == 0)
        warp_counts[warp] = 0;
    __syncthreads();
    if (i < n) {
        bool keep = x[i] > 0.0f;
        unsigned int ballot = __ballot_sync(FULL_MASK, keep);
        int rank = __popc(ballot & ((1u << lane) - 1));
        if (lane == 0)
            warp_counts[warp] = __popc(ballot);
        __syncthreads();
        int offset = 0;
        for (int w = 0; w < warp; w++)
            offset += warp_counts[w];
        if (keep)
            out[blockIdx.x * blockDim.x + offset + rank] = x[i];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int total = 0;
        for (int w = 0; w < warps; w++)
            total += warp_counts[w];
        counts[blockIdx.x] = total;
    }
}
