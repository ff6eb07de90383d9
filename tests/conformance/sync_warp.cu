// tests/conformance/sync_warp.cu: block barriers with votes
// (__syncthreads_count/and/or = bar.red) and the
// warp-level intrinsics: shfl.sync up/down/bfly/idx (full and narrow widths),
// vote.sync ballot/any/all, activemask, match.any/all and redux.sync.

extern "C" __global__ void sync_votes(const int *a, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? a[i] : 0;
    int c = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v > 0);
    int any = __syncthreads_or(v > 100);
    if (threadIdx.x == 0) {
        out[blockIdx.x * 3 + 0] = c;
        out[blockIdx.x * 3 + 1] = all != 0;
        out[blockIdx.x * 3 + 2] = any != 0;
    }
}

extern "C" __global__ void shfl_modes(const int *a, const float *f, const int *src, int *out, float *outf, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = a[i];
    float x = f[i];
    const unsigned full = 0xffffffffu;
    out[0 * n + i] = __shfl_up_sync(full, v, 3);
    out[1 * n + i] = __shfl_down_sync(full, v, 5);
    out[2 * n + i] = __shfl_xor_sync(full, v, 7);
    out[3 * n + i] = __shfl_sync(full, v, (threadIdx.x * 7) & 31);
    out[4 * n + i] = __shfl_sync(full, v, src[i]);
    outf[0 * n + i] = __shfl_down_sync(full, x, 1);
    outf[1 * n + i] = __shfl_xor_sync(full, x, 16);
    double d = (double)x * 3.0;
    outf[2 * n + i] = (float)__shfl_up_sync(full, d, 1);
}

extern "C" __global__ void shfl_width(const int *a, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = a[i];
    const unsigned full = 0xffffffffu;
    out[0 * n + i] = __shfl_sync(full, v, 3, 8);
    out[1 * n + i] = __shfl_up_sync(full, v, 2, 8);
    out[2 * n + i] = __shfl_down_sync(full, v, 3, 16);
    out[3 * n + i] = __shfl_xor_sync(full, v, 4, 8);
    out[4 * n + i] = __shfl_xor_sync(full, v, 8, 4);
    out[5 * n + i] = __shfl_sync(full, v, 13, 4);
    out[6 * n + i] = __shfl_down_sync(full, v, 1, 2);
}

extern "C" __global__ void warp_vote(const int *a, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = a[i];
    int lane = threadIdx.x & 31;
    const unsigned full = 0xffffffffu;
    out[0 * n + i] = __ballot_sync(full, v > 0);
    out[1 * n + i] = __any_sync(full, v > 50) != 0;
    out[2 * n + i] = __all_sync(full, v > -90) != 0;
    out[3 * n + i] = __activemask();
    unsigned m = 0;
    if (lane & 1) {
        m = __activemask();
        m ^= __ballot_sync(m, v > 0) << 1;
    } else if (lane < 10) {
        m = __activemask() | 0x80000000u;
    }
    out[4 * n + i] = m;
    unsigned sub = 0;
    if (lane < 20) sub = __ballot_sync(0x000fffffu, v & 1);
    out[5 * n + i] = sub;
}

extern "C" __global__ void warp_match_reduce(const int *a, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = a[i];
    const unsigned full = 0xffffffffu;
    out[0 * n + i] = __match_any_sync(full, v & 3);
    int pred = 0;
    out[1 * n + i] = __match_all_sync(full, (int)(blockIdx.x * 5), &pred);
    out[2 * n + i] = (unsigned)pred;
    out[3 * n + i] = __match_all_sync(full, v, &pred);
    out[4 * n + i] = (unsigned)pred;
    out[5 * n + i] = __reduce_add_sync(full, (unsigned)v);
    out[6 * n + i] = (unsigned)__reduce_min_sync(full, v);
    out[7 * n + i] = (unsigned)__reduce_max_sync(full, v);
    out[8 * n + i] = __reduce_and_sync(full, (unsigned)v | 0x100u);
    out[9 * n + i] = __reduce_or_sync(full, (unsigned)v & 0xf0u);
    out[10 * n + i] = __reduce_xor_sync(full, (unsigned)v);
    out[11 * n + i] = __match_any_sync(full, (long long)(v & 1) << 40);
}

// A shuffle reduction: each warp sums with shfl.down, warp sums meet in shared
// memory, the first warp reduces them again. One float per block.
extern "C" __global__ void shfl_reduce(const float *a, float *out, int n) {
    __shared__ float warp_sums[32];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float v = i < n ? a[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((t & 31) == 0) warp_sums[t >> 5] = v;
    __syncthreads();
    if (t < 32) {
        v = t < (int)(blockDim.x >> 5) ? warp_sums[t] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (t == 0) out[blockIdx.x] = v;
    }
}

// shfl.sync in inline asm with clamp/segment operands c that CUDA's
// intrinsics never pass: the up mode compares with maxLane (segment base |
// clamp), as the ISA's pseudocode says; out[k] is mode k % 4 with CASE_C[k / 4]
// (found by tests/difffuzz). The predicate output is in bit 31 of outp.
#define SHFL_C(k, mode, b, c) \
    asm volatile("{ .reg .pred q; shfl.sync." mode ".b32 %0|q, %2, %3, %4, -1; selp.u32 %1, 1, 0, q; }" \
                 : "=r"(r), "=r"(p) : "r"(v), "r"(b), "r"(c)); \
    out[(k) * n + i] = r; outp[(k) * n + i] = p
extern "C" __global__ void shfl_any_c(const int *a, const unsigned *bs, int *out, unsigned *outp, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = a[i], r;
    unsigned b = bs[i], p;
    SHFL_C(0, "up", b, 0x141e); SHFL_C(1, "down", b, 0x141e); SHFL_C(2, "bfly", b, 0x141e); SHFL_C(3, "idx", b, 0x141e);
    SHFL_C(4, "up", b, 0x0810); SHFL_C(5, "down", b, 0x0810); SHFL_C(6, "bfly", b, 0x0810); SHFL_C(7, "idx", b, 0x0810);
    SHFL_C(8, "up", b, 0x001f); SHFL_C(9, "down", b, 0x0005); SHFL_C(10, "bfly", b, 0x1f00); SHFL_C(11, "idx", b, 0x1c07);
}
