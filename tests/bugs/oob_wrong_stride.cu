// tests/bugs/oob_wrong_stride.cu: each thread reads every second element
// (stride 2) but the guard still checks the thread index, so the second half
// of the threads read past the end of `in`.
// LAUNCH: grid=4 block=256 n=1000
extern "C" __global__ void oob_wrong_stride(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[2 * i]; // BUG: oob-global
        out[i] = v;
    }
}
