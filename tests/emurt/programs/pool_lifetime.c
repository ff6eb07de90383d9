/* tests/emurt/programs/pool_lifetime.c: a memory pool's lifetime through
 * the runtime API alone (built with cc, no nvcc needed): a pool destroyed
 * while the program still holds a block of it lives until that block is
 * freed, by cudaFree or by cudaFreeAsync; the last free releases it (was a
 * read and a free of the released pool: ASan, or glibc's double free). */
#include <cuda_runtime_api.h>
#include <stdio.h>

static cudaMemPool_t make_pool(void) {
    struct cudaMemPoolProps props = {0};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool = NULL;
    cudaError_t rc = cudaMemPoolCreate(&pool, &props);
    if (rc) printf("cudaMemPoolCreate: %s\n", cudaGetErrorName(rc));
    return pool;
}

/* Allocates from a fresh pool, destroys the pool, then frees the block. */
static void destroyed_then_freed(const char *how, int async) {
    cudaMemPool_t pool = make_pool();
    void *p = NULL;
    cudaError_t a = cudaMallocFromPoolAsync(&p, 1000, pool, 0);
    cudaError_t d = cudaMemPoolDestroy(pool);
    cudaError_t f = async ? cudaFreeAsync(p, 0) : cudaFree(p);
    cudaError_t s = cudaDeviceSynchronize();
    printf("%s: %s %s %s %s\n", how, cudaGetErrorName(a), cudaGetErrorName(d), cudaGetErrorName(f),
           cudaGetErrorName(s));
}

int main(void) {
    destroyed_then_freed("cudaFree after destroy", 0);
    destroyed_then_freed("cudaFreeAsync after destroy", 1);
    printf("still running\n");
    return 0;
}
