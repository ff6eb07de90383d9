// tests/bugs/assert_fail.cu: a device assert that fails for the negative input.
// LAUNCH: grid=1 block=64 n=64 in=signed
#ifndef assert
#define assert(e) ((e) ? (void)0 : __assertfail(#e, __FILE__, __LINE__, __func__, 1))
#endif
extern "C" __global__ void assert_fail(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(in[i] >= 0.0f); // BUG: assert
    out[i] = in[i];
}
