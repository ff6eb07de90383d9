// tests/bugs/race_war_overwrite.cu: an in-place smoothing step: each thread
// reads its right neighbour and overwrites its own element in the same phase,
// so the neighbour may already have overwritten what it reads
// (write-after-read between threads without a barrier in between).
// LAUNCH: grid=2 block=256 n=512
extern "C" __global__ void race_war_overwrite(float *in, float *out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    __syncthreads();
    for (int it = 0; it < 4; it++) {
        s[t] = 0.5f * (s[t] + s[(t + 1) % blockDim.x]); // BUG: race-shared
        __syncthreads();
    }
    out[i] = s[t];
}
