// vector-add.cu (solution): one thread per element, guarded because the grid
// is rounded up to whole blocks and n is not a multiple of the block size.

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
