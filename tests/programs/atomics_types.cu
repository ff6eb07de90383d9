// tests/programs/atomics_types.cu: atomics on every type a learner reaches
// for. atomicAdd on double (global and shared), __half, __half2,
// __nv_bfloat16 (sums of exactly representable values, so the order does not
// matter); 16-bit atomicCAS loops on neighbouring shorts (no neighbour is
// disturbed); 64-bit atomicCAS, atomicMax/Min on unsigned long long and long
// long; atomicInc/atomicDec wrapping at their limit (the multiset of returned
// values is order-independent); atomicAnd/Or/Xor 32 and 64 bit; atomicExch
// on float; atomicSub; the _block and _system scopes.
#include <cstdio>
#include <cstdlib>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

struct Acc {
    double dsum, dshared;
    __half hsum;
    __half2 h2sum;
    __nv_bfloat16 bsum;
    unsigned short shorts[4];
    unsigned long long ullmax, ullmin, ullcas, ullor, ullxor, ulland;
    long long llmax, llmin;
    unsigned inc, dec, u_and, u_or, u_xor;
    int sub, block_sum, system_sum;
    float exch;
    int inc_seen[10], dec_seen[10];
};

__device__ void add16(unsigned short *p, unsigned short v) {
    unsigned short old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, (unsigned short)(assumed + v));
    } while (old != assumed);
}

__global__ void hammer(Acc *a, int n) {
    __shared__ double sd;
    if (threadIdx.x == 0) sd = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&a->dsum, 0.5 * i);
        atomicAdd(&sd, 0.25);
        atomicAdd(&a->hsum, __float2half(1.0f));
        atomicAdd(&a->h2sum, __halves2half2(__float2half(0.5f), __float2half(-2.0f)));
        if (i < 200) atomicAdd(&a->bsum, __float2bfloat16(1.0f));
        add16(&a->shorts[i % 3 + 1], (unsigned short)(i % 3 + 1));
        atomicMax(&a->ullmax, (unsigned long long)i * 0x100000001ULL);
        atomicMin(&a->ullmin, 0xffffffffffULL - (unsigned long long)i);
        atomicMax(&a->llmax, (long long)(i - 300) * 1000000000LL);
        atomicMin(&a->llmin, (long long)(i - 300) * 1000000000LL);
        unsigned long long old = a->ullcas, assumed;
        do {
            assumed = old;
            old = atomicCAS(&a->ullcas, assumed, assumed + (1ULL << 33) + 1);
        } while (old != assumed);
        atomicOr(&a->ullor, 1ULL << (i % 64));
        atomicXor(&a->ullxor, (unsigned long long)i << 20);
        atomicAnd(&a->ulland, ~(1ULL << (i % 50 + 10)));
        if (i < 37) atomicAdd(&a->inc_seen[atomicInc(&a->inc, 9u)], 1);
        if (i < 25) atomicAdd(&a->dec_seen[atomicDec(&a->dec, 9u)], 1);
        atomicAnd(&a->u_and, ~(1u << (i % 32)) | 1u);
        atomicOr(&a->u_or, 1u << (i % 13));
        atomicXor(&a->u_xor, (unsigned)i);
        atomicSub(&a->sub, i);
        atomicAdd_block(&a->block_sum, 1);
        atomicAdd_system(&a->system_sum, 2);
        if (i == 77) atomicExch(&a->exch, 7.75f);
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&a->dshared, sd);
}

int main(void) {
    const int n = 500;
    Acc h = {};
    h.ullmin = ~0ULL;
    h.llmax = -(1LL << 62);
    h.llmin = 1LL << 62;
    h.ulland = ~0ULL;
    h.u_and = ~0u;
    h.dec = 3;
    h.exch = 1.0f;
    Acc *d;
    cudaCheck(cudaMalloc(&d, sizeof h));
    cudaCheck(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice));
    hammer<<<(n + 127) / 128, 128>>>(d, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    int bad = 0;
#define SHOW(fmt, got, want)                                                                                          \
    do {                                                                                                              \
        bool same = (got) == (want);                                                                                  \
        bad += !same;                                                                                                 \
        printf("%-12s " fmt "%s\n", #got, got, same ? "" : " (WRONG)");                                              \
    } while (0)
    SHOW("%.2f", h.dsum, 0.5 * n * (n - 1) / 2);
    SHOW("%.2f", h.dshared, 0.25 * n);
    SHOW("%.1f", __half2float(h.hsum), (float)n);
    SHOW("%.1f", __low2float(h.h2sum), 0.5f * n);
    SHOW("%.1f", __high2float(h.h2sum), -2.0f * n);
    SHOW("%.1f", __bfloat162float(h.bsum), 200.0f);
    printf("shorts       %u %u %u %u\n", h.shorts[0], h.shorts[1], h.shorts[2], h.shorts[3]);
    bad += h.shorts[0] != 0 || h.shorts[1] != 167 * 1 || h.shorts[2] != 167 * 2 || h.shorts[3] != 166 * 3;
    SHOW("%#llx", h.ullmax, 499ULL * 0x100000001ULL);
    SHOW("%#llx", h.ullmin, 0xffffffffffULL - 499);
    SHOW("%lld", h.llmax, 199000000000LL);
    SHOW("%lld", h.llmin, -300000000000LL);
    SHOW("%#llx", h.ullcas, 500ULL * ((1ULL << 33) + 1));
    SHOW("%#llx", h.ullor, ~0ULL);
    unsigned long long x = 0;
    unsigned ux = 0;
    for (int i = 0; i < n; i++) x ^= (unsigned long long)i << 20, ux ^= (unsigned)i;
    SHOW("%#llx", h.ullxor, x);
    SHOW("%#llx", h.ulland, ~(((1ULL << 50) - 1) << 10));
    SHOW("%u", h.inc, 7u);
    SHOW("%u", h.dec, 8u);
    printf("inc returned");
    for (int v = 0; v < 10; v++) printf(" %d", h.inc_seen[v]);
    printf("\ndec returned");
    for (int v = 0; v < 10; v++) printf(" %d", h.dec_seen[v]);
    printf("\n");
    SHOW("%#x", h.u_and, 1u);
    SHOW("%#x", h.u_or, 0x1fffu);
    SHOW("%#x", h.u_xor, ux);
    SHOW("%d", h.sub, -(n * (n - 1) / 2));
    SHOW("%d", h.block_sum, n);
    SHOW("%d", h.system_sum, 2 * n);
    SHOW("%.2f", h.exch, 7.75f);
    cudaCheck(cudaFree(d));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
