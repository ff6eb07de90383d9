// latency-hiding.cu (typical mistake): the loads are not guarded. The last
// block's chunk runs past the end of x when n is not a multiple of
// blockDim.x * ITEMS, and those loads read outside the array (the stores
// are guarded, so on a GPU the result often looks right).

#define ITEMS_PER_THREAD 32

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
    float v[ITEMS];

    // All the loads first: they do not depend on each other, so the warp
    // issues them back to back and waits for them once.
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        int i = base + j * blockDim.x;
        v[j] = x[i];
    }
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        int i = base + j * blockDim.x;
        if (i < n) y[i] = a * v[j] + b;
    }
}
