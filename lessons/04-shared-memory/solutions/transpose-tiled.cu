// transpose-tiled.cu (solution): read a 32 x 32 tile row by row (coalesced),
// barrier, write it back row by row of out (coalesced) reading a COLUMN of the
// tile. The +1 padding puts tile[i][j] in bank (33 i + j) mod 32, so the 32
// elements of a column fall into 32 different banks.

#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose(float *out, const float *in, int rows, int cols)
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
