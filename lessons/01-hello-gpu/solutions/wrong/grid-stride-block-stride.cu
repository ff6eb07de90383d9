// grid-stride.cu (typical mistake): the loop steps by blockDim.x, the size of
// ONE block, instead of the whole grid. Every block then walks over the same
// elements, and most elements get a * x added to them several times.

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
        y[i] = a * x[i] + y[i];
}
