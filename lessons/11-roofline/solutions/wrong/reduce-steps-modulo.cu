// reduce-steps.cu (typical mistake): two elements per thread, but still the
// interleaved tree with t % (2 * s) == 0. The sums are right; every warp
// diverges at every step, far above the divergence target.
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

    for (int s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0)
            s_data[t] += s_data[t + s];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s_data[0];
}
