// tests/bugs/oob_write_global.cu: shifting right by one writes out[n] from
// the last thread.
// LAUNCH: grid=4 block=256 n=1000
extern "C" __global__ void oob_write_global(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[i];
        out[i + 1] = v; // BUG: oob-global
    }
}
