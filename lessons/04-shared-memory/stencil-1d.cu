// stencil-1d.cu: a 1-D stencil of radius R = 3 with weights 1,2,3,4,3,2,1 / 16:
//   out[i] = sum over k = -3..3 of w(k) * in[i + k],   w(k) = (4 - |k|) / 16
// where in[j] counts as 0 outside 0 <= j < n. Each block of 128 threads
// copies its 128 elements PLUS a halo of 3 on each side into shared memory
// once, then every thread reads its 7 inputs from there (7 global reads per
// element become about 1.05).

#define BLOCK 128
#define R 3

extern "C" __global__ void stencil(const float *in, float *out, int n)
{
    __shared__ float s[BLOCK + 2 * R];   // s[0..R-1]: left halo, s[R..R+BLOCK-1]: the block, then right halo
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;      // this thread's element

    s[t + R] = g < n ? in[g] : 0.0f;

    // TODO: the halo. The first R threads also load the R elements before the
    //       block (into s[t]) and the R elements after it (into s[t + BLOCK + R]);
    //       an element outside 0 .. n-1 is stored as 0.

    // TODO: every thread is about to read what its neighbours stored.

    if (g < n) {
        float sum = 0.0f;
        for (int k = -R; k <= R; k++)
            sum += (R + 1 - abs(k)) * s[t + R + k];
        out[g] = sum / 16.0f;
    }
}
