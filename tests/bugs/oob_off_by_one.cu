// tests/bugs/oob_off_by_one.cu: the guard uses <= instead of <, so thread n
// touches one element past the end.
// LAUNCH: grid=4 block=256 n=1000
extern "C" __global__ void oob_off_by_one(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        out[i] = in[i] + 1.0f; // BUG: oob-global
    }
}
