// inline-polar.cu: convert points (x[i], y[i]) to polar form, r[i] = the
// distance from the origin and theta[i] = the angle, atan2f(y, x). The helper
// returns its two results through pointers. It is marked __noinline__, so it
// is a real call: rr and tt must have ADDRESSES, which puts them in local
// memory (the thread's stack, in slow global memory). The results are right;
// the target is 0 bytes of local memory.

// TODO: let the compiler inline this helper (__forceinline__), so the
//       pointers disappear and rr, tt stay in registers.
__device__ __noinline__ void polar(float x, float y, float *r, float *theta)
{
    *r = sqrtf(x * x + y * y);
    *theta = atan2f(y, x);
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
