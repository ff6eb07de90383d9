// stencil-1d.cu (typical mistake): no barrier between the loads and the
// reads. Thread 127 (warp 3) reads the right halo that threads 0..2 (warp 0)
// store, and thread 31 reads s[35], stored by thread 32 of the next warp:
// read-after-write races.

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

    if (g < n) {
        float sum = 0.0f;
        for (int k = -R; k <= R; k++)
            sum += (R + 1 - abs(k)) * s[t + R + k];
        out[g] = sum / 16.0f;
    }
}
