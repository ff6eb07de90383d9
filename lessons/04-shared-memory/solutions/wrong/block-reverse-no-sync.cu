// block-reverse.cu (typical mistake): no __syncthreads() between the store and
// the load. Thread 0 reads s[255], which thread 255 (another warp) may not
// have written yet: a read-after-write race on shared memory.

#define BLOCK 256

extern "C" __global__ void reverse_blocks(const int *in, int *out, int n)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int base = blockIdx.x * BLOCK;
    int count = min(BLOCK, n - base);

    if (t < count)
        s[t] = in[base + t];
    if (t < count)
        out[base + t] = s[count - 1 - t];
}
