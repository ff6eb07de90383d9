// tests/bugs/race_global_atomic_plain.cu: every thread adds its element to
// out[0] atomically, but thread 0 also overwrites out[0] with a plain store
// in the same phase: the store races the atomics of its block.
// LAUNCH: grid=1 block=64 n=64
extern "C" __global__ void race_global_atomic_plain(float *in, float *out, int n) {
    int t = threadIdx.x;
    atomicAdd(&out[0], in[t]);
    if (t == 0) out[0] = in[0]; // BUG: race-global
    // SAYS: one atomically and one not
}
