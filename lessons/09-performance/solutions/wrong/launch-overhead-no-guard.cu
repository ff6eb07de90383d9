// launch-overhead.cu (typical mistake): no column guard. cols is not a
// multiple of the block size, so the last block of each row spills into the
// start of the next row (scaling it twice) and, after the last row, past the
// end of the matrix.

// Given: one launch per row. The exercise calls it `rows` times.
extern "C" __global__ void scale_row(float *m, int row, int cols, float s)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols)
        m[row * cols + c] *= s;
}

extern "C" __global__ void scale_rows(float *m, int rows, int cols, const float *s)
{
    int r = blockIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    m[r * cols + c] *= s[r];
}
