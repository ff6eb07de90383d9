// histogram.cu (typical mistake): the private histogram is never set to zero.
// Shared memory is not initialised: on a GPU it holds whatever the previous
// block left there, so the counts start from garbage.

#define BINS 256
#ifndef COPIES
#define COPIES 32      // copies of the histogram per block: lane l counts into copy l % COPIES
#endif
#ifndef UNROLL
#define UNROLL 2       // 16-byte loads in flight per thread before it counts them
#endif

extern "C" __global__ void histogram_global(const unsigned char *data, int n, unsigned int *hist)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&hist[data[i]], 1u);
}

// The four bytes of w, counted into my copy (mine[bin * COPIES]).
__device__ void count4(unsigned int *mine, unsigned int w)
{
    atomicAdd(&mine[(w & 0xffu) * COPIES], 1u);
    atomicAdd(&mine[(w >> 8 & 0xffu) * COPIES], 1u);
    atomicAdd(&mine[(w >> 16 & 0xffu) * COPIES], 1u);
    atomicAdd(&mine[(w >> 24) * COPIES], 1u);
}

__device__ void count16(unsigned int *mine, uint4 q)
{
    count4(mine, q.x);
    count4(mine, q.y);
    count4(mine, q.z);
    count4(mine, q.w);
}

extern "C" __global__ void histogram_shared(const unsigned char *data, int n, unsigned int *hist)
{
    // local[bin * COPIES + copy]: word bin * 32 + l is in bank l, so with 32
    // copies the 32 lanes of a warp always count in 32 different banks, and
    // never on the same word: no bank conflicts. Warps share the copies, so
    // the adds stay atomic. 32 KB per block.
    __shared__ unsigned int local[BINS * COPIES];
    unsigned int *mine = local + threadIdx.x % COPIES;


    // 16 bytes per load (data comes from cudaMalloc: 16-byte aligned), UNROLL
    // loads in flight per thread; grid-stride over the n / 16 whole uint4s.
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
            count16(mine, q[u]);           // shared-memory atomics: on the SM, cheap
    }
    for (; i < n16; i += stride)
        count16(mine, v[i]);
    // The last n % 16 bytes, one per thread.
    for (int j = n16 * 16 + blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
        atomicAdd(&mine[data[j] * COPIES], 1u);
    __syncthreads();                       // every count is in before the merge

    // Thread b adds up bin b's copies, starting at copy b % COPIES: the 32
    // lanes of a warp read 32 different banks at every step.
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned int c = 0;
        for (int k = 0; k < COPIES; k++)
            c += local[b * COPIES + (b + k) % COPIES];
        if (c)
            atomicAdd(&hist[b], c);        // one global atomic per bin and block
    }
}
