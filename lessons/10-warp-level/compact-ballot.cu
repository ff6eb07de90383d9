// compact-ballot.cu: stream compaction. Each block keeps the positive elements
// among its own blockDim.x elements and packs them, in their original order,
// at the start of its segment of out[]:
//
//   x (block 0):  -3   5  -1   2   7  -4   ...        out: 5 2 7 ...
//   counts[0] = how many were kept
//
// No atomics and no loops over the block: a vote gives each warp a 32-bit
// mask of who keeps (__ballot_sync), counting bits (__popc) gives each
// thread its place in the warp, and one number per warp in shared memory gives
// each warp its place in the block.
//
//   ballot (lanes 0..7 shown): 0 1 0 1 1 0 0 1      (bit k = lane k keeps)
//   lane 4's rank = popc(ballot & lanes below 4) = popc(0 1 0 1) = 2

#define FULL_MASK 0xffffffffu

extern "C" __global__ void compact_positive(const float *x, float *out, int *counts, int n)
{
    __shared__ int warp_counts[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    int warps = blockDim.x / 32;

    bool keep = (i < n) && x[i] > 0.0f;          // every lane votes, even past the end

    // TODO 1: a warp vote: one bit per lane, set where that lane keeps its element.
    unsigned int ballot = 0;
    // TODO 2: this lane's rank among the keepers of its warp: the number of set
    //         bits of ballot for lanes below this one. (1u << lane) - 1 has
    //         exactly the bits of the lower lanes.
    int rank = 0;

    // TODO 3: lane 0 stores the warp's count (__popc(ballot)) in warp_counts[warp];
    //         then a barrier, because other warps read it.
    // TODO 4: the warp's offset in the block: the sum of warp_counts[w] for w < warp.
    int offset = 0;

    if (keep)
        out[blockIdx.x * blockDim.x + offset + rank] = x[i];

    // TODO 5: thread 0 writes the block's count (all warps) to counts[blockIdx.x].
    (void)ballot; (void)lane; (void)warp; (void)warps; (void)warp_counts;
}
