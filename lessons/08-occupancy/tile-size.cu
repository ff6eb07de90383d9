// tile-size.cu: reverse every tile of `in` into `out`. Block b takes the
// tile of TILE = blockDim.x * ITEMS_PER_THREAD floats starting at b * TILE
// (the last tile may be shorter), stages it in dynamic shared memory with
// coalesced reads, and writes it back reversed with coalesced writes:
//
//   in:  | a b c d e f | g h i j k l | m n o |
//   out: | f e d c b a | l k j i h g | o n m |
//
// The kernel is finished. What is left is its size: the exercise launches
// blocks of 256 threads with TILE * 4 bytes of dynamic shared memory each.
// Bigger tiles mean fewer blocks and, in real tiled kernels (a stencil's
// halo, a matrix tile), more reuse of every byte loaded; but every resident
// block needs its whole tile in the SM's shared memory, so bigger tiles
// also mean fewer resident blocks.
//
// Goal: the LARGEST ITEMS_PER_THREAD that still gives at least 75%
// occupancy (48 of 64 warps: 6 blocks of 256) on both
//   sm_80 (A100):      164 KiB of shared memory per SM
//   sm_90 (H100/H200): 228 KiB of shared memory per SM
// Each block also takes 1 KiB of shared memory reserved by the system.

// TODO: choose the tile size (floats per thread).
#define ITEMS_PER_THREAD 48

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
