// tests/bugs/race_histogram_read_early.cu: a shared histogram built with
// atomicAdd, read back before the barrier: a plain read racing the atomics
// of the other threads.
// LAUNCH: grid=2 block=64 n=128
extern "C" __global__ void race_histogram_read_early(float *in, float *out, int n) {
    __shared__ int hist[64];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    hist[t] = 0;
    __syncthreads();
    atomicAdd(&hist[(t * 5 + 1) % 64], 1);
    out[i] = (float)hist[t]; // BUG: race-shared
    // SAYS: plain read
}
