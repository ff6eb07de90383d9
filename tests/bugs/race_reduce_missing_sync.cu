// tests/bugs/race_reduce_missing_sync.cu: a shared-memory tree reduction
// without __syncthreads() inside the loop: a thread reads s[t + stride]
// while (or before) its owner updates it.
// LAUNCH: grid=4 block=256 n=1024
extern "C" __global__ void race_reduce_missing_sync(float *in, float *out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride]; // BUG: race-shared
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
