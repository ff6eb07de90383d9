// predict-occupancy.cu (solution), for sm_90: 64 warps, 32 blocks, 228 KiB
// of shared memory per SM; 1 KiB reserved per block.
//
//   A: 32 threads = 1 warp per block. The SM holds at most 32 blocks, so
//      32 warps of 64: 50%. Limited by blocks (tiny blocks waste the SM).
//   B: 640 threads = 20 warps per block. 64 / 20 = 3 blocks (a fourth would
//      need 80 warps): 60 warps of 64 = 93.75%. Limited by warps: the block
//      size does not divide the SM's 64 warps.
//   C: 256 threads = 8 warps; each block takes 40 + 1 = 41 KiB of shared
//      memory, 228 / 41 = 5 blocks: 40 warps of 64 = 62.5%. Limited by
//      shared memory.

#define PREDICT_A 50.0
#define PREDICT_B 93.75
#define PREDICT_C 62.5

extern "C" __global__ void predictions(float *out)
{
    out[0] = PREDICT_A;
    out[1] = PREDICT_B;
    out[2] = PREDICT_C;
}

extern "C" __global__ void stage_double(const float *x, float *y, int n)
{
    extern __shared__ float stage[];     // at least blockDim.x floats
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    stage[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) y[i] = 2.0f * stage[threadIdx.x];
}
