// hello-threads.cu (typical mistake): the block size is written as a number
// instead of read from blockDim.x. The exercise launches blocks of 96 threads,
// so block 1 starts writing at 256 instead of 96, and the last blocks write
// past the end of the arrays.

extern "C" __global__ void hello_threads(int *block, int *thread, int *warp)
{
    int i = blockIdx.x * 256 + threadIdx.x;

    block[i] = blockIdx.x;
    thread[i] = threadIdx.x;
    warp[i] = threadIdx.x / 32;
}
