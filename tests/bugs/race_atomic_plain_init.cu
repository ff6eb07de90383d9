// tests/bugs/race_atomic_plain_init.cu: thread 0 zeroes a shared counter
// while the other threads already add to it, with no barrier between: the
// plain store races the atomics (compute-sanitizer's racecheck reports it).
// LAUNCH: grid=2 block=128 n=256
extern "C" __global__ void race_atomic_plain_init(float *in, float *out, int n) {
    __shared__ int count;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (t == 0) count = 0;
    if (in[i] >= 0.0f) atomicAdd(&count, 1); // BUG: race-shared
    // SAYS: atomic update after a plain write
    __syncthreads();
    out[i] = (float)count;
}
