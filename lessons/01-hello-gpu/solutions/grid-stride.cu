// grid-stride.cu (solution): a grid-stride loop. Thread i handles i,
// i + stride, i + 2 * stride, ... where stride is the number of threads in the
// whole grid, so any grid covers any n, each element exactly once.

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = a * x[i] + y[i];
}
