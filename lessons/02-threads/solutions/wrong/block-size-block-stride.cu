// block-size.cu (typical mistake): the loop steps by blockDim.x, the size of
// ONE block. Every block then walks over the elements of the blocks after it,
// so most elements are updated several times (and y = a*y + b is not the
// same when applied twice).

extern "C" __global__ void affine(float *y, float a, float b, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
        y[i] = a * y[i] + b;
}
