// scan-array.cu (solution): the inclusive scan of a whole array in ONE pass,
// with decoupled look-back (Merrill & Garland, 2016). Each block takes a
// ticket, scans its tile in registers, publishes the tile's total, and looks
// back over the statuses of the tiles before it for its prefix.
#define FULL_MASK 0xffffffffu
#ifndef ROUNDS
#define ROUNDS 4            // int4 loads per thread: a tile is blockDim.x * 4 * ROUNDS ints
#endif

// A tile's status: one 64-bit word, so the flag and the value change together.
//   bits 63..34  epoch: which launch wrote it (older launches read as not ready)
//   bits 33..32  flag:  0 not ready, 1 AGGREGATE (the tile's own total),
//                       2 PREFIX (everything up to and including the tile)
//   bits 31..0   the value
#define FLAG_AGGREGATE 1u
#define FLAG_PREFIX 2u

// Waiting politely (not needed for the target; it is what CUB does): a warp
// that polls L2 non-stop takes issue slots and memory bandwidth from the
// blocks whose tiles it waits for. __nanosleep(DELAY_NS) once before the
// first look gives the tiles just before ours time to publish; SPIN_NS
// between polls. CUB's Hopper tuning: 1245 and 648 ns (bench/anchors.cu
// measures both ways against CUB on a GPU; 0 turns a sleep off).
#ifndef DELAY_NS
#define DELAY_NS 1245
#endif
#ifndef SPIN_NS
#define SPIN_NS 648
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

__device__ int warp_sum(int v)
{
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, d);
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

// ---- statuses (done) ------------------------------------------------------------
// Publish: the fence makes everything this thread wrote before visible first;
// the volatile store goes to memory (L2), where other blocks will look.
__device__ void publish(unsigned long long *status, int tile, unsigned int epoch, unsigned int flag, int value)
{
    unsigned long long word = ((unsigned long long)(epoch << 2 | flag) << 32) | (unsigned int)value;
    __threadfence();
    *(volatile unsigned long long *)&status[tile] = word;
}

// The flag of tile p's status in this launch (0 while not ready) and its value.
// volatile: read memory every time, never a copy kept in a register or L1.
__device__ unsigned int peek(const unsigned long long *status, int p, unsigned int epoch, int *value)
{
    unsigned long long word = *(const volatile unsigned long long *)&status[p];
    unsigned int high = (unsigned int)(word >> 32);
    *value = (int)(unsigned int)word;
    return (high >> 2) == epoch ? (high & 3u) : 0u;
}

// ---- the look-back: warp 0 finds the sum of every tile before `tile` --------
// Lane k watches tile - 1 - k. Wait until all 32 are ready; the nearest
// PREFIX ends the walk (add the aggregates before it and its prefix);
// without one, add all 32 aggregates and look 32 tiles further back.
__device__ int look_back(const unsigned long long *status, int tile, unsigned int epoch)
{
    int lane = threadIdx.x % 32;
    int prefix = 0;
#if DELAY_NS > 0
    __nanosleep(DELAY_NS);
#endif
    for (int p = tile - 1 - lane; ; p -= 32) {
        unsigned int flag;
        int value;
#if SPIN_NS > 0
        bool again = false;
#endif
        do {
#if SPIN_NS > 0
            if (again)                         // not all ready last time: rest, then read again
                __nanosleep(SPIN_NS);
            again = true;
#endif
            if (p >= 0) {
                flag = peek(status, p, epoch, &value);
            } else {
                flag = FLAG_PREFIX;            // before tile 0: nothing
                value = 0;
            }
        } while (__any_sync(FULL_MASK, flag == 0));
        unsigned int prefixes = __ballot_sync(FULL_MASK, flag == FLAG_PREFIX);
        int nearest = prefixes ? __ffs(prefixes) - 1 : 31;
        prefix += warp_sum(lane <= nearest ? value : 0);
        if (prefixes)
            return prefix;
    }
}

