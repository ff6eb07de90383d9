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
// The private histogram comes in COPIES = 32 copies, laid out
// local[bin * COPIES + copy], and lane l counts into copy l: word
// bin * 32 + l is in bank l, so the 32 lanes of a warp count in 32 different
// banks (no bank conflicts) whatever bytes they read. Each thread reads 16
// bytes at a time (a uint4). hist[] is zero when the kernels start.

#define BINS 256
#ifndef COPIES
#define COPIES 32      // copies of the histogram per block: lane l counts into copy l % COPIES
#endif
#ifndef UNROLL
#define UNROLL 2       // 16-byte loads in flight per thread before it counts them
#endif

extern "C" __global__ void histogram_global(const unsigned char *data, int n, unsigned int *hist)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        // TODO: this read-modify-write is not atomic: two threads that read the
        //       same old count both write old + 1, and one increment is lost.
        //       Use atomicAdd(address, value).
        hist[data[i]] += 1;
    }
}

// The four bytes of w, counted.
__device__ void count4(unsigned int *mine, unsigned int *hist, unsigned int w)
{
    // TODO 3: count into my copy of the private histogram, mine[bin * COPIES]
    //         (atomically: the other warps share it), instead of hist[].
    (void)mine;
    atomicAdd(&hist[w & 0xffu], 1u);
    atomicAdd(&hist[w >> 8 & 0xffu], 1u);
    atomicAdd(&hist[w >> 16 & 0xffu], 1u);
    atomicAdd(&hist[w >> 24], 1u);
}

__device__ void count16(unsigned int *mine, unsigned int *hist, uint4 q)
{
    count4(mine, hist, q.x);
    count4(mine, hist, q.y);
    count4(mine, hist, q.z);
    count4(mine, hist, q.w);
}

extern "C" __global__ void histogram_shared(const unsigned char *data, int n, unsigned int *hist)
{
    __shared__ unsigned int local[BINS * COPIES];     // 32 KB
    unsigned int *mine = local + threadIdx.x % COPIES; // my copy: mine[bin * COPIES]

    // TODO 1: set all BINS * COPIES words of local[] to zero (shared memory
    //         starts with garbage); the block has fewer threads than that.
    // TODO 2: wait until every bin is zero before anyone counts.

    // 16 bytes per load, UNROLL loads in flight per thread; grid-stride over
    // the n / 16 whole uint4s (data comes from cudaMalloc: 16-byte aligned).
    const uint4 *v = reinterpret_cast<const uint4 *>(data);
    int n16 = n / 16;
    int stride = blockDim.x * gridDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (UNROLL - 1) * stride < n16; i += UNROLL * stride) {
        uint4 q[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            q[u] = v[i + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            count16(mine, hist, q[u]);
    }
    for (; i < n16; i += stride)
        count16(mine, hist, v[i]);
    // The last n % 16 bytes, one per thread. TODO 3 here too.
    for (int j = n16 * 16 + blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
        atomicAdd(&hist[data[j]], 1u);

    // TODO 4: wait for the whole block to finish counting, then add up each
    //         bin's COPIES copies and add the sum to hist[] with one atomicAdd
    //         (skip bins that stayed 0).
}
