// tests/programs/host_alloc_flags.cu: pinned host memory by its flags.
// cudaHostAlloc portable, mapped, write-combined (written by a kernel through
// cudaHostGetDevicePointer, read back by the host); cudaMallocHost memory is
// mapped too (unified addressing); cudaHostRegister(Mapped) of a malloc'ed
// page-aligned buffer used by a kernel in place, registering it twice,
// unregistering twice; cudaHostGetDevicePointer of pageable memory and with
// flags; cudaPointerGetAttributes of registered memory.
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

__global__ void write_index(int *p, int n, int base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i;
}

static bool is_index(const int *p, int n, int base) {
    for (int i = 0; i < n; i++)
        if (p[i] != base + i) return false;
    return true;
}

int main(void) {
    const int n = 4096;
    const size_t bytes = n * sizeof(int);
    const unsigned flags[] = {cudaHostAllocPortable, cudaHostAllocMapped, cudaHostAllocWriteCombined | cudaHostAllocMapped,
                              cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined};
    const char *names[] = {"portable", "mapped", "write-combined mapped", "portable mapped write-combined"};
    for (int k = 0; k < 4; k++) {
        int *h, *d;
        cudaCheck(cudaHostAlloc(&h, bytes, flags[k]));
        cudaCheck(cudaHostGetDevicePointer(&d, h, 0));
        write_index<<<n / 256, 256>>>(d, n, 1000 * k);
        cudaCheck(cudaDeviceSynchronize());
        char what[120];
        snprintf(what, sizeof what, "cudaHostAlloc %s: a kernel writes it through the device pointer", names[k]);
        expect(is_index(h, n, 1000 * k), what);
        cudaCheck(cudaFreeHost(h));
    }
    int *ph, *pd;
    cudaCheck(cudaMallocHost(&ph, bytes));
    cudaCheck(cudaHostGetDevicePointer(&pd, ph, 0));
    write_index<<<n / 256, 256>>>(pd, n, 7);
    cudaCheck(cudaDeviceSynchronize());
    expect(is_index(ph, n, 7), "cudaMallocHost memory is mapped as well");
    expect(cudaHostGetDevicePointer(&pd, ph, 1) == cudaErrorInvalidValue, "cudaHostGetDevicePointer flags 1: invalid value");
    cudaGetLastError();

    int *pageable = (int *)aligned_alloc(4096, bytes);
    int *dp = NULL;
    expect(cudaHostGetDevicePointer(&dp, pageable, 0) == cudaErrorInvalidValue,
           "cudaHostGetDevicePointer of pageable memory: invalid value");
    cudaGetLastError();
    cudaCheck(cudaHostRegister(pageable, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable));
    cudaCheck(cudaHostGetDevicePointer(&dp, pageable, 0));
    write_index<<<n / 256, 256>>>(dp, n, -50);
    cudaCheck(cudaDeviceSynchronize());
    expect(is_index(pageable, n, -50), "registered memory written in place by a kernel");
    cudaPointerAttributes a;
    cudaCheck(cudaPointerGetAttributes(&a, pageable + 10));
    expect(a.type == cudaMemoryTypeHost && a.hostPointer == pageable + 10 && a.devicePointer != NULL,
           "cudaPointerGetAttributes of registered memory: host type, both pointers");
    cudaError_t again = cudaHostRegister(pageable, bytes, cudaHostRegisterDefault);
    printf("register twice: %s\n", cudaGetErrorName(again));
    expect(again == cudaErrorHostMemoryAlreadyRegistered, "registering twice is refused");
    cudaGetLastError();
    cudaCheck(cudaHostUnregister(pageable));
    cudaError_t un = cudaHostUnregister(pageable);
    printf("unregister twice: %s\n", cudaGetErrorName(un));
    expect(un == cudaErrorHostMemoryNotRegistered, "unregistering twice is refused");
    cudaGetLastError();
    cudaCheck(cudaPointerGetAttributes(&a, pageable));
    expect(a.type == cudaMemoryTypeUnregistered, "unregistered memory is pageable again");
    free(pageable);
    cudaCheck(cudaFreeHost(ph));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
