// tests/bugs/race_stencil_halo.cu: the tile and its halo are loaded, but the
// barrier before the stencil reads them is missing.
// LAUNCH: grid=4 block=256 n=1024
extern "C" __global__ void race_stencil_halo(float *in, float *out, int n) {
    __shared__ float s[256 + 2];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t + 1] = in[i];
    if (t == 0) s[0] = i > 0 ? in[i - 1] : 0.0f;
    if (t == blockDim.x - 1) s[t + 2] = i + 1 < n ? in[i + 1] : 0.0f;
    out[i] = s[t] + s[t + 1] + s[t + 2]; // BUG: race-shared
}
