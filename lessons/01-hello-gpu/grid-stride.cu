// grid-stride.cu: SAXPY, y[i] = a * x[i] + y[i], for every i < n.
// This time the grid is FIXED: 32 blocks of 256 threads (8192 threads) for
// n = 131075 elements, so one element per thread is not enough. Turn the kernel
// into a grid-stride loop: each thread starts at its global index and steps by
// the total number of threads in the grid until it passes n.

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: this handles only the first 8192 elements. Replace the `if` with a
    //       loop that also visits i + stride, i + 2 * stride, ... while < n.
    if (i < n)
        y[i] = a * x[i] + y[i];
}
