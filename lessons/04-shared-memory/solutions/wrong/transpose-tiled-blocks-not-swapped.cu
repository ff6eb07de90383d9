// transpose-tiled.cu (typical mistake): the tile is transposed inside, but it
// is written back to the same block position (blockIdx.x still picks the
// column). On a non-square matrix the tiles land in the wrong place or
// outside out.

#ifndef TILE
#define TILE 32
#endif
#ifndef ROWS
#define ROWS 8
#endif

extern "C" __global__ void transpose(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;

    int c = blockIdx.x * TILE + tx;
    int r = blockIdx.y * TILE + ty;
    for (int j = 0; j < TILE; j += ROWS)
        if (c < cols && r + j < rows)
            tile[ty + j][tx] = in[(r + j) * cols + c];

    __syncthreads();

    for (int j = 0; j < TILE; j += ROWS)
        if (c < rows && r + j < cols)
            out[(r + j) * rows + c] = tile[tx][ty + j];
}
