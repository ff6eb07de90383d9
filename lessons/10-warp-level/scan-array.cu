// scan-array.cu: the inclusive scan of a WHOLE array, out[i] = in[0] + ... + in[i],
// from the block scan of the last exercise, in three passes ("reduce, then scan"):
//
//   in:    [ tile 0 ][ tile 1 ][ tile 2 ] ...     a tile = blockDim.x * 4 * ROUNDS ints
//   pass 1 tile_sums:  sums    =  s0   s1   s2  ...      (done for you)
//   pass 2 scan_sums:  offsets =  0    s0   s0+s1 ...    (exclusive scan, ONE block)
//   pass 3 tile_scan:  each block scans its tile, starting from offsets[tile]
//
// Memory traffic: pass 1 reads the array, pass 3 reads it again and writes it:
// 3 x 4 bytes per element; the sums are tiny. (Scanning first and fixing up
// afterwards would read and write twice: 4 x 4 bytes.)
//
// Inside a tile, a block works in ROUNDS rounds. In each round every thread
// loads 4 consecutive ints with one 16-byte load, so a round covers
// blockDim.x * 4 elements; a carry brings the total of the earlier rounds in.
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

// ---- pass 2: offsets[t] = sums[0] + ... + sums[t - 1] (exclusive) -----------
// ONE block; there may be many more tiles than threads, so walk over the sums
// in chunks of blockDim.x and carry the total of the chunks before.
extern "C" __global__ void scan_sums(const int *sums, int *offsets, int tiles)
{
    int carry = 0;
    for (int base = 0; base < tiles; base += blockDim.x) {
        int i = base + threadIdx.x;
        int v = (i < tiles) ? sums[i] : 0;
        int total;
        int incl = block_inclusive_scan(v, &total);
        // TODO 1: the EXCLUSIVE prefix of i is everything before it: the carry
        //         plus the inclusive scan minus v itself.
        if (i < tiles)
            offsets[i] = incl;
        // TODO 2: the next chunk starts after this one: update the carry.
        (void)total; (void)carry;
    }
}

// ---- pass 3: the scan of one tile, starting from offsets[blockIdx.x] --------
extern "C" __global__ void tile_scan(const int *in, int *out, const int *offsets, int n)
{
    int tile_start = blockIdx.x * blockDim.x * 4 * ROUNDS;
    // TODO 3: the carry starts with everything before this tile.
    int carry = 0;
    // Prefetch: the loads of the next two rounds are in flight while this
    // round is scanned (a load takes about a microsecond to come back).
    int step = blockDim.x * 4;
    int i = tile_start + threadIdx.x * 4;
    int4 q = load4(in, i, n);
    int4 q1 = (ROUNDS > 1) ? load4(in, i + step, n) : q;
    for (int r = 0; r < ROUNDS; r++) {
        int4 q2 = (r + 2 < ROUNDS) ? load4(in, i + 2 * step, n) : q;
        q.y += q.x;                    // my four ints, scanned in registers
        q.z += q.y;
        q.w += q.z;
        int total;
        int incl = block_inclusive_scan(q.w, &total);   // over my four-int totals
        // TODO 4: `before` = the sum of everything before my first int:
        //         the carry, plus the threads before me in this round
        //         (incl is inclusive: it counts my own q.w).
        int before = 0;
        q.x += before;
        q.y += before;
        q.z += before;
        q.w += before;
        store4(out, i, n, q);
        // TODO 5: the next round starts after this one: update the carry.
        (void)incl; (void)total;
        q = q1;                                // shift the prefetch pipeline
        q1 = q2;
        i += step;
    }
}
