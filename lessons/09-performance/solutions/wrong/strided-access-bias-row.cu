// strided-access.cu (typical mistake): coalesced, but the bias is taken per
// ROW (bias[r]) instead of per column; bias has cols entries.

extern "C" __global__ void add_bias(const float *in, const float *bias, float *out,
                                   int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols)
        return;
    int r = i / cols;
    int c = i % cols;
    out[r * cols + c] = in[r * cols + c] + bias[r];
}
