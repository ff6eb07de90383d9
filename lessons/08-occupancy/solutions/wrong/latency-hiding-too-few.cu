// latency-hiding.cu (typical mistake): the kernel is right, but 4 floats per
// thread at 25% occupancy are 2 x 256 x 4 x 4 B = 8 KiB in flight per SM, a
// fraction of what HBM needs to stay busy: at low occupancy, a little ILP is
// not enough.

#define ITEMS_PER_THREAD 4

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
        v[j] = i < n ? x[i] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        int i = base + j * blockDim.x;
        if (i < n) y[i] = a * v[j] + b;
    }
}
