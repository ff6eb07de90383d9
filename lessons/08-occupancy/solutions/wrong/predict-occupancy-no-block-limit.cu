// predict-occupancy.cu (typical mistake): launch A counted by warps alone.
// 64 warps / 1 warp per block = 64 blocks, 100%? No: an sm_90 SM holds at
// most 32 resident blocks, however small they are, so A reaches 50%.

#define PREDICT_A 100.0
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
