/* tests/emurt/programs/pool_cudafree.c: cudaFree of a memory pool's
 * allocation (built with cc, no nvcc needed). As on the H200 (sessions 8
 * and 9), the pool's UsedMemCurrent keeps counting the freed bytes, right
 * after cudaFree and after a synchronisation and cudaMemPoolTrimTo(0),
 * while its ReservedMemCurrent goes to 0: the memory is freed, not kept in
 * the pool (even with a release threshold that keeps everything). A block
 * given back by cudaFreeAsync leaves both counters as CUDA documents. */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>

static unsigned long long attr(cudaMemPool_t p, enum cudaMemPoolAttr a) {
    uint64_t v = 0;
    cudaError_t rc = cudaMemPoolGetAttribute(p, a, &v);
    if (rc) printf("cudaMemPoolGetAttribute: %s\n", cudaGetErrorName(rc));
    return (unsigned long long)v;
}

static void show(const char *when, cudaMemPool_t p) {
    printf("%s: used %llu, reserved %llu\n", when, attr(p, cudaMemPoolAttrUsedMemCurrent),
           attr(p, cudaMemPoolAttrReservedMemCurrent));
}

int main(void) {
    struct cudaMemPoolProps props = {0};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool = NULL;
    uint64_t keep = UINT64_MAX;
    void *p = NULL, *q = NULL;
    if (cudaMemPoolCreate(&pool, &props) || cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) ||
        cudaMallocFromPoolAsync(&p, 1 << 20, pool, 0) || cudaDeviceSynchronize()) {
        printf("setup failed\n");
        return 1;
    }
    show("allocated", pool);
    printf("cudaFree: %s\n", cudaGetErrorName(cudaFree(p)));
    show("after cudaFree", pool);
    cudaDeviceSynchronize();
    cudaMemPoolTrimTo(pool, 0);
    show("after a synchronisation and a trim", pool);
    if (cudaMallocFromPoolAsync(&q, 1000, pool, 0) || cudaFreeAsync(q, 0) || cudaDeviceSynchronize()) {
        printf("cudaMallocFromPoolAsync/cudaFreeAsync failed\n");
        return 1;
    }
    show("after cudaFreeAsync of another", pool);
    printf("destroy: %s\n", cudaGetErrorName(cudaMemPoolDestroy(pool)));
    return 0;
}
