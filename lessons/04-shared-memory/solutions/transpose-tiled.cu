// transpose-tiled.cu (solution): read a TILE x TILE tile row by row
// (coalesced), barrier, write it back row by row of out (coalesced) reading a
// COLUMN of the tile. The +1 padding puts tile[i][j] in bank
// ((TILE + 1) i + j) mod 32, so 32 consecutive elements of a column fall into
// 32 different banks (TILE is a multiple of 32). Each thread moves
// TILE * TILE / (TILE * ROWS) elements: with 64 x 64 tiles and 64 x 4 blocks,
// 16 loads per thread are in flight before the barrier.

#ifndef TILE
#define TILE 32    // the exercise passes TILE and ROWS: they match its launch shape
#endif
#ifndef ROWS
#define ROWS 8     // blockDim.y
#endif

extern "C" __global__ void __launch_bounds__(TILE * ROWS) transpose(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;

    int c = blockIdx.x * TILE + tx;   // column in `in`
    int r = blockIdx.y * TILE + ty;   // row in `in`
    for (int j = 0; j < TILE; j += ROWS)
        if (c < cols && r + j < rows)
            tile[ty + j][tx] = in[(r + j) * cols + c];

    __syncthreads();

    // The block's tile goes to rows blockIdx.x * TILE.. of out: swap the blocks.
    c = blockIdx.y * TILE + tx;       // column in `out` (a row of `in`)
    r = blockIdx.x * TILE + ty;       // row in `out` (a column of `in`)
    for (int j = 0; j < TILE; j += ROWS)
        if (c < rows && r + j < cols)
            out[(r + j) * rows + c] = tile[tx][ty + j];
}
