// strided-access.cu (typical mistake): r = i / rows, c = i % rows. It works
// for a square matrix only; here rows != cols, so c runs past the end of a
// row and r past the last row.

extern "C" __global__ void add_bias(const float *in, const float *bias, float *out,
                                   int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols)
        return;
    int r = i / rows;
    int c = i % rows;
    out[r * cols + c] = in[r * cols + c] + bias[c];
}
