// coalescing.cu (typical mistake): steps of 32 (a warp) instead of the block
// size. Each warp is coalesced, but the warps of a block now overlap: thread
// 32 at step 0 takes the element thread 0 takes at step 1, and the last
// elements of each block's range are never written.

#define PER_THREAD 8

extern "C" __global__ void scale(const float *x, float *y, float s, int n)
{
    int first = blockIdx.x * blockDim.x * PER_THREAD + threadIdx.x;
    for (int k = 0; k < PER_THREAD; k++) {
        int i = first + k * 32;
        if (i < n)
            y[i] = s * x[i];
    }
}
