// tests/bugs/trap_asm.cu: a kernel that aborts with `trap` when it meets a
// negative input (one element is negative).
// LAUNCH: grid=1 block=64 n=64 in=signed
extern "C" __global__ void trap_asm(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (in[i] < 0.0f) {
        asm("trap;"); // BUG: trap
    }
    out[i] = in[i];
}
