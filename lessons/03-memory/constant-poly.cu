// constant-poly.cu: evaluate a polynomial at every x[i]:
//   y[i] = c[0] + c[1] x + c[2] x^2 + ... + c[NCOEF-1] x^(NCOEF-1)
// The exercise compiles this file with -DNCOEF=<count> -DCOEFFS=<c0, c1, ...>
// (two different polynomials, so do not copy the numbers). Put the
// coefficients in __constant__ memory: every thread reads the same c[k] at the
// same time, which the constant cache delivers to a whole warp in one go.

// TODO: declare the coefficients here, at file scope: an array coef of NCOEF
// floats in constant memory, initialised from the COEFFS list.

extern "C" __global__ void poly(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    float v = x[i];
    float acc = 0.0f;
    // TODO: Horner's rule: going from the highest coefficient down to coef[0],
    //       multiply acc by v and add the coefficient, once per coefficient.
    y[i] = acc;
}
