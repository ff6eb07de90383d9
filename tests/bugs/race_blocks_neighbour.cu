// tests/bugs/race_blocks_neighbour.cu: each block writes its part of out,
// then reads the next block's part, which that block writes in the same
// launch: __syncthreads() orders one block, never two. The read sees old or
// new values depending on which block the GPU ran first.
// LAUNCH: grid=4 block=64 n=256
extern "C" __global__ void race_blocks_neighbour(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * 2.0f;
    __syncthreads();
    in[i] = out[(i + blockDim.x) % n]; // BUG: race-global
    // SAYS: another block's write
}
