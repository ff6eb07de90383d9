// stencil-1d.cu (typical mistake): the block's own elements are loaded but
// not the halo. Threads 0..2 and 125..127 read s[0..2] and s[131..133],
// which nobody stored: uninitialised shared memory.

#define BLOCK 128
#define R 3

extern "C" __global__ void stencil(const float *in, float *out, int n)
{
    __shared__ float s[BLOCK + 2 * R];
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;

    s[t + R] = g < n ? in[g] : 0.0f;
    __syncthreads();

    if (g < n) {
        float sum = 0.0f;
        for (int k = -R; k <= R; k++)
            sum += (R + 1 - abs(k)) * s[t + R + k];
        out[g] = sum / 16.0f;
    }
}
