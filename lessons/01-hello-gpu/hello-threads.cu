// hello-threads.cu: your first kernel. Every thread of the grid finds out
// who it is and writes it down at its own place i (its global index):
//   block[i] = the index of its block          (blockIdx.x)
//   thread[i] = its index inside that block    (threadIdx.x)
//   warp[i] = which warp of its block it is in (32 threads per warp)
// Fill in the TODOs, save, and cudojo compares the arrays with the CPU's answer.

extern "C" __global__ void hello_threads(int *block, int *thread, int *warp)
{
    // TODO: compute this thread's global index from blockIdx.x, blockDim.x
    //       and threadIdx.x (0 makes every thread write to the same place).
    int i = 0;

    // TODO: write the real block index, thread index and warp number.
    block[i] = 0;
    thread[i] = 0;
    warp[i] = 0;
}
