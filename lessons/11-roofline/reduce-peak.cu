// reduce-peak.cu: *sum = x[0] + ... + x[n-1], as fast as the memory can
// deliver x. The kernel below is correct: a grid-stride loop and an
// atomicAdd of each thread's sum into *sum (which starts at 0). Make it fast:
//
//   - 16-byte loads: read x as float4 (reinterpret_cast<const float4 *>(x)),
//     four floats per load, a quarter of the load instructions. n need not be
//     a multiple of 4: add the last n % 4 floats separately.
//   - memory-level parallelism: a load takes ~1 microsecond to come back;
//     have several independent loads in flight per thread (e.g. four float4
//     loads per loop trip, into four accumulators).
//   - one atomic per BLOCK, not per thread: 2000 threads per SM all adding to
//     the same address queue up one after another. Sum the warp with
//     shuffles, then the warps in shared memory (chapter 10's warp-reduce).
//
// The grid is fixed by the exercise: 8 blocks of 256 threads per SM on a GPU.
// Targets: emulator, 16-byte loads (at most ~n / 128 global load requests)
// and one atomic per block; GPU, 95% of the device-to-device copy bandwidth.

#define FULL_MASK 0xffffffffu

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

extern "C" __global__ void reduce_sum(const float *__restrict__ x, float *sum, int n)
{
    // TODO 1: float4 loads, several in flight, and the n % 4 tail.
    float a = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        a += x[i];

    // TODO 2: one atomicAdd per block, not per thread: add up the warp with
    //         warp_sum, the warps' sums go through shared memory (one slot per
    //         warp, a barrier), and warp 0 adds them up.
    atomicAdd(sum, a);
}
