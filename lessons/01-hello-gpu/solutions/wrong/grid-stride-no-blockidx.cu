// grid-stride.cu (typical mistake): the stride is right but the start forgets
// blockIdx, so all 32 blocks start at the same element and update the same
// elements 32 times, while the elements between them are never touched.

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
