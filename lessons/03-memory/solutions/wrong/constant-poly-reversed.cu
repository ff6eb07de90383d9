// constant-poly.cu (typical mistake): Horner's rule run from c[0] upwards.
// That evaluates the polynomial with its coefficients reversed,
// c[NCOEF-1] + c[NCOEF-2] x + ..., which is a different polynomial.

__constant__ float coef[NCOEF] = { COEFFS };

extern "C" __global__ void poly(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    float v = x[i];
    float acc = 0.0f;
    for (int k = 0; k < NCOEF; k++)
        acc = acc * v + coef[k];
    y[i] = acc;
}
