// launch-overhead.cu (typical mistake): the row and the column blocks swapped.
// blockIdx.x runs over the blocks of one row, not over the rows.

// Given: one launch per row. The exercise calls it `rows` times.
extern "C" __global__ void scale_row(float *m, int row, int cols, float s)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols)
        m[row * cols + c] *= s;
}

extern "C" __global__ void scale_rows(float *m, int rows, int cols, const float *s)
{
    int r = blockIdx.x;
    int c = blockIdx.y * blockDim.x + threadIdx.x;
    if (r < rows && c < cols)
        m[r * cols + c] *= s[r];
}
