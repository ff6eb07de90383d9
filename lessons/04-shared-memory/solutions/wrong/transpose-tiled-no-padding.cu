// transpose-tiled.cu (typical mistake): the tile has no padding (see the end).
#ifndef TILE
#define TILE 32
#endif
#ifndef ROWS
#define ROWS 8
#endif

extern "C" __global__ void transpose(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;

    int c = blockIdx.x * TILE + tx;
    int r = blockIdx.y * TILE + ty;
    for (int j = 0; j < TILE; j += ROWS)
        if (c < cols && r + j < rows)
            tile[ty + j][tx] = in[(r + j) * cols + c];

    __syncthreads();

    c = blockIdx.y * TILE + tx;
    r = blockIdx.x * TILE + ty;
    for (int j = 0; j < TILE; j += ROWS)
        if (c < rows && r + j < cols)
            out[(r + j) * rows + c] = tile[tx][ty + j];
}

// Writing a row of the tile is fine, but reading a column, tile[tx][ty + j]
// for tx = 0..31, hits 32 addresses TILE * 4 bytes apart: all in the same
// bank, a 32-way bank conflict that serialises every read.
