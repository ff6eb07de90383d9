// tests/bugs/oob_missing_guard.cu: the grid is rounded up to whole blocks but
// the kernel has no `if (i < n)` guard, so the last block reads and writes
// past the end of both arrays.
// LAUNCH: grid=4 block=256 n=1000
extern "C" __global__ void oob_missing_guard(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * 2.0f; // BUG: oob-global
}
