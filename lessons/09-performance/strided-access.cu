// strided-access.cu: out[r][c] = in[r][c] + bias[c] for a rows x cols matrix
// stored row by row (element (r, c) at r * cols + c). One thread per element.
//
// The kernel below is CORRECT, but slow: it numbers the elements column by
// column, so thread i and thread i + 1 touch elements one whole row apart.
// A warp's 32 loads then land in 32 different 32-byte sectors:
//
//   thread:   0       1       2      ...        (r = i % rows, c = i / rows)
//   address:  0    cols   2*cols     ...        -> 32 sectors per request
//
// Renumber the elements so that neighbouring threads take neighbouring
// addresses (4 sectors per request for 32 floats).

extern "C" __global__ void add_bias(const float *in, const float *bias, float *out,
                                   int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols)
        return;
    // TODO: choose r and c so that consecutive i are consecutive in memory.
    int r = i % rows;
    int c = i / rows;
    out[r * cols + c] = in[r * cols + c] + bias[c];
}
