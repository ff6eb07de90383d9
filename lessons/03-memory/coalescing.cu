// coalescing.cu: y[i] = s * x[i] for all n elements, 8 elements per thread
// (the grid has n / 8 threads, rounded up to whole blocks of 256). This
// version gives each thread 8 NEIGHBOURING elements, so at each step the 32
// threads of a warp touch addresses 32 bytes apart: 32 sectors for 128 useful
// bytes. Rearrange which elements a thread takes so a warp touches 32
// consecutive floats. Target: <= 4 sectors per request (emulator), >= 65% of
// the copy bandwidth (GPU).

#define PER_THREAD 8

extern "C" __global__ void scale(const float *x, float *y, float s, int n)
{
    // TODO: thread t of block b takes elements b*256*8 + t*8 + k, k = 0..7:
    //       at each k the warp's 32 threads are 8 elements apart. Give the
    //       block the same 256*8 elements but deal them out so that at each k
    //       the warp's 32 threads are side by side (use blockDim.x, not 256).
    int first = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
    for (int k = 0; k < PER_THREAD; k++) {
        int i = first + k;
        if (i < n)
            y[i] = s * x[i];
    }
}
