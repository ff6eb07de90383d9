// tests/bugs/runaway_loop.cu: a loop that steps by 2 towards an odd target
// never meets it and never ends.
// LAUNCH: grid=1 block=32 n=33
extern "C" __global__ void runaway_loop(float *in, float *out, int n) {
    int i = threadIdx.x;
    volatile int k = 0;   // volatile: the compiler may not assume the loop ends
    while (k != n) { // BUG: did-not-finish
        k = k + 2;
    }
    out[i] = in[i] + (float)k;
}
