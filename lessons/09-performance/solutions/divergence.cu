// divergence.cu (solution): the branch depends on t < half, which is the same
// for all 32 lanes of every warp but one; each warp runs one loop.

#ifndef ITERS
#define ITERS 128
#endif

// Two different computations, each a chain of ITERS dependent steps.
__device__ float path_even(float v)
{
    for (int k = 0; k < ITERS; k++)
        v = v * 0.99f + 0.01f;
    return v;
}

__device__ float path_odd(float v)
{
    for (int k = 0; k < ITERS; k++)
        v = v * v * 0.5f - 0.25f;
    return v;
}

// Given: one thread per element. Even and odd elements alternate across the
// lanes of every warp, so every warp runs BOTH loops, half its lanes idle each time.
extern "C" __global__ void eval_divergent(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (i % 2 == 0)
            y[i] = path_even(x[i]);
        else
            y[i] = path_odd(x[i]);
    }
}

extern "C" __global__ void eval_uniform(const float *x, float *y, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int half = (n + 1) / 2;
    if (t < half) {
        int i = 2 * t;                    // even elements
        y[i] = path_even(x[i]);
    } else {
        int i = 2 * (t - half) + 1;       // odd elements
        if (i < n)
            y[i] = path_odd(x[i]);
    }
}
