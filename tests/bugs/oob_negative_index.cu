// tests/bugs/oob_negative_index.cu: a 3-point stencil that guards the right
// edge but not the left one: thread 0 reads in[-1].
// LAUNCH: grid=4 block=256 n=1000
extern "C" __global__ void oob_negative_index(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1) {
        float left = in[i - 1]; // BUG: oob-global
        out[i] = (left + in[i] + in[i + 1]) / 3.0f;
    }
}
