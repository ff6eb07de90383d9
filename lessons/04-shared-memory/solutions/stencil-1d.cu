// stencil-1d.cu (solution): each thread loads its element; threads 0..R-1
// also load one left-halo and one right-halo element (0 past either end);
// one barrier; then every thread reads its 2R+1 inputs from shared memory.

#define BLOCK 128
#define R 3

extern "C" __global__ void stencil(const float *in, float *out, int n)
{
    __shared__ float s[BLOCK + 2 * R];
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;

    s[t + R] = g < n ? in[g] : 0.0f;
    if (t < R) {
        int left = g - R;
        int right = g + BLOCK;
        s[t] = left >= 0 ? in[left] : 0.0f;
        s[t + BLOCK + R] = right < n ? in[right] : 0.0f;
    }
    __syncthreads();

    if (g < n) {
        float sum = 0.0f;
        for (int k = -R; k <= R; k++)
            sum += (R + 1 - abs(k)) * s[t + R + k];
        out[g] = sum / 16.0f;
    }
}
