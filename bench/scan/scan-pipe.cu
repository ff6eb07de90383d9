// bench/scan/scan-pipe.cu: an experiment for scan-array (chapter 10), not a
// lesson file. The same one-pass inclusive scan with decoupled look-back as
// the course's solution (status and value packed in one 64-bit word, a warp
// that inspects 32 predecessors per step), with the changes that might take
// it past cub::DeviceScan::InclusiveSum on the H200 (issue 15 item 3), each
// behind a define so that bench/anchors can time them one by one:
//
//   - a blocked layout: each thread scans ITEMS consecutive ints (one serial
//     scan, one warp scan) instead of ROUNDS int4 (ROUNDS warp scans); the
//     tile travels global -> shared memory -> registers with coalesced 16-byte
//     copies (cp.async), and back the same way;
//   - no __threadfence() before a status store (FENCE 0): the status word is
//     the only thing another block reads, and it is one 64-bit store;
//   - tile = blockIdx.x (TICKET 0, what CUB does: blocks start in index
//     order) instead of a ticket, whose atomic round trip comes before any load;
//   - persistent blocks (PERSIST 1): a few blocks per SM each take tiles by
//     ticket until none is left, with the next STAGES - 1 tiles' copies in
//     flight while a tile is scanned and looks back, so that the memory
//     system never waits for a look-back;
//   - a look-back warp (LOOKAHEAD 1, one tile per block): an extra warp
//     looks back from the block's start, while the others wait for the tile
//     and scan it; it publishes the AGGREGATE they post if it is not done by
//     then, and the PREFIX as soon as both are known;
//   - CUB's sleeps (DELAY_NS before the first look, SPIN_NS between polls).
//
// Defines (all have defaults):
//   BLOCK          threads per block that scan (the launch uses BLOCK + 32 with LOOKAHEAD)
//   ITEMS          consecutive ints per thread, a multiple of 4; 4 x odd
//                  (12, 20, 28) reads shared memory as int4 without bank conflicts
//   STAGES         tile buffers in shared memory per block (PERSIST 1: tiles in flight + 1)
//   PERSIST        0: one tile per block, grid = tiles; 1: any grid, tiles by ticket
//   TICKET         (PERSIST 0) 1: tile from an atomic ticket; 0: tile = blockIdx.x
//   LOOKAHEAD      (PERSIST 0) 1: one more warp, which only looks back
//   FENCE          1: __threadfence() before each status store
//   DELAY_NS       sleep after publishing the aggregate, before the first look (0: none)
//   SPIN_NS        sleep between polls of a window that is not ready (0: none)
//   STORE_CS       1: streaming stores of the output (st.global.cs)
//   BLOCKS_PER_SM  __launch_bounds__'s minimum blocks per SM (0: none)
//
// status[0 .. tiles-1]: the tiles' statuses (bits 63..34 epoch, 33..32 flag,
// 31..0 value, as in the course); status[tiles]: the ticket counter (PERSIST 0,
// TICKET 1) or the count of finished blocks (otherwise: epoch = finished /
// gridDim.x + 1, so launches that share a status array use one grid size);
// status[tiles + 1], status[tiles + 2]: the ticket counters of odd and even
// launches (PERSIST 1); status[tiles + 3]: 1 when a look-back gave up
// waiting (MAX_POLLS: a wrong result instead of a hung GPU). All zero before
// the first launch, never reset.
//
// Checked at small sizes on the emulator: bench/scan/scan-check.cu.

#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef ITEMS
#define ITEMS 24
#endif
#ifndef PERSIST
#define PERSIST 0
#endif
#ifndef STAGES
#define STAGES (PERSIST ? 2 : 1)
#endif
#ifndef TICKET
#define TICKET 0
#endif
#ifndef FENCE
#define FENCE 0
#endif
#ifndef LOOKAHEAD
#define LOOKAHEAD 0
#endif
#ifndef DELAY_NS
#define DELAY_NS 0
#endif
#ifndef SPIN_NS
#define SPIN_NS 0
#endif
#ifndef STORE_CS
#define STORE_CS 0
#endif
#ifndef BLOCKS_PER_SM
#define BLOCKS_PER_SM 0
#endif

#define FULL_MASK 0xffffffffu
#define FLAG_AGGREGATE 1u
#define FLAG_PREFIX 2u
#define MAX_POLLS (1 << 20)          // polls of one window before a look-back gives up
#define GAVE_UP_POLLS 1024           // ... once another look-back has given up
#define TILE (BLOCK * ITEMS)         // ints per tile
#define VECS (ITEMS / 4)             // int4 per thread
#define WARPS (BLOCK / 32)
#define RING (STAGES + 1)            // PERSIST: the tiles of iterations i .. i + STAGES
#define THREADS (BLOCK + 32 * LOOKAHEAD)

