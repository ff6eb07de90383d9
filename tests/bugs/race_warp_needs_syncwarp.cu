// tests/bugs/race_warp_needs_syncwarp.cu: the last warp of a reduction
// unrolled "warp-synchronously" with volatile but without __syncwarp():
// since Volta, lanes of a warp are not guaranteed to run in lockstep.
// LAUNCH: grid=2 block=64 n=128
extern "C" __global__ void race_warp_needs_syncwarp(float *in, float *out, int n) {
    __shared__ float s[64];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    __syncthreads();
    if (t < 32) {
        volatile float *v = s;
        v[t] += v[t + 32];
        v[t] += v[t + 16]; // BUG: race-warp
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
