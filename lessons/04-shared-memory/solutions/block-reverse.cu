// block-reverse.cu (solution): store, barrier, read the mirrored slot. The
// barrier is what makes another thread's store visible; count (not BLOCK)
// mirrors the short last block inside its own elements.

#define BLOCK 256

extern "C" __global__ void reverse_blocks(const int *in, int *out, int n)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int base = blockIdx.x * BLOCK;
    int count = min(BLOCK, n - base);

    if (t < count)
        s[t] = in[base + t];
    __syncthreads();
    if (t < count)
        out[base + t] = s[count - 1 - t];
}