static_assert(ITEMS % 4 == 0, "ITEMS must be a multiple of 4");
static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK must be whole warps");
static_assert(STAGES >= 1 && (PERSIST || STAGES == 1), "STAGES >= 1, and 1 without PERSIST");
static_assert(!(LOOKAHEAD && PERSIST), "LOOKAHEAD is for one tile per block");

#if BLOCKS_PER_SM > 0
#define BOUNDS __launch_bounds__(THREADS, BLOCKS_PER_SM)
#else
#define BOUNDS __launch_bounds__(THREADS)
#endif

// A barrier of the threads that scan: all of them, or (LOOKAHEAD) all but the look-back warp.
#if LOOKAHEAD
#define SCAN_SYNC() asm volatile("bar.sync 1, %0;\n" ::"n"(BLOCK) : "memory")
#else
#define SCAN_SYNC() __syncthreads()
#endif

__device__ __forceinline__ int warp_inclusive_scan(int v)
{
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        int below = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d) v += below;
    }
    return v;
}

__device__ __forceinline__ int warp_sum(int v)
{
#pragma unroll
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(FULL_MASK, v, d);
    return v;
}

// ---- 16-byte copies global -> shared that do not wait (cp.async, sm_80+) ----
__device__ __forceinline__ void copy16_async(int *smem, const int *gmem)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    size_t g = __cvta_generic_to_global(gmem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(g) : "memory");
}

__device__ __forceinline__ void copies_commit(void) { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most STAGES - 1 committed groups are still in flight.
__device__ __forceinline__ void copies_wait_all_but_newest(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 1) : "memory");
}

// Starts copying tile `tile` into sbuf (TILE ints): thread t copies int4
// number j * BLOCK + t, so each warp copies 512 consecutive bytes at a time.
// The last tile, if partial, is copied now, element by element, 0 past n.
__device__ __forceinline__ void tile_load(int *sbuf, const int *in, int tile, int n)
{
    long long base = (long long)tile * TILE;
    if (base + TILE <= n) {
#pragma unroll
        for (int j = 0; j < VECS; j++) {
            int v = j * BLOCK + threadIdx.x;
            copy16_async(sbuf + 4 * v, in + base + 4 * v);
        }
    } else {
        for (int j = 0; j < VECS; j++) {
            int v = j * BLOCK + threadIdx.x;
            for (int e = 0; e < 4; e++) {
                long long i = base + 4 * v + e;
                sbuf[4 * v + e] = i < n ? in[i] : 0;
            }
        }
    }
}

// Writes the scanned tile in sbuf to out, as tile_load read it.
__device__ __forceinline__ void tile_store(int *out, const int *sbuf, int tile, int n)
{
    long long base = (long long)tile * TILE;
    if (base + TILE <= n) {
#pragma unroll
        for (int j = 0; j < VECS; j++) {
            int v = j * BLOCK + threadIdx.x;
            int4 q = *reinterpret_cast<const int4 *>(sbuf + 4 * v);
#if STORE_CS
            __stcs(reinterpret_cast<int4 *>(out + base + 4 * v), q);
#else
            *reinterpret_cast<int4 *>(out + base + 4 * v) = q;
#endif
        }
    } else {
        for (int j = 0; j < VECS; j++) {
            int v = j * BLOCK + threadIdx.x;
            for (int e = 0; e < 4; e++) {
                long long i = base + 4 * v + e;
                if (i < n) out[i] = sbuf[4 * v + e];
            }
        }
    }
}

// ---- statuses ---------------------------------------------------------------
__device__ __forceinline__ void publish(unsigned long long *status, int tile, unsigned epoch, unsigned flag,
                                        int value)
{
    unsigned long long word = ((unsigned long long)(epoch << 2 | flag) << 32) | (unsigned)value;
#if FENCE
    __threadfence();
#endif
    *(volatile unsigned long long *)&status[tile] = word;
}

