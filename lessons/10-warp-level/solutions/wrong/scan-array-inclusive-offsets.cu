// scan-array.cu (typical mistake): pass 2 writes the INCLUSIVE scan of the
// tile sums, so every tile starts from a total that already contains itself.
#define FULL_MASK 0xffffffffu
#ifndef ROUNDS
#define ROUNDS 16           // rounds per tile: a tile is blockDim.x * 4 * ROUNDS elements
#endif

// ---- from block-scan (done) -------------------------------------------------
__device__ int warp_inclusive_scan(int v)
{
    int lane = threadIdx.x % 32;
    for (int d = 1; d < 32; d *= 2) {
        int below = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d)
            v += below;
    }
    return v;
}

__device__ int block_inclusive_scan(int v, int *total)
{
    __shared__ int warp_sums[32];
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    int warps = blockDim.x / 32;

    v = warp_inclusive_scan(v);
    __syncthreads();
    if (lane == 31)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int s = (lane < warps) ? warp_sums[lane] : 0;
        s = warp_inclusive_scan(s);
        if (lane < warps)
            warp_sums[lane] = s;
    }
    __syncthreads();
    if (warp > 0)
        v += warp_sums[warp - 1];
    *total = warp_sums[warps - 1];
    return v;
}

// ---- four consecutive ints at a time: one 16-byte load per thread -----------
// i is a multiple of 4. Inside the array: one int4 load (a warp reads 512
// consecutive bytes). At the tail: element by element, 0 past the end.
__device__ int4 load4(const int *in, int i, int n)
{
    if (i + 3 < n)
        return *reinterpret_cast<const int4 *>(in + i);
    int4 q;
    q.x = (i < n) ? in[i] : 0;
    q.y = (i + 1 < n) ? in[i + 1] : 0;
    q.z = (i + 2 < n) ? in[i + 2] : 0;
    q.w = 0;
    return q;
}

__device__ void store4(int *out, int i, int n, int4 q)
{
    if (i + 3 < n) {
        *reinterpret_cast<int4 *>(out + i) = q;
        return;
    }
    if (i < n) out[i] = q.x;
    if (i + 1 < n) out[i + 1] = q.y;
    if (i + 2 < n) out[i + 2] = q.z;
}

// ---- pass 1 (done): sums[t] = the sum of tile t ------------------------------
extern "C" __global__ void tile_sums(const int *in, int *sums, int n)
{
    int tile_start = blockIdx.x * blockDim.x * 4 * ROUNDS;
    int s = 0;
    if (tile_start + blockDim.x * 4 * ROUNDS <= n) {
        // A whole tile (every block but maybe the last): no bounds checks, so
        // the compiler can issue all ROUNDS loads at once.
        const int4 *p = reinterpret_cast<const int4 *>(in + tile_start) + threadIdx.x;
#pragma unroll
        for (int r = 0; r < ROUNDS; r++) {
            int4 q = p[r * blockDim.x];
            s += (q.x + q.y) + (q.z + q.w);
        }
    } else {
        for (int r = 0; r < ROUNDS; r++) {
            int4 q = load4(in, tile_start + (r * blockDim.x + threadIdx.x) * 4, n);
            s += (q.x + q.y) + (q.z + q.w);
        }
    }
    int total;
    block_inclusive_scan(s, &total);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = total;
}

extern "C" __global__ void scan_sums(const int *sums, int *offsets, int tiles)
{
    int carry = 0;
    for (int base = 0; base < tiles; base += blockDim.x) {
        int i = base + threadIdx.x;
        int v = (i < tiles) ? sums[i] : 0;
        int total;
        int incl = block_inclusive_scan(v, &total);
        if (i < tiles)
            offsets[i] = carry + incl;
        carry += total;
    }
}

extern "C" __global__ void tile_scan(const int *in, int *out, const int *offsets, int n)
{
    int tile_start = blockIdx.x * blockDim.x * 4 * ROUNDS;
    int carry = offsets[blockIdx.x];           // everything before this tile
    // Prefetch: the loads of the next two rounds are in flight while this
    // round is scanned (a load takes about a microsecond to come back).
    int step = blockDim.x * 4;
    int i = tile_start + threadIdx.x * 4;
    int4 q = load4(in, i, n);
    int4 q1 = (ROUNDS > 1) ? load4(in, i + step, n) : q;
    for (int r = 0; r < ROUNDS; r++) {
        int4 q2 = (r + 2 < ROUNDS) ? load4(in, i + 2 * step, n) : q;
        q.y += q.x;
        q.z += q.y;
        q.w += q.z;
        int total;
        int incl = block_inclusive_scan(q.w, &total);
        int before = carry + incl - q.w;       // earlier rounds + earlier threads
        q.x += before;
        q.y += before;
        q.z += before;
        q.w += before;
        store4(out, i, n, q);
        carry += total;
        q = q1;                                // shift the prefetch pipeline
        q1 = q2;
        i += step;
    }
}
