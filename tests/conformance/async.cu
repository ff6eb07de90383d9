// tests/conformance/async.cu: sm_90's asynchronous-copy family, which CUB
// and Thrust use on an H200: elect.sync, the mbarrier transaction barrier
// (init, inval, arrive with a count, arrive_drop, arrive.expect_tx,
// arrive.noComplete, expect_tx, complete_tx, test_wait and try_wait, by
// state and by parity, shared and generic addresses), and cp.async.bulk
// (global to shared completing on an mbarrier, shared to shared, shared to
// global in a bulk group, prefetch, commit/wait_group). Compiled for
// compute_90. Outputs: row k of thread i in out[k * n + i].

__device__ static unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// Leader and "am I the leader" of elect.sync for the full warp, for the lanes
// of a divergent branch (lane % 3 == 1, leader lane 1) and for the upper half.
extern "C" __global__ void async_elect(unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    unsigned leader, is;
    asm volatile("{ .reg .pred p; elect.sync %0|p, %2; selp.u32 %1, 1, 0, p; }"
                 : "=r"(leader), "=r"(is) : "r"(0xffffffffu));
    out[0 * n + i] = leader;
    out[1 * n + i] = is;
    unsigned l2 = 99, i2 = 99;
    if (lane % 3 == 1) {
        unsigned mask = __activemask();
        asm volatile("{ .reg .pred p; elect.sync %0|p, %2; selp.u32 %1, 1, 0, p; }"
                     : "=r"(l2), "=r"(i2) : "r"(mask));
    }
    out[2 * n + i] = l2;
    out[3 * n + i] = i2;
    unsigned i3 = 99;
    if (lane >= 16) asm volatile("{ .reg .pred p; elect.sync _|p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(i3) : "r"(0xffff0000u));
    out[4 * n + i] = i3;
}

__device__ static bool test_parity(unsigned bar, unsigned parity) {
    unsigned r;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(r) : "r"(bar), "r"(parity) : "memory");
    return r;
}

__device__ static bool try_parity(unsigned bar, unsigned parity) {
    unsigned r;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(r) : "r"(bar), "r"(parity) : "memory");
    return r;
}

// One block of 64 threads walks an mbarrier through five phases; each row
// holds what a thread saw (bits: tests in order).
extern "C" __global__ void async_mbarrier(unsigned *out, int n) {
    __shared__ unsigned long long bar_obj;
    int i = blockIdx.x * blockDim.x + threadIdx.x, t = threadIdx.x;
    unsigned bar = smem(&bar_obj);
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(64) : "memory");
    __syncthreads();

    // phase 0 (parity 0): every thread arrives and waits by its state, through a generic address
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(bar) : "memory");
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "l"(&bar_obj), "l"(state) : "memory");
    unsigned t0;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(t0) : "r"(bar), "l"(state) : "memory");
    out[0 * n + i] = done | t0 << 1 | (unsigned)test_parity(bar, 0) << 2 | (unsigned)test_parity(bar, 1) << 3;

    // phase 1 (parity 1): the last 16 threads arrive and drop out of later phases
    if (t >= 48) asm volatile("mbarrier.arrive_drop.shared.b64 _, [%0];" :: "r"(bar) : "memory");
    else asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
    while (!try_parity(bar, 1)) {}
    out[1 * n + i] = test_parity(bar, 1) | (unsigned)test_parity(bar, 0) << 1;
    __syncthreads();

    // phase 2 (parity 0): 48 arrivals, and 256 bytes of transactions completed later
    if (t == 0) asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(256) : "memory");
    __syncthreads();
    if (t < 48) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
    __syncthreads();
    unsigned before = test_parity(bar, 0);
    __syncthreads();
    if (t == 0) asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(256) : "memory");
    __syncthreads();
    out[2 * n + i] = before | (unsigned)test_parity(bar, 0) << 1;
    __syncthreads();

    // phase 3 (parity 1): arrive.expect_tx (1 arrival + 128 bytes), an arrive of 47 at once, bytes in two parts
    if (t == 0) asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(128) : "memory");
    if (t == 1) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(47) : "memory");
    __syncthreads();
    unsigned r3 = test_parity(bar, 1);
    __syncthreads();
    if (t == 2) asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(100) : "memory");
    __syncthreads();
    r3 |= (unsigned)test_parity(bar, 1) << 1;
    __syncthreads();
    if (t == 3) asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(28) : "memory");
    __syncthreads();
    out[3 * n + i] = r3 | (unsigned)test_parity(bar, 1) << 2;
    __syncthreads();

    // invalidated and made again with 3 arrivals: 2 that may not complete the phase, then 1
    if (t == 0) {
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(bar), "r"(3) : "memory");
        asm volatile("mbarrier.arrive.noComplete.shared.b64 %0, [%1], %2;" : "=l"(state) : "r"(bar), "r"(2) : "memory");
    }
    __syncthreads();
    unsigned r4 = test_parity(bar, 0);
    __syncthreads();
    if (t == 1) asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(bar) : "memory");
    __syncthreads();
    out[4 * n + i] = r4 | (unsigned)test_parity(bar, 0) << 1 | (unsigned)test_parity(bar, 1) << 2;
}

