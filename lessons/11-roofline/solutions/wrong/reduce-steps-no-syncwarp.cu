// reduce-steps.cu (typical mistake): the old "unrolled last warp" without
// shuffles: warp 0 keeps adding in shared memory and assumes its 32 lanes run
// in lockstep. Since Volta they need not; without __syncwarp() (or volatile and
// luck) a lane can read a slot before its neighbour has updated it.
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

    if (t < 32) {
        s_data[t] += s_data[t + 32];
        s_data[t] += s_data[t + 16];
        s_data[t] += s_data[t + 8];
        s_data[t] += s_data[t + 4];
        s_data[t] += s_data[t + 2];
        s_data[t] += s_data[t + 1];
        if (t == 0)
            partial[blockIdx.x] = s_data[0];
    }
}
