// latency-hiding.cu: y[i] = a * x[i] + b, ITEMS elements per thread.
//
// Block b owns the chunk of blockDim.x * ITEMS elements starting at
// b * blockDim.x * ITEMS; thread t of it takes elements
//
//   chunk + t,  chunk + t + blockDim.x,  chunk + t + 2 * blockDim.x, ...
//
// (ITEMS of them), so every load and store of a warp is coalesced.
//
// A load from global memory takes about a microsecond to come back. An SM
// keeps the memory busy only if enough loads are in flight at once, and
// there are two ways to have many: many warps (occupancy), or many
// independent loads per warp (ILP: issue all ITEMS loads before using any).
// The exercise runs this kernel capped at 25% occupancy (2 blocks of 256
// per SM, as if a big shared-memory tile left no room for more), and on a
// GPU measures it against higher occupancies.
//
// TODO 1: give each thread all ITEMS elements, loads first.
// TODO 2: choose ITEMS_PER_THREAD so the kernel is fast even at 25%.

#define ITEMS_PER_THREAD 1

#ifndef ITEMS
#define ITEMS ITEMS_PER_THREAD      // the exercise also builds other ITEMS
#endif

extern "C" __global__ void chosen_items(int *out)
{
    out[0] = ITEMS_PER_THREAD;
}

extern "C" __global__ void affine_items(const float *x, float *y, float a, float b, int n)
{
    int base = blockIdx.x * blockDim.x * ITEMS + threadIdx.x;

    // TODO 1: first load all ITEMS elements of this thread into registers
    // (a local array filled by a fully unrolled loop stays in registers;
    // guard each load with i < n), then compute and store them all (guarded
    // too). For now only the first element is done.
    int i = base;
    if (i < n) y[i] = a * x[i] + b;
}
