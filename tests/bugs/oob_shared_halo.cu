// tests/bugs/oob_shared_halo.cu: a radius-2 stencil whose shared array only
// has room for a radius-1 halo: the right halo writes land past the end.
// LAUNCH: grid=4 block=256 n=1024
#define R 2
extern "C" __global__ void oob_shared_halo(float *in, float *out, int n) {
    __shared__ float s[256 + 2];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t + R] = in[i];
    if (t < R) {
        s[t] = i >= R ? in[i - R] : 0.0f;
        s[t + 256 + R] = i + 256 < n ? in[i + 256] : 0.0f; // BUG: oob-shared
    }
    __syncthreads();
    float acc = 0.0f;
    for (int k = -R; k <= R; k++) acc += s[t + R + k];
    out[i] = acc;
}
