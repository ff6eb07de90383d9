// tests/bugs/misaligned_cast.cu: reading floats through a char pointer
// shifted by one byte: every 4-byte load is misaligned.
// LAUNCH: grid=1 block=64 n=256
extern "C" __global__ void misaligned_cast(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float *p = (const float *)((const char *)in + 1);
    out[i] = p[i]; // BUG: misaligned
}
