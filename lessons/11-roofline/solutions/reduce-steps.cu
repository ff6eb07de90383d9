// reduce-steps.cu (solution): steps 1-3 of the classic sequence: add during
// the load, sequential addressing (no divergence inside a warp, no bank
// conflicts), and the last warp with shuffles instead of barriers.

#define FULL_MASK 0xffffffffu

extern "C" __global__ void reduce_block(const float *x, float *partial, int n)
{
    __shared__ float s_data[256];
    int t = threadIdx.x;
    int i = blockIdx.x * 2 * blockDim.x + t;

    float v = (i < n) ? x[i] : 0.0f;                       // step 1: two per thread
    if (i + blockDim.x < n)
        v += x[i + blockDim.x];
    s_data[t] = v;
    __syncthreads();

    for (int s = blockDim.x / 2; s > 32; s /= 2) {         // step 2: first s threads work
        if (t < s)
            s_data[t] += s_data[t + s];
        __syncthreads();
    }

    if (t < 32) {                                          // step 3: warp 0, no barriers
        v = s_data[t] + s_data[t + 32];
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(FULL_MASK, v, offset);
        if (t == 0)
            partial[blockIdx.x] = v;
    }
}
