// tests/bugs/race_histogram_nonatomic.cu: a shared-memory histogram updated
// with a plain += instead of atomicAdd: threads of different warps
// read-modify-write the same bin in the same phase.
// LAUNCH: grid=2 block=256 n=512
extern "C" __global__ void race_histogram_nonatomic(float *in, float *out, int n) {
    __shared__ float bins[16];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t < 16) bins[t] = 0.0f;
    __syncthreads();
    int b = ((int)in[i]) & 15;
    bins[b] += 1.0f; // BUG: race-shared
    __syncthreads();
    if (t < 16) out[blockIdx.x * 16 + t] = bins[t];
}
