// tests/bugs/divergent_barrier.cu: __syncthreads() inside an if that only the
// first half of the block enters.
// LAUNCH: grid=2 block=256 n=512
extern "C" __global__ void divergent_barrier(float *in, float *out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    if (t < 128) {
        s[t] += s[t + 128];
        __syncthreads(); // BUG: barrier-divergence
    }
    out[i] = s[t];
}
