// tests/bugs/divergent_barrier_lanes.cu: a barrier inside a branch that
// splits every warp (even lanes only).
// LAUNCH: grid=1 block=128 n=128
extern "C" __global__ void divergent_barrier_lanes(float *in, float *out, int n) {
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t % 2 == 0) {
        __syncthreads(); // BUG: barrier-divergence
        out[t] = s[t] + s[t + 1];
    }
}