#define BULK_INTS 512   // 2 KiB a block

// Each block: cp.async.bulk of its 2 KiB from global into shared (an elected
// lane issues it, completing on an mbarrier), every thread transforms its 4
// ints, a shared-to-shared bulk copy of the first KiB on the next phase,
// then cp.async.bulk of the transformed tile back to global in a bulk
// group; out2 gets the shared-to-shared copy.
extern "C" __global__ void async_bulk(const int *in, int *out, int *out2, int n) {
    __shared__ alignas(128) int tile[BULK_INTS];
    __shared__ alignas(128) int copy[BULK_INTS / 2];
    __shared__ unsigned long long bar_obj;
    int t = threadIdx.x;
    unsigned bar = smem(&bar_obj);
    const int *src = in + blockIdx.x * BULK_INTS;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(1) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(src), "r"(BULK_INTS * 4) : "memory");
    }
    __syncthreads();
    if (t < 32) {
        unsigned is;
        asm volatile("{ .reg .pred p; elect.sync _|p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(is) : "r"(0xffffffffu));
        if (is) {
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         :: "r"(smem(tile)), "l"(src), "r"(BULK_INTS * 4), "r"(bar) : "memory");
            asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;"
                         :: "r"(bar), "r"(BULK_INTS * 4) : "memory");
        }
    }
    while (!try_parity(bar, 0)) {}
    for (int k = 0; k < 4; k++) tile[t * 4 + k] = tile[t * 4 + k] * 3 + (int)blockIdx.x;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(smem(copy)), "r"(smem(tile)), "r"(BULK_INTS * 2), "r"(bar) : "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(BULK_INTS * 2) : "memory");
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     :: "l"(out + blockIdx.x * BULK_INTS), "r"(smem(tile)), "r"(BULK_INTS * 4) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
    while (!try_parity(bar, 1)) {}
    for (int k = 0; k < 2; k++) out2[blockIdx.x * (BULK_INTS / 2) + t * 2 + k] = copy[t * 2 + k];
    (void)n;
}

// sm_80's cp.async tracked by an mbarrier: phase 0 counts each thread's
// cp.async.mbarrier.arrive.noinc as its arrival; in phase 1 the arrive
// without .noinc changes nothing and each thread arrives itself. Each
// thread then reads its neighbour's copied element.
extern "C" __global__ void async_cp_arrive(const int *in, int *out, int n) {
    __shared__ alignas(16) int s[2][64];
    __shared__ unsigned long long bar_obj;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    unsigned bar = smem(&bar_obj);
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(bar), "r"(64) : "memory");
    __syncthreads();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(smem(&s[0][t])), "l"(in + i) : "memory");
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(bar) : "memory");
    while (!try_parity(bar, 0)) {}
    out[i] = s[0][t ^ 1];
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(smem(&s[1][t])), "l"(in + (i ^ 2)) : "memory");
    asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
    asm volatile("mbarrier.arrive.shared.b64 _, [%0];" :: "r"(bar) : "memory");
    while (!try_parity(bar, 1)) {}
    out[n + i] = s[1][t ^ 1];
}

// Decoupled look-back as CUB writes it (one pass, no __threadfence): each
// block publishes {flag, inclusive prefix} in one 8-byte st.relaxed.gpu and
// its successor polls it with ld.relaxed.gpu (strong accesses of one word
// never race). Then, in place, each thread writes 2 * its element one
// position to the left: thread 0 of block b writes the last element of
// block b - 1's tile, which that block read before it published (the write
// comes after this block saw the publication). keep[] is written with the
// value already there (3i + 1) while the next block reads its last element.
extern "C" __global__ void lookback_scan(int *data, unsigned long long *status, int *out, int *keep, int n) {
    __shared__ int s[256];
    __shared__ int prefix;
    int b = blockIdx.x, t = threadIdx.x, i = b * blockDim.x + t;
    int v = data[i];
    keep[i] = 3 * i + 1;                             // the value already there
    int before = b > 0 && t == 0 ? keep[i - 1] : 0;  // the previous block's last, as written back
    s[t] = v;
    __syncthreads();
    for (int d = 1; d < 256; d *= 2) {
        int x = t >= d ? s[t - d] : 0;
        __syncthreads();
        s[t] += x;
        __syncthreads();
    }
    if (t == 0) {
        int p = 0;
        if (b > 0) {
            unsigned flag = 0, val = 0;
            while (flag == 0)
                asm volatile("ld.relaxed.gpu.v2.u32 {%0, %1}, [%2];" : "=r"(flag), "=r"(val) : "l"(status + b - 1) : "memory");
            p = (int)val;
        }
        asm volatile("st.relaxed.gpu.v2.u32 [%0], {%1, %2};" :: "l"(status + b), "r"(1u), "r"((unsigned)(p + s[255])) : "memory");
        prefix = p;
    }
    __syncthreads();
    out[i] = prefix + s[t];
    if (i > 0) data[i - 1] = 2 * v;
    if (t == 0 && b > 0) out[n + b] = before;
    (void)n;
}
