// tests/bugs/race_flag_without_fence.cu: a chain of blocks, each waiting
// for the one before to raise its flag, then reading that block's result.
// The flag is a volatile store, but nothing orders the result's plain store
// before it: without __threadfence() between them (or a release store),
// another block may see the flag and still read the old result. The flag
// itself, written and polled through volatile, is no race.
// LAUNCH: grid=8 block=32 n=256
extern "C" __global__ void race_flag_without_fence(float *in, float *out, int n) {
    int b = blockIdx.x;
    int *flag = (int *)out;
    if (threadIdx.x != 0) return;
    float prev = 0.0f;
    if (b > 0) {
        while (*(volatile int *)&flag[b - 1] == 0) { }
        prev = in[b - 1]; // BUG: race-global
        // SAYS: another block's write
    }
    in[b] = prev + 1.0f;
    *(volatile int *)&flag[b] = 1;
}
