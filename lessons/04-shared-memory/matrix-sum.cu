// matrix-sum.cu: the sum of all elements of a 517 x 389 matrix, in two steps.
// Each block of 256 threads sums its share into partial[blockIdx.x]; the
// exercise then runs the same kernel again on `partial` with ONE block to get
// the total. Each thread first adds up its elements (grid-stride loop, done);
// your part is the block-level tree reduction in shared memory.

#define BLOCK 256

extern "C" __global__ void block_sum(const float *x, float *partial, int n)
{
    __shared__ float s[BLOCK];
    int t = threadIdx.x;

    float mine = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x)
        mine += x[i];
    s[t] = mine;

    // TODO: a tree reduction. Halve the number of active threads each step,
    //       starting from half the block: the active threads each add the value
    //       `stride` places above them into their own slot. Every step must see
    //       the previous step's results, in every warp: where does the barrier go?

    if (t == 0)
        partial[blockIdx.x] = s[0];
}
