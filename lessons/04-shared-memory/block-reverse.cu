// block-reverse.cu: reverse the order of the elements inside each block's
// piece of the array, through shared memory. Block b owns the elements
// base = b * 256 .. base + count - 1 (count = 256, except in the last block,
// which gets what is left of n = 100003); thread t must write
//   out[base + t] = in[base + (count - 1 - t)]
// Each thread loads ONE element into shared memory; the others read it there.

#define BLOCK 256

extern "C" __global__ void reverse_blocks(const int *in, int *out, int n)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int base = blockIdx.x * BLOCK;
    int count = min(BLOCK, n - base);   // elements this block owns

    if (t < count)
        s[t] = in[base + t];

    // TODO: the element this thread wants was loaded by ANOTHER thread. Make
    //       every thread wait here until the whole block has stored its element.

    // TODO: read the mirrored element, s[count - 1 - t], instead of s[t].
    if (t < count)
        out[base + t] = s[t];
}
