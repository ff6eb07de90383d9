// reduce-steps.cu: partial[b] = the sum of x[b * 512 .. b * 512 + 511], with
// blocks of 256 threads: each block sums TWICE as many elements as it has
// threads (the exercise launches n / 512 blocks, rounded up).
//
// Below is the first kernel of the classic sequence: one element per thread,
// and a tree whose active threads are picked with `t % (2 * s) == 0`.
// It is correct for one element per thread, and slow for three reasons.
// Fix them one at a time, rerunning after each (the emulator measures them):
//
//   1. add during the load: each thread first adds x[i] and x[i + blockDim.x]
//      (i = blockIdx.x * 2 * blockDim.x + t); half the blocks, half the idle
//      threads. Without it the sums are wrong: the launch has half the blocks.
//   2. divergence: with t % (2 * s) == 0 the active threads are scattered over
//      every warp, so every warp diverges at every step. Use SEQUENTIAL
//      addressing instead: for s = blockDim.x / 2 down: if (t < s)
//      s_data[t] += s_data[t + s]; the active threads are the first s, whole
//      warps stay together, and neighbouring threads hit neighbouring banks.
//   3. the last warp: once s <= 32 only warp 0 works, and a barrier per step
//      is wasted. Stop the tree at s = 64, then let warp 0 finish with
//      __shfl_down_sync (offsets 16 .. 1), no barriers.
//
// Targets (emulator): at most 2 divergent branches per block, no bank
// conflicts, at most 4 barriers per block.

#define FULL_MASK 0xffffffffu

extern "C" __global__ void reduce_block(const float *x, float *partial, int n)
{
    __shared__ float s_data[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;           // TODO (step 1): two elements per thread

    s_data[t] = (i < n) ? x[i] : 0.0f;
    __syncthreads();

    // TODO (step 2): sequential addressing. TODO (step 3): stop at s = 64 and
    //                finish in warp 0 with shuffles.
    for (int s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0)
            s_data[t] += s_data[t + s];
        __syncthreads();
    }

    if (t == 0)
        partial[blockIdx.x] = s_data[0];
}
