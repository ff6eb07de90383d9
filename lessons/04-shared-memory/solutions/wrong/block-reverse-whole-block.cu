// block-reverse.cu (typical mistake): mirrors with BLOCK - 1 - t, as if every
// block were full. In the last block (163 elements) thread 0 reads s[255],
// a slot that nobody stored to: uninitialised shared memory.

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
        out[base + t] = s[BLOCK - 1 - t];
}
