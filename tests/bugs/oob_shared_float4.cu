// tests/bugs/oob_shared_float4.cu: a shared tile of 16 float4s filled by a
// 32-thread block; the message must count float4s as the source does
// (tile[16], not tile[64]).
// LAUNCH: grid=1 block=32 n=128
extern "C" __global__ void oob_shared_float4(float *in, float *out, int n) {
    __shared__ float4 tile[16];
    int t = threadIdx.x;
    tile[t] = make_float4(in[t], in[t], in[t], in[t]); // BUG: oob-shared
    // SAYS: tile[16] but tile has 16 elements
    __syncthreads();
    out[t] = tile[t % 16].x;
}
