// matrix-sum.cu (typical mistake): the barrier moved inside the if. Only the
// threads with t < stride reach it; the others never do. __syncthreads()
// must be reached by every thread of the block (a divergent barrier).

#define BLOCK 256

extern "C" __global__ void block_sum(const float *x, float *partial, int n)
{
    __shared__ float s[BLOCK];
    int t = threadIdx.x;

    float mine = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x)
        mine += x[i];
    s[t] = mine;
    __syncthreads();

    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
            __syncthreads();
        }
    }

    if (t == 0)
        partial[blockIdx.x] = s[0];
}
