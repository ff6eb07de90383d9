// transpose-tiled.cu: out = the transpose of in (in is rows x cols, out is cols x rows,
// both row-major): out[c * rows + r] = in[r * cols + c]. Blocks of TILE x ROWS threads,
// a TILE x TILE tile each. Correct but SLOW: its writes are `rows` floats apart.
#ifndef TILE
#define TILE 32    // the exercise passes TILE and ROWS: they match its launch shape
#endif
#ifndef ROWS
#define ROWS 8     // blockDim.y: each thread handles TILE / ROWS rows of the tile
#endif

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

// Targets: global accesses <= 4 sectors per request and no shared bank
// conflicts on the emulator; a share of the device-to-device copy bandwidth on
// a GPU (the exercise says how much). On a GPU the exercise launches 64 x 4
// blocks on 64 x 64 tiles: each thread moves 16 elements, so more loads are in
// flight while other blocks wait at their barrier.
