// launch-overhead.cu: multiply every row r of a rows x cols matrix by s[r].
//
// scale_row (given) does ONE row per launch, so the host launches it `rows`
// times. Each launch costs a few microseconds of fixed overhead (the CPU
// prepares and submits it, the GPU starts a grid and waits for it to drain),
// while a row of a few thousand floats takes well under a microsecond to
// process: the GPU spends most of its time waiting for the next launch.
//
// Write scale_rows: all rows in ONE launch. The exercise launches it with a
// 2-D grid: gridDim.x = ceil(cols / blockDim.x) blocks along a row, and
// gridDim.y = rows, one row of blocks per matrix row.

// Given: one launch per row. The exercise calls it `rows` times.
extern "C" __global__ void scale_row(float *m, int row, int cols, float s)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols)
        m[row * cols + c] *= s;
}

extern "C" __global__ void scale_rows(float *m, int rows, int cols, const float *s)
{
    // TODO: the block's y index is the row, the thread's global x index the column;
    //       scale that element of m (row-major) by s[row], only for columns inside the matrix.
}
