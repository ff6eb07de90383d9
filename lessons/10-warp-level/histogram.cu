// histogram.cu: count how often each byte value 0..255 occurs in `data`.
// Two kernels, both with a grid-stride loop (the grid is sized for the GPU,
// not for the data):
//
//   histogram_global  every thread adds its bytes straight into hist[] in
//                     global memory. Many threads hit the same bin at the
//                     same moment: the increment must be ATOMIC.
//   histogram_shared  the same result, but each block first counts into its
//                     own private histogram in shared memory, and adds it to
//                     hist[] once at the end: 256 global atomics per block
//                     instead of one per byte.
//
// hist[] is zero when the kernels start.

#define BINS 256

extern "C" __global__ void histogram_global(const unsigned char *data, int n, unsigned int *hist)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        // TODO: this read-modify-write is not atomic: two threads that read the
        //       same old count both write old + 1, and one increment is lost.
        //       Use atomicAdd(address, value).
        hist[data[i]] += 1;
    }
}

extern "C" __global__ void histogram_shared(const unsigned char *data, int n, unsigned int *hist)
{
    __shared__ unsigned int local[BINS];

    // TODO 1: set local[] to zero (shared memory starts with garbage); the
    //         block may have fewer or more than 256 threads.
    // TODO 2: wait until every bin is zero before anyone counts.

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        // TODO 3: count into local[] (atomically) instead of hist[].
        atomicAdd(&hist[data[i]], 1u);
    }

    // TODO 4: wait for the whole block to finish counting, then add each
    //         non-zero bin of local[] to hist[] with one atomicAdd.
}
