// tile-size.cu (typical mistake): computed for the H200 only. 6 x (37 + 1)
// = 228 KiB fits sm_90 exactly, but an A100 has 164 KiB per SM: 4 blocks,
// 50%. A kernel meant for several GPUs has to fit the smallest.

#define ITEMS_PER_THREAD 37

extern "C" __global__ void tile_items(int *out)
{
    out[0] = ITEMS_PER_THREAD;
}

extern "C" __global__ void reverse_tiles(const float *in, float *out, int n)
{
    extern __shared__ float tile[];          // blockDim.x * ITEMS_PER_THREAD floats
    int size = blockDim.x * ITEMS_PER_THREAD;
    long long start = (long long)blockIdx.x * size;
    int len = n - start < size ? (int)(n - start) : size;

    for (int j = threadIdx.x; j < len; j += blockDim.x)
        tile[j] = in[start + j];
    __syncthreads();
    for (int j = threadIdx.x; j < len; j += blockDim.x)
        out[start + j] = tile[len - 1 - j];
}
