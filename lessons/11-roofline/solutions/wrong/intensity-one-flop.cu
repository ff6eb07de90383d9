// intensity.cu (typical mistake): a multiply-add counted as one operation.
// FLOP/s figures (and the GPU's peak) count an FMA as two: a multiply and an add.

#ifndef DEGREE
#define DEGREE 4
#endif

#define FLOPS_PER_ELEMENT (DEGREE)
#define BYTES_PER_ELEMENT 8

extern "C" __global__ void roofline_numbers(float *out)
{
    out[0] = FLOPS_PER_ELEMENT;
    out[1] = BYTES_PER_ELEMENT;
}

extern "C" __global__ void poly(const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = x[i];
        float p = 1.0f;
        for (int k = 0; k < DEGREE; k++)
            p = p * v + 0.5f;
        y[i] = p;
    }
}
