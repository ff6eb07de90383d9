// predict-occupancy.cu: predict, then let cudojo compute.
//
// The kernel below is finished: y[i] = 2 * x[i], staged through shared
// memory. The exercise launches it three ways and asks the CUDA Occupancy
// Calculator's question for each, on an sm_90 GPU (H100/H200):
//
//   what percentage of the SM's 64 warp slots are filled by resident blocks?
//
// sm_90, per SM: at most 64 resident warps (2048 threads), at most 32
// resident blocks, 65536 registers, 228 KiB of shared memory of which every
// block also takes 1 KiB for the system. This kernel uses few registers (they
// limit nothing here) and no static shared memory.
//
//   launch A: blocks of   32 threads,   128 bytes of dynamic shared memory
//   launch B: blocks of  640 threads,  2560 bytes of dynamic shared memory
//   launch C: blocks of  256 threads, 40960 bytes (40 KiB) of dynamic shared memory
//
// (A and B get the one float per thread the kernel needs; C gets a 40 KiB
// buffer, as a kernel with a big tile would.)
//
// Write your three predictions in percent (e.g. 87.5). Work them out on
// paper: how many blocks fit, counted by each limit, and the smallest wins.

// TODO: your predictions, in percent of the 64 warps.
#define PREDICT_A 0.0
#define PREDICT_B 0.0
#define PREDICT_C 0.0

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
