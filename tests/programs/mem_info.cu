// tests/programs/mem_info.cu: cudaMemGetInfo, as predicates only (the sizes
// belong to the board): total is more than 1 GiB and equals the device
// property, free is at most total, a 256 MiB cudaMalloc lowers free by at
// least that much and cudaFree gives it back.
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

static const char *yes(bool b) { return b ? "yes" : "no"; }

int main(void) {
    const size_t MiB = 1 << 20, big = 256 * MiB;
    size_t free0 = 0, total = 0, free1 = 0, free2 = 0, t2 = 0;
    cudaCheck(cudaFree(0));  // create the context first
    cudaCheck(cudaMemGetInfo(&free0, &total));
    cudaDeviceProp p;
    cudaCheck(cudaGetDeviceProperties(&p, 0));
    bool a = total > 1024 * MiB, b = total == p.totalGlobalMem, c = free0 <= total && free0 > big;
    printf("total > 1 GiB: %s\n", yes(a));
    printf("total equals totalGlobalMem: %s\n", yes(b));
    printf("0 < free <= total: %s\n", yes(c));

    char *d;
    cudaCheck(cudaMalloc(&d, big));
    cudaCheck(cudaMemset(d, 1, big));
    cudaCheck(cudaMemGetInfo(&free1, &t2));
    bool e = free1 + big <= free0;
    printf("free dropped by at least 256 MiB after cudaMalloc: %s\n", yes(e));
    cudaCheck(cudaFree(d));
    cudaCheck(cudaMemGetInfo(&free2, &t2));
    bool f = free2 >= free1 + big && t2 == total;
    printf("free rose by at least 256 MiB after cudaFree: %s\n", yes(f));

    bool ok = a && b && c && e && f;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
