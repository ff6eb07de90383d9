// transpose-tiled.cu: out = the transpose of in (in is rows x cols, out is
// cols x rows, both row-major): out[c * rows + r] = in[r * cols + c].
// Blocks are 32 x 8 threads; each block handles a 32 x 32 tile, so each thread
// moves 4 elements. This version is correct but SLOW: its writes are 32 floats
// apart. Target: global accesses <= 4 sectors per request and no shared bank
// conflicts on the emulator; >= 85% of the device-to-device copy bandwidth on a GPU.

#define TILE 32
#define ROWS 8     // blockDim.y: each thread handles TILE / ROWS = 4 rows of the tile

extern "C" __global__ void transpose(float *out, const float *in, int rows, int cols)
{
    // TODO: stage the tile in shared memory: read it with threadIdx.x along a
    //       row of `in` (coalesced), __syncthreads(), then write it with
    //       threadIdx.x along a row of `out` (coalesced too). Pad the tile so
    //       that reading a column of it does not hit one bank 32 times.

    int c = blockIdx.x * TILE + threadIdx.x;   // column in `in`
    int r = blockIdx.y * TILE + threadIdx.y;   // row in `in`
    for (int j = 0; j < TILE; j += ROWS)
        if (c < cols && r + j < rows)
            out[c * rows + (r + j)] = in[(r + j) * cols + c];   // TODO: a warp writes 32 different rows
}