// One warp: the sum of every tile before `tile`. Lane k watches tile - 1 - k.
// A window is done when the lanes up to its nearest PREFIX are all ready (or,
// without a PREFIX, all 32 are): then add them; without a PREFIX, go 32 back.
// posted (LOOKAHEAD): where the scan warps post the tile's aggregate (bit 32
// set when it is there); it is published as an AGGREGATE while waiting.
__device__ int look_back(unsigned long long *status, int tile, unsigned epoch, int tiles,
                         volatile unsigned long long *posted)
{
    int lane = threadIdx.x % 32;
    int prefix = 0;
    bool published = posted == 0;
#if DELAY_NS > 0
    __nanosleep(DELAY_NS);
#endif
    for (int p = tile - 1 - lane;; p -= 32) {
        unsigned flag;
        int value;
        for (int polls = 0;; polls++) {
            if (!published) {
                unsigned long long a = __shfl_sync(FULL_MASK, *posted, 0);
                if (a >> 32) {
                    if (lane == 0) publish(status, tile, epoch, FLAG_AGGREGATE, (int)(unsigned)a);
                    published = true;
                }
            }
            flag = FLAG_PREFIX;              // before tile 0: nothing
            value = 0;
            if (p >= 0) {
                unsigned long long w = *(const volatile unsigned long long *)&status[p];
                unsigned high = (unsigned)(w >> 32);
                value = (int)(unsigned)w;
                flag = (high >> 2) == epoch ? (high & 3u) : 0u;
            }
            unsigned ready = __ballot_sync(FULL_MASK, flag != 0);
            unsigned prefixes = __ballot_sync(FULL_MASK, flag == FLAG_PREFIX);
            unsigned need = prefixes ? (prefixes & (0u - prefixes)) * 2u - 1u : FULL_MASK;   // lanes 0..nearest
            if ((ready & need) == need) break;
            // Give up rather than hang (the result will be wrong): after
            // MAX_POLLS, or after GAVE_UP_POLLS once another look-back gave up.
            if (polls >= GAVE_UP_POLLS &&
                (polls >= MAX_POLLS || *(const volatile unsigned long long *)&status[tiles + 3])) {
                if (lane == 0) *(volatile unsigned long long *)&status[tiles + 3] = 1;
                return prefix;
            }
#if SPIN_NS > 0
            __nanosleep(SPIN_NS);
#endif
        }
        unsigned prefixes = __ballot_sync(FULL_MASK, flag == FLAG_PREFIX);
        int nearest = prefixes ? __ffs(prefixes) - 1 : 31;
        prefix += warp_sum(lane <= nearest ? value : 0);
        if (prefixes) return prefix;
    }
}

// ---- one tile, in shared memory at sbuf: scan it, look back, store it ------
__device__ __forceinline__ void tile_scan(int *sbuf, int *out, unsigned long long *status, int n, int tiles,
                                          int tile, unsigned epoch, int *warp_sums, int *tile_prefix,
                                          unsigned long long *posted)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int4 *mine = reinterpret_cast<int4 *>(sbuf) + threadIdx.x * VECS;
    int v[ITEMS];
#pragma unroll
    for (int k = 0; k < VECS; k++) {
        int4 q = mine[k];
        v[4 * k] = q.x;
        v[4 * k + 1] = q.y;
        v[4 * k + 2] = q.z;
        v[4 * k + 3] = q.w;
    }
#pragma unroll
    for (int k = 1; k < ITEMS; k++) v[k] += v[k - 1];
    int total = v[ITEMS - 1];
    int incl = warp_inclusive_scan(total);
    if (lane == 31) warp_sums[warp] = incl;
    SCAN_SYNC();

    if (warp == 0) {
        int x = lane < WARPS ? warp_sums[lane] : 0;
        int xs = warp_inclusive_scan(x);
        int aggregate = __shfl_sync(FULL_MASK, xs, 31);
        if (lane < WARPS) warp_sums[lane] = xs - x;        // exclusive, in place
#if LOOKAHEAD
        // Post it for the look-back warp (flag and value in one store).
        if (lane == 0) *(volatile unsigned long long *)posted = 1ull << 32 | (unsigned)aggregate;
#else
        int prefix = 0;
        if (tile > 0) {
            if (lane == 0) publish(status, tile, epoch, FLAG_AGGREGATE, aggregate);
            prefix = look_back(status, tile, epoch, tiles, 0);
        }
        if (lane == 0) {
            publish(status, tile, epoch, FLAG_PREFIX, prefix + aggregate);
            *tile_prefix = prefix;
        }
#endif
    }
#if LOOKAHEAD
    asm volatile("bar.sync 2, %0;\n" ::"n"(THREADS) : "memory");   // the look-back warp set tile_prefix
#else
    __syncthreads();
#endif

    int before = *tile_prefix + warp_sums[warp] + incl - total;
#pragma unroll
    for (int k = 0; k < VECS; k++)
        mine[k] = make_int4(v[4 * k] + before, v[4 * k + 1] + before, v[4 * k + 2] + before, v[4 * k + 3] + before);
    SCAN_SYNC();
    tile_store(out, sbuf, tile, n);
}

