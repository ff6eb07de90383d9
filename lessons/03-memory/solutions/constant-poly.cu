// constant-poly.cu (solution): the coefficients live in constant memory (64 KB,
// read-only for kernels, cached, a broadcast when a warp reads one address)
// and the polynomial is evaluated with Horner's rule: NCOEF-1 fused
// multiply-adds, no powers.

__constant__ float coef[NCOEF] = { COEFFS };

extern "C" __global__ void poly(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    float v = x[i];
    float acc = coef[NCOEF - 1];
    for (int k = NCOEF - 2; k >= 0; k--)
        acc = acc * v + coef[k];
    y[i] = acc;
}
