// tests/bugs/misaligned_vector.cu: a float4 load from in + 1, which is only
// 4-byte aligned; 16-byte loads need 16-byte alignment.
// LAUNCH: grid=1 block=32 n=256
extern "C" __global__ void misaligned_vector(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = ((const float4 *)(in + 1))[i]; // BUG: misaligned
    // SAYS: + 4 bytes, which is not a multiple of 16
    out[i] = v.x + v.y + v.z + v.w;
}