// ---- the scan ---------------------------------------------------------------
// status[0 .. tiles-1] are the tiles' statuses and status[tiles] counts tickets;
// all zero before the first launch, never reset: launch k hands out tickets
// k * tiles .. k * tiles + tiles - 1, so its epoch is k + 1.
extern "C" __global__ void scan(const int *in, int *out, unsigned long long *status, int n)
{
    __shared__ int warp_totals[ROUNDS * 32];   // [round][warp], in the tile's order
    __shared__ int tile_prefix;
    __shared__ unsigned long long ticket_s;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    int warps = blockDim.x / 32;
    int tile_size = blockDim.x * 4 * ROUNDS;
    int tiles = (n + tile_size - 1) / tile_size;

    // 1. A ticket, not blockIdx.x: blocks may start in any order, and a block
    //    that waited for a tile whose block had not started could wait forever.
    //    Tickets go out in the order blocks start.
    if (threadIdx.x == 0)
        ticket_s = atomicAdd(&status[tiles], 1ull);
    __syncthreads();
    unsigned long long ticket = ticket_s;
    int tile = (int)(ticket % (unsigned int)tiles);
    unsigned int epoch = (unsigned int)(ticket / (unsigned int)tiles) + 1;

    // 2. Load the whole tile: ROUNDS int4 per thread, all in flight at once.
    //    Round r covers ints [r * blockDim.x * 4, (r + 1) * blockDim.x * 4).
    int first = tile * tile_size + threadIdx.x * 4;
    int step = blockDim.x * 4;
    int4 q[ROUNDS];
    if ((tile + 1) * tile_size <= n) {
        const int4 *p = reinterpret_cast<const int4 *>(in + first);
#pragma unroll
        for (int r = 0; r < ROUNDS; r++)
            q[r] = p[r * blockDim.x];
    } else {
#pragma unroll
        for (int r = 0; r < ROUNDS; r++)   // the last tile: 0 past n
            q[r] = load4(in, first + r * step, n);
    }

    // 3. Scan in registers (my four ints), then across the warp (my totals).
    int incl[ROUNDS];
#pragma unroll
    for (int r = 0; r < ROUNDS; r++) {
        q[r].y += q[r].x;
        q[r].z += q[r].y;
        q[r].w += q[r].z;
        incl[r] = warp_inclusive_scan(q[r].w);
        if (lane == 31)
            warp_totals[r * warps + warp] = incl[r];
    }
    __syncthreads();

    // 4. Warp 0 scans the ROUNDS * warps warp totals (exclusive, in place),
    //    each lane a run of `per` consecutive ones; the tile's total comes out.
    if (warp == 0) {
        int count = ROUNDS * warps;
        int per = (count + 31) / 32;
        int run = 0;
        for (int k = 0; k < per; k++) {
            int j = lane * per + k;
            run += (j < count) ? warp_totals[j] : 0;
        }
        int run_incl = warp_inclusive_scan(run);
        int before = run_incl - run;           // the runs of the lanes below
        for (int k = 0; k < per; k++) {          // back into warp_totals, exclusive
            int j = lane * per + k;
            if (j < count) {
                int v = warp_totals[j];
                warp_totals[j] = before;
                before += v;
            }
        }
        int aggregate = __shfl_sync(FULL_MASK, run_incl, 31);

        // 5. Publish the aggregate at once (so later tiles need not wait for
        //    our look-back), look back, then publish the inclusive prefix.
        int prefix = 0;
        if (tile > 0) {
            if (lane == 0)
                publish(status, tile, epoch, FLAG_AGGREGATE, aggregate);
            prefix = look_back(status, tile, epoch);
        }
        if (lane == 0) {
            publish(status, tile, epoch, FLAG_PREFIX, prefix + aggregate);
            tile_prefix = prefix;
        }
    }
    __syncthreads();

    // 6. Everything before my first int: the earlier tiles, the earlier
    //    rounds and warps of this tile, the earlier lanes of my warp.
#pragma unroll
    for (int r = 0; r < ROUNDS; r++) {
        int before = tile_prefix + warp_totals[r * warps + warp] + incl[r] - q[r].w;
        q[r].x += before;
        q[r].y += before;
        q[r].z += before;
        q[r].w += before;
        store4(out, first + r * step, n, q[r]);
    }
}
