// hello-threads.cu (solution): each thread writes its block, its index in the
// block and its warp at its global index i = blockIdx.x * blockDim.x + threadIdx.x.

extern "C" __global__ void hello_threads(int *block, int *thread, int *warp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    block[i] = blockIdx.x;
    thread[i] = threadIdx.x;
    warp[i] = threadIdx.x / 32;   // a warp is 32 threads on every NVIDIA GPU so far
}
