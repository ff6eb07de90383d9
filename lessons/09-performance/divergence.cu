// divergence.cu: y[i] = path_even(x[i]) for even i, path_odd(x[i]) for odd i.
//
// The 32 lanes of a warp execute one instruction at a time. When they
// disagree on a branch, the warp runs one side with the other lanes switched
// off, then the other side: in eval_divergent every warp pays for both loops.
//
//   lanes:   0  1  2  3  4  5 ... 31      i % 2 == 0 ?
//   even:    X  .  X  .  X  . ...  .      (odd lanes wait)
//   odd:     .  X  .  X  .  X ...  X      (even lanes wait)
//
// Write eval_uniform: the same y, but hand out the elements so that all the
// threads of a warp take the same branch: the first `half` threads of the
// grid do the even elements 0, 2, 4, ..., the rest the odd ones 1, 3, 5, ...
// (half = (n + 1) / 2, the number of even elements). Only the one warp that
// straddles the boundary may still diverge.

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
    // TODO: threads t < half take element i = 2 * t (path_even); threads
    //       t >= half take i = 2 * (t - half) + 1 (path_odd); guard i < n.
    (void)t; (void)half;
}
