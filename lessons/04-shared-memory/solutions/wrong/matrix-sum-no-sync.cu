// matrix-sum.cu (typical mistake): the tree without barriers. Thread 0 adds
// s[128], which thread 128 (warp 4) stores, and perhaps has not yet: a
// read-after-write race. Warps of a block do not run in step.

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
        if (t < stride)
            s[t] += s[t + stride];
    }

    if (t == 0)
        partial[blockIdx.x] = s[0];
}
