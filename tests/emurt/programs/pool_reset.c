/* tests/emurt/programs/pool_reset.c: cudaDeviceReset while a cudaFreeAsync
 * still waits in a held stream's queue (built with cc, no nvcc needed): the
 * reset frees every pool and block, so when the gate opens the queued free
 * has nothing left to give back (it read and wrote the freed pool: a crash
 * under MALLOC_PERTURB_, ASan's use-after-free). A created pool and the
 * default pool, each with a block and a plain cudaMalloc beside it. */
#include <cuda_runtime_api.h>
#include <stdio.h>

static volatile int g_gate;

static void CUDART_CB hold(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&g_gate, __ATOMIC_ACQUIRE)) {
    }
}

static void reset_with_free_queued(const char *what, int created) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMemPool_t pool = NULL;
    if (created) {
        struct cudaMemPoolProps props = {0};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        cudaMemPoolCreate(&pool, &props);
    } else cudaDeviceGetDefaultMemPool(&pool, 0);
    void *p = NULL, *q = NULL;
    cudaError_t a = cudaMallocFromPoolAsync(&p, 1000, pool, s);
    cudaError_t m = cudaMalloc(&q, 1000);
    g_gate = 0;
    cudaLaunchHostFunc(s, hold, NULL);
    cudaError_t f = cudaFreeAsync(p, s);  /* waits behind the host function */
    cudaError_t g = cudaFreeAsync(q, s);
    cudaError_t r = cudaDeviceReset();
    void *again = NULL;
    cudaError_t n = cudaMalloc(&again, 1000);
    __atomic_store_n(&g_gate, 1, __ATOMIC_RELEASE);
    cudaError_t y = cudaDeviceSynchronize();
    cudaError_t k = cudaMemset(again, 0, 1000);  /* still allocated: the queued free was not of it */
    printf("%s: %s %s %s %s %s %s %s %s\n", what, cudaGetErrorName(a), cudaGetErrorName(m), cudaGetErrorName(f),
           cudaGetErrorName(g), cudaGetErrorName(r), cudaGetErrorName(n), cudaGetErrorName(y), cudaGetErrorName(k));
    cudaFree(again);
}

int main(void) {
    reset_with_free_queued("created pool", 1);
    reset_with_free_queued("default pool", 0);
    printf("still running\n");
    return 0;
}
