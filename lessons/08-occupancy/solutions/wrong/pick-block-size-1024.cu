// pick-block-size.cu (typical mistake): "the biggest block is the best".
// 1024 threads = 32 warps: 2 blocks fill an sm_80 or sm_90 SM, but an sm_86
// SM holds 48 warps, so only 1 block fits: 32 of 48 warps, 67%.

#define BLOCK_SIZE 1024

#define BINS 4096

extern "C" __global__ void block_size(int *out)
{
    out[0] = BLOCK_SIZE;
}

extern "C" __global__ void histogram(const int *data, int n, unsigned int *hist)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int v = data[i];
        // Random values: lanes of a warp sometimes hit the same bank, so the
        // emulator warns of bank conflicts here; expected, not this topic.
        if (v >= 0 && v < BINS)
            atomicAdd(&local[v], 1u);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b] != 0)
            atomicAdd(&hist[b], local[b]);
}
