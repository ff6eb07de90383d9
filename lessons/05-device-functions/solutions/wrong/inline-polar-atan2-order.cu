// inline-polar.cu (typical mistake): atan2f(x, y) instead of atan2f(y, x).
// atan2 takes the y coordinate FIRST (it is the angle of y / x); swapped, it
// measures the angle from the y axis instead, wrong for almost every point.

__device__ __forceinline__ void polar(float x, float y, float *r, float *theta)
{
    *r = sqrtf(x * x + y * y);
    *theta = atan2f(x, y);
}

extern "C" __global__ void to_polar(const float *x, const float *y, float *r, float *theta, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    float rr, tt;
    polar(x[i], y[i], &rr, &tt);
    r[i] = rr;
    theta[i] = tt;
}
