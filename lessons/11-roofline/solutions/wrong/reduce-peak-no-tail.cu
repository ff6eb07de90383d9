// reduce-peak.cu (typical mistake): float4 loads without the tail. n4 = n / 4
// rounds down, so when n is not a multiple of 4 the last n % 4 floats are
// never added.
#define FULL_MASK 0xffffffffu

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

extern "C" __global__ void reduce_sum(const float *__restrict__ x, float *sum, int n)
{
    __shared__ float warp_totals[32];
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    int n4 = n / 4;                                   // whole float4s
    int stride = blockDim.x * gridDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    for (; i + 3 * stride < n4; i += 4 * stride) {    // 4 independent 16-byte loads
        float4 p = x4[i], q = x4[i + stride], r = x4[i + 2 * stride], s = x4[i + 3 * stride];
        a0 += (p.x + p.y) + (p.z + p.w);
        a1 += (q.x + q.y) + (q.z + q.w);
        a2 += (r.x + r.y) + (r.z + r.w);
        a3 += (s.x + s.y) + (s.z + s.w);
    }
    for (; i < n4; i += stride) {                     // what is left of the float4s
        float4 p = x4[i];
        a0 += (p.x + p.y) + (p.z + p.w);
    }

    float v = warp_sum((a0 + a1) + (a2 + a3));
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < blockDim.x / 32) ? warp_totals[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0)
            atomicAdd(sum, v);                        // one atomic per block
    }
}
