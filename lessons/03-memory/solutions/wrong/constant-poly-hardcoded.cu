// constant-poly.cu (typical mistake): the coefficients of the first
// polynomial copied into the source instead of taken from COEFFS. It passes
// the first polynomial and fails the second.

__constant__ float coef[6] = { 0.5f, -1.0f, 0.25f, 2.0f, -0.75f, 0.125f };

extern "C" __global__ void poly(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    float v = x[i];
    float acc = coef[5];
    for (int k = 4; k >= 0; k--)
        acc = acc * v + coef[k];
    y[i] = acc;
}
