// tests/conformance/atomics.cu: atom/red for every op and type, on global and
// shared memory and through generic pointers (a __noinline__ function). The
// inputs are chosen so the final values do not depend on the order the
// threads run in (integer sums, float sums of small integers).

// acc: [0]=int add, [1]=unsigned add, [2]=min, [3]=max, [4]=umin, [5]=umax,
//      [6]=and, [7]=or, [8]=xor, [9]=ticket sum; acc64: [0]=u64 add, [1]=u64 max, [2]=s64 min.
// olds[i]: what thread i's atomicAdd of (i % 7) + 1 to acc[9] returned; sorted,
// they must chain (each is the previous plus that thread's increment).
extern "C" __global__ void atom_global_int(const int *a, int *acc, unsigned long long *acc64, int *olds, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = a[i];
    atomicAdd(&acc[0], v);
    atomicAdd((unsigned *)&acc[1], (unsigned)v * 3u);
    atomicMin(&acc[2], v);
    atomicMax(&acc[3], v);
    atomicMin((unsigned *)&acc[4], (unsigned)v);
    atomicMax((unsigned *)&acc[5], (unsigned)v);
    atomicAnd(&acc[6], ~(1 << (i & 31)) | v);
    atomicOr(&acc[7], v & (0x10001 << (i & 15)));
    atomicXor(&acc[8], v);
    atomicAdd(&acc64[0], (unsigned long long)(unsigned)v << 8);
    atomicMax(&acc64[1], (unsigned long long)(unsigned)v * 0x10001ull);
    atomicMin((long long *)&acc64[2], (long long)v * 1000003ll);
    olds[i] = atomicAdd(&acc[9], (i % 7) + 1);
}

extern "C" __global__ void atom_global_float(const float *a, const double *b, float *accf, double *accd, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&accf[0], a[i]);
    atomicAdd(&accd[0], b[i]);
    atomicAdd(&accf[1 + (i & 3)], 0.25f);
}

// atomicInc/atomicDec wrap at `limit`; their final values do not depend on order.
// atomicExch: every thread swaps its id in; the old values plus the final value
// are then a permutation of {init, 0..n-1}.
extern "C" __global__ void atom_inc_dec_exch(unsigned *ctr, int *exch_old, int *slot, int n, unsigned limit) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicInc(&ctr[0], limit);
    atomicDec(&ctr[1], limit);
    atomicInc(&ctr[2], 0xffffffffu);
    exch_old[i] = atomicExch(slot, i);
    atomicExch((float *)&ctr[3], 2.5f);
}

// A CAS loop that increments a counter: the values each thread saw are a permutation.
extern "C" __global__ void atom_cas(unsigned *ctr, unsigned *ticket, unsigned long long *ctr64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned old = *(volatile unsigned *)ctr, assumed;
    do {
        assumed = old;
        old = atomicCAS(ctr, assumed, assumed + 1);
    } while (old != assumed);
    ticket[i] = old;
    unsigned long long o64 = *(volatile unsigned long long *)ctr64, a64;
    do {
        a64 = o64;
        o64 = atomicCAS(ctr64, a64, a64 + 0x100000001ull);
    } while (o64 != a64);
}

// Shared-memory atomics for every op, results written per block.
extern "C" __global__ void atom_shared(const int *a, int *out, int n) {
    __shared__ int s[8];
    __shared__ unsigned su[4];
    __shared__ float sf;
    __shared__ unsigned long long s64;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        s[0] = 0; s[1] = 0x7fffffff; s[2] = (int)0x80000000; s[3] = -1; s[4] = 0; s[5] = 0; s[6] = 0; s[7] = 0;
        su[0] = 0; su[1] = 0; su[2] = 0xffffffffu; su[3] = 0; sf = 0.0f; s64 = 0;
    }
    __syncthreads();
    int v = i < n ? a[i] : 0;
    atomicAdd(&s[0], v);
    atomicMin(&s[1], v);
    atomicMax(&s[2], v);
    atomicAnd(&s[3], v | (1 << (t & 31)));
    atomicOr(&s[4], v & 0x0f0f0f0f);
    atomicXor(&s[5], v);
    atomicExch(&s[6], 5);
    unsigned assumed, old = su[3];
    do { assumed = old; old = atomicCAS(&su[3], assumed, assumed + 2); } while (old != assumed);
    atomicInc(&su[0], 9u);
    atomicDec(&su[1], 6u);
    atomicMin(&su[2], (unsigned)v);
    atomicAdd(&sf, 0.5f);
    atomicAdd(&s64, (unsigned long long)(unsigned)v);
    __syncthreads();
    if (t == 0) {
        int *o = out + blockIdx.x * 16;
        for (int k = 0; k < 7; k++) o[k] = s[k];
        for (int k = 0; k < 4; k++) o[7 + k] = (int)su[k];
        o[11] = __float_as_int(sf);
        o[12] = (int)(s64 & 0xffffffffu);
        o[13] = (int)(s64 >> 32);
    }
}

// Atomics through generic pointers: a __noinline__ function receives both a
// shared and a global address and uses atom.add with no state space.
__device__ __noinline__ void add_generic(int *p, int v, float *pf, float vf) {
    atomicAdd(p, v);
    atomicAdd(pf, vf);
    atomicMax(p + 1, v);
}

extern "C" __global__ void atom_generic(const int *a, int *gacc, float *gaccf, int *out, int n) {
    __shared__ int s[2];
    __shared__ float sf;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) { s[0] = 0; s[1] = -1000000; sf = 0.0f; }
    __syncthreads();
    if (i < n) {
        add_generic(s, a[i], &sf, 1.0f);
        add_generic(gacc, a[i], gaccf, 2.0f);
    }
    __syncthreads();
    if (t == 0) {
        out[blockIdx.x * 3 + 0] = s[0];
        out[blockIdx.x * 3 + 1] = s[1];
        out[blockIdx.x * 3 + 2] = (int)sf;
    }
}

// atom.add.f32 flushes subnormal inputs and results on global memory (without
// .noftz) and keeps them on shared memory (found by tests/difffuzz): words
// start at FLT_MIN and every thread adds a subnormal (k * 2^-149, exact sums
// in any order). acc[0..3]: global; acc[4..7]: the shared sums; acc[8]: a
// global word that starts subnormal and gets subnormals (flushed to +0).
extern "C" __global__ void atom_f32_subnormal(const unsigned *ks, float *acc, int n) {
    __shared__ float s[4];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 4) s[threadIdx.x] = 1.17549435e-38f;
    __syncthreads();
    float v = __uint_as_float(ks[i] & 0xffffu);
    if (i < n) {
        atomicAdd(&acc[i & 3], v);
        atomicAdd(&s[i & 3], v);
        atomicAdd(&acc[8], v);
    }
    __syncthreads();
    if (threadIdx.x < 4) acc[4 + threadIdx.x] = s[threadIdx.x] - 1.17549435e-38f;   // one block
}
