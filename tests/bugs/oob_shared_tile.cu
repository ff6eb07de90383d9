// tests/bugs/oob_shared_tile.cu: a shared tile of blockDim.x floats indexed
// with threadIdx.x + 1 (meant for a one-element halo that was never
// allocated): the last thread writes tile[256].
// LAUNCH: grid=4 block=256 n=1024
extern "C" __global__ void oob_shared_tile(float *in, float *out, int n) {
    __shared__ float tile[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) tile[t + 1] = in[i]; // BUG: oob-shared
    __syncthreads();
    if (i < n && t > 0) out[i] = tile[t];
}
