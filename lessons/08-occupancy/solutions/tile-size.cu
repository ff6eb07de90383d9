// tile-size.cu (solution). A tile of 256 x ITEMS floats is ITEMS KiB, plus
// 1 KiB reserved per block. Six blocks (48 of 64 warps) must fit:
//   sm_80: 6 x (ITEMS + 1) <= 164  ->  ITEMS <= 26.3
//   sm_90: 6 x (ITEMS + 1) <= 228  ->  ITEMS <= 37
// The smaller SM decides: 26 (26 KiB tiles; 27 would leave room for only 5
// blocks on an A100: 62.5%).

#define ITEMS_PER_THREAD 26

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