extern "C" __global__ void BOUNDS scan(const int *in, int *out, unsigned long long *status, int n)
{
    __shared__ __align__(16) int buf[STAGES][TILE];
    __shared__ int warp_sums[WARPS];
    __shared__ int tile_prefix;
    int tiles = (n + TILE - 1) / TILE;

#if !PERSIST
    int tile;
    unsigned epoch;
#if LOOKAHEAD
    __shared__ unsigned long long posted_s;
    unsigned long long *const posted = &posted_s;
    if (threadIdx.x == BLOCK) posted_s = 0;
#else
    unsigned long long *const posted = 0;
#endif
#if TICKET
    __shared__ unsigned long long ticket_s;
    if (threadIdx.x == 0) ticket_s = atomicAdd(&status[tiles], 1ull);
    __syncthreads();
    tile = (int)(ticket_s % (unsigned)tiles);
    epoch = (unsigned)(ticket_s / (unsigned)tiles) + 1;
#else
    // The count of finished blocks: (launches before this one) x gridDim.x plus
    // fewer than gridDim.x of this launch (this block has not finished). Only
    // the look-back needs it: the load's latency hides under the tile's.
    tile = blockIdx.x;
    epoch = 0;
    if (threadIdx.x / 32 == (LOOKAHEAD ? BLOCK / 32 : 0)) {   // the warp that looks back
        unsigned long long finished = *(const volatile unsigned long long *)&status[tiles];
        epoch = (unsigned)(finished / gridDim.x) + 1;
    }
#if LOOKAHEAD
    __syncthreads();                               // posted_s is 0
#endif
#endif
#if LOOKAHEAD
    if (threadIdx.x >= BLOCK) {
        // The look-back warp: look back now, then wait for the aggregate
        // (published as an AGGREGATE meanwhile if it came first), publish the
        // PREFIX, hand the prefix to the scan warps and leave.
        int lane = threadIdx.x % 32;
        int prefix = tile > 0 ? look_back(status, tile, epoch, tiles, posted) : 0;
        unsigned long long a;
        while (!((a = *(volatile unsigned long long *)posted) >> 32)) {
        }
        if (lane == 0) {
            publish(status, tile, epoch, FLAG_PREFIX, prefix + (int)(unsigned)a);
            tile_prefix = prefix;
        }
        asm volatile("bar.arrive 2, %0;\n" ::"n"(THREADS) : "memory");
        return;
    }
#endif
    tile_load(buf[0], in, tile, n);
    copies_commit();
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    SCAN_SYNC();
    tile_scan(buf[0], out, status, n, tiles, tile, epoch, warp_sums, &tile_prefix, posted);
#if !TICKET
    if (threadIdx.x == 0) atomicAdd(&status[tiles], 1ull);
#endif
#else
    // Persistent: tickets from this launch's counter; the tile of iteration i
    // is ring[i % RING]. Iteration i starts the copy of iteration i + STAGES - 1's
    // tile and the ticket of iteration i + STAGES, then scans iteration i's.
    __shared__ int ring[RING];
    __shared__ unsigned epoch_s;
    if (threadIdx.x == 0) {
        unsigned long long finished = *(const volatile unsigned long long *)&status[tiles];
        unsigned epoch = (unsigned)(finished / gridDim.x) + 1;
        // The other parity's counter is the next launch's: zero it (the launch
        // before this one, which used it, has finished; the next has not begun).
        *(volatile unsigned long long *)&status[tiles + 1 + ((epoch + 1) & 1)] = 0;
        unsigned long long first = atomicAdd(&status[tiles + 1 + (epoch & 1)], (unsigned long long)STAGES);
        for (int s = 0; s < STAGES; s++)
            ring[s] = first + s < (unsigned long long)tiles ? (int)(first + s) : tiles;
        epoch_s = epoch;
    }
    __syncthreads();
    unsigned epoch = epoch_s;
    unsigned long long *counter = &status[tiles + 1 + (epoch & 1)];
    for (int s = 0; s < STAGES - 1; s++) {
        if (ring[s] < tiles) tile_load(buf[s], in, ring[s], n);
        copies_commit();
    }
    for (int i = 0;; i++) {
        int tile = ring[i % RING];
        if (tile >= tiles) break;                 // uniform: every later ticket is larger
        int ahead = ring[(i + STAGES - 1) % RING];
        if (ahead < tiles) tile_load(buf[(i + STAGES - 1) % STAGES], in, ahead, n);
        copies_commit();
        unsigned long long next = 0;
        bool more = ring[(i + STAGES - 1) % RING] < tiles;
        if (threadIdx.x == 0 && more) next = atomicAdd(counter, 1ull);
        copies_wait_all_but_newest();
        __syncthreads();
        tile_scan(buf[i % STAGES], out, status, n, tiles, tile, epoch, warp_sums, &tile_prefix, 0);
        if (threadIdx.x == 0)
            ring[(i + STAGES) % RING] = more && next < (unsigned long long)tiles ? (int)next : tiles;
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(&status[tiles], 1ull);
#endif
}
