// matrix-sum.cu (typical mistake): each thread takes only ONE element (no
// grid-stride loop). The grid has far fewer threads than the matrix has
// elements, so most of the matrix is never added.

#define BLOCK 256

extern "C" __global__ void block_sum(const float *x, float *partial, int n)
{
    __shared__ float s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;

    s[t] = i < n ? x[i] : 0.0f;

    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        __syncthreads();
        if (t < stride)
            s[t] += s[t + stride];
    }

    if (t == 0)
        partial[blockIdx.x] = s[0];
}
