// tests/programs/mem_pools.cu: memory pools beyond the default one.
// cudaMemPoolCreate (device 0, pinned), cudaMallocFromPoolAsync, the
// reserved/used counters and their high watermarks (reset by setting 0),
// the release threshold (0: memory goes back at the next synchronisation;
// UINT64_MAX: kept, and a same-size allocation on the same stream reuses the
// same address), cudaMemPoolTrimTo, cudaDeviceSetMemPool/GetMemPool
// (cudaMallocAsync then draws from the new pool), cudaFree of a pool
// allocation (accepted; the counters are printed only after a
// synchronisation and a trim), cudaMemPoolDestroy (the device's pool falls
// back to the default one; destroying the default pool is refused), bad
// properties.
// Sizes are printed as predicates: the GPU reserves in pieces of its own.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

static int failures = 0;
static void expect(bool ok, const char *what) {
    printf("%s - %s\n", ok ? "ok" : "FAIL", what);
    failures += !ok;
}

static uint64_t attr(cudaMemPool_t p, cudaMemPoolAttr a) {
    uint64_t v = 0;
    cudaCheck(cudaMemPoolGetAttribute(p, a, &v));
    return v;
}

__global__ void iota(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = i;
}

__global__ void sum(const int *x, int n, unsigned long long *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, (unsigned long long)x[i]);
}

int main(void) {
    const int n = 1 << 18; // 1 MiB of ints
    const size_t bytes = n * sizeof(int);
    cudaStream_t s;
    cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool;
    cudaCheck(cudaMemPoolCreate(&pool, &props));
    cudaMemPool_t def;
    cudaCheck(cudaDeviceGetDefaultMemPool(&def, 0));
    expect(pool != def, "a created pool is not the default pool");
    expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) == 0 && attr(pool, cudaMemPoolAttrUsedMemCurrent) == 0,
           "a new pool holds nothing");
    int reuse = -1;
    cudaCheck(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse));
    printf("opportunistic reuse by default: %d\n", reuse);

    int *a;
    cudaCheck(cudaMallocFromPoolAsync((void **)&a, bytes, pool, s));
    uint64_t used = attr(pool, cudaMemPoolAttrUsedMemCurrent), reserved = attr(pool, cudaMemPoolAttrReservedMemCurrent);
    printf("after a 1 MiB allocation: used >= 1 MiB: %s, reserved >= used: %s\n", used >= bytes ? "yes" : "no",
           reserved >= used ? "yes" : "no");
    unsigned long long *d_sum, h_sum = 0;
    cudaCheck(cudaMalloc(&d_sum, sizeof *d_sum));
    cudaCheck(cudaMemsetAsync(d_sum, 0, sizeof *d_sum, s));
    iota<<<n / 256, 256, 0, s>>>(a, n);
    sum<<<n / 256, 256, 0, s>>>(a, n, d_sum);
    cudaCheck(cudaFreeAsync(a, s));
    cudaCheck(cudaMemcpyAsync(&h_sum, d_sum, sizeof h_sum, cudaMemcpyDeviceToHost, s));
    cudaCheck(cudaStreamSynchronize(s));
    printf("sum of 0..%d: %llu\n", n - 1, h_sum);
    expect(h_sum == (unsigned long long)n * (n - 1) / 2, "the kernels used the pool's memory");
    expect(attr(pool, cudaMemPoolAttrUsedMemCurrent) == 0, "after cudaFreeAsync nothing is in use");
    expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) == 0,
           "release threshold 0: the memory went back at the synchronisation");
    expect(attr(pool, cudaMemPoolAttrUsedMemHigh) >= bytes, "the used high watermark remembers the 1 MiB");
    uint64_t zero = 0;
    cudaCheck(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    cudaCheck(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
    expect(attr(pool, cudaMemPoolAttrUsedMemHigh) == 0 && attr(pool, cudaMemPoolAttrReservedMemHigh) == 0,
           "setting a high watermark to 0 resets it to the current value");
    uint64_t one = 1;
    printf("set a high watermark to 1: %s\n",
           cudaGetErrorName(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &one)));
    printf("set the current reserved size: %s\n",
           cudaGetErrorName(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &zero)));
    cudaGetLastError();

    // keep everything: the next allocation of the same size on the same stream reuses the block
    uint64_t keep = UINT64_MAX;
    cudaCheck(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    int *b1, *b2;
    cudaCheck(cudaMallocFromPoolAsync((void **)&b1, bytes, pool, s));
    cudaCheck(cudaFreeAsync(b1, s));
    cudaCheck(cudaStreamSynchronize(s));
    expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) >= bytes,
           "release threshold UINT64_MAX: the pool keeps the memory after the synchronisation");
    cudaCheck(cudaMallocFromPoolAsync((void **)&b2, bytes, pool, s));
    expect(b1 == b2, "a same-size allocation on the same stream reuses the freed block");
    iota<<<n / 256, 256, 0, s>>>(b2, n);
    cudaCheck(cudaFreeAsync(b2, s));
    cudaCheck(cudaStreamSynchronize(s));
    cudaCheck(cudaMemPoolTrimTo(pool, 0));
    expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) == 0, "cudaMemPoolTrimTo(0) gives back every free block");

    // the device's current pool
    cudaMemPool_t cur;
    cudaCheck(cudaDeviceGetMemPool(&cur, 0));
    expect(cur == def, "the device's pool is the default one at first");
    cudaCheck(cudaDeviceSetMemPool(0, pool));
    cudaCheck(cudaDeviceGetMemPool(&cur, 0));
    expect(cur == pool, "cudaDeviceSetMemPool makes the created pool the device's");
    int *c;
    cudaCheck(cudaMallocAsync((void **)&c, bytes, s));
    cudaCheck(cudaStreamSynchronize(s));
    expect(attr(pool, cudaMemPoolAttrUsedMemCurrent) >= bytes, "cudaMallocAsync now draws from the created pool");
    // A pool allocation may be freed by cudaFree too. When the pool's counters
    // see it is not documented: right after cudaFree the H200 still counted it
    // as used (session 8), so only what follows a full synchronisation and a
    // trim is printed (not a check: not measured yet).
    cudaCheck(cudaFree(c));
    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaMemPoolTrimTo(pool, 0));
    printf("after cudaFree, a synchronisation and cudaMemPoolTrimTo(0): used 0: %s, reserved 0: %s\n",
           attr(pool, cudaMemPoolAttrUsedMemCurrent) == 0 ? "yes" : "no",
           attr(pool, cudaMemPoolAttrReservedMemCurrent) == 0 ? "yes" : "no");

    // bad properties, destroying
    cudaMemPoolProps bad = props;
    bad.allocType = cudaMemAllocationTypeInvalid;
    cudaMemPool_t junk;
    printf("create with allocType invalid: %s\n", cudaGetErrorName(cudaMemPoolCreate(&junk, &bad)));
    cudaGetLastError();
    printf("destroy the default pool: %s\n", cudaGetErrorName(cudaMemPoolDestroy(def)));
    cudaGetLastError();
    cudaCheck(cudaMemPoolDestroy(pool));
    cudaCheck(cudaDeviceGetMemPool(&cur, 0));
    expect(cur == def, "after destroying the device's pool, its pool is the default one again");

    cudaCheck(cudaFree(d_sum));
    cudaCheck(cudaStreamDestroy(s));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
