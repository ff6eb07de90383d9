// tests/conformance/fence.cu: __threadfence (membar.gl) and __syncwarp in the
// "last block done" pattern.

// Each block sums its slice in shared memory; the last block to finish (found
// with __threadfence + an atomic ticket) adds the block sums in order.
// Lanes also swap neighbours through shared memory under __syncwarp.
extern "C" __global__ void sync_fence_last_block(const int *a, int *partial, unsigned *ticket, int *total,
                                                 int *swapped, int n) {
    __shared__ int s[256];
    __shared__ bool is_last;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int v = i < n ? a[i] : 0;
    s[t] = v;
    __syncwarp();
    int nb = s[t ^ 1];
    __syncwarp();
    if (i < n) swapped[i] = nb;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        unsigned k = atomicInc(ticket, gridDim.x);
        is_last = (k == gridDim.x - 1);
    }
    __syncthreads();
    if (is_last && t == 0) {
        int sum = 0;
        for (int b = 0; b < (int)gridDim.x; b++) sum += ((volatile int *)partial)[b];
        *total = sum;
    }
}
