// strided-access.cu (solution): number the elements in the order they lie in
// memory, row by row: consecutive threads read and write consecutive floats.

extern "C" __global__ void add_bias(const float *in, const float *bias, float *out,
                                   int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols)
        return;
    int r = i / cols;
    int c = i % cols;
    out[r * cols + c] = in[r * cols + c] + bias[c];   // = out[i] = in[i] + bias[c]
}
