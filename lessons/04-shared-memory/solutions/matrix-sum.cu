// matrix-sum.cu (solution): grid-stride sums per thread, then a tree in shared
// memory: 256 -> 128 -> ... -> 1 values, a barrier before each step (so the
// stores of the step before are visible) and none inside the if.

#define BLOCK 256

extern "C" __global__ void block_sum(const float *x, float *partial, int n)
{
    __shared__ float s[BLOCK];
    int t = threadIdx.x;

    float mine = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x)
        mine += x[i];
    s[t] = mine;

    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        __syncthreads();
        if (t < stride)
            s[t] += s[t + stride];
    }

    if (t == 0)
        partial[blockIdx.x] = s[0];
}
