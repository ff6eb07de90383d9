// reduce-steps.cu (typical mistake): the second kernel of the classic sequence,
// "strided index": index = 2 * s * t picks the first threads (no divergence)
// but they access s_data[2 s t], words 2s apart: 2-, 4-, 8-... way bank
// conflicts. The sums are right; the target on bank conflicts is not met.
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

    for (int s = 1; s < blockDim.x / 64; s *= 2) {
        int index = 2 * s * t;
        if (index < blockDim.x)
            s_data[index] += s_data[index + s];
        __syncthreads();
    }

    if (t < 32) {                  // s_data[4 t .. 4 t + 3] hold partial sums of 4 slots
        int s = blockDim.x / 64;
        v = s_data[2 * s * t] + s_data[2 * s * t + s];
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(FULL_MASK, v, offset);
        if (t == 0)
            partial[blockIdx.x] = v;
    }
}
