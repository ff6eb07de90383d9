// hello-threads.cu (typical mistake): adding the block index to the thread
// index instead of scaling it by the block size. Threads of different blocks
// then land on the same elements and most of the array is never written.

extern "C" __global__ void hello_threads(int *block, int *thread, int *warp)
{
    int i = blockIdx.x + threadIdx.x;

    block[i] = blockIdx.x;
    thread[i] = threadIdx.x;
    warp[i] = threadIdx.x / 32;
}
