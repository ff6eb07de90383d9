// stencil-1d.cu (typical mistake): the halo is loaded without checking the
// ends of the array. Block 0 reads in[-3..-1], before the start, and the last
// block reads past the end.

#define BLOCK 128
#define R 3

extern "C" __global__ void stencil(const float *in, float *out, int n)
{
    __shared__ float s[BLOCK + 2 * R];
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;

    s[t + R] = g < n ? in[g] : 0.0f;
    if (t < R) {
        s[t] = in[g - R];
        s[t + BLOCK + R] = in[g + BLOCK];
    }
    __syncthreads();

    if (g < n) {
        float sum = 0.0f;
        for (int k = -R; k <= R; k++)
            sum += (R + 1 - abs(k)) * s[t + R + k];
        out[g] = sum / 16.0f;
    }
}
