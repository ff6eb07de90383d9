// intensity.cu (typical mistake): only the bytes READ are counted. y is
// written, and a write costs the memory system as much as a read: 8 bytes per
// element, not 4.

#ifndef DEGREE
#define DEGREE 4
#endif

#define FLOPS_PER_ELEMENT (2 * DEGREE)
#define BYTES_PER_ELEMENT 4

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
