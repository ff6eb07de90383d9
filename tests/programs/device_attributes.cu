// tests/programs/device_attributes.cu: cudaDeviceGetAttribute, one call per
// attribute, for the values compute capability 9.0 fixes; board-dependent
// ones (SM count, clock, bus width) as predicates and checked against
// cudaGetDeviceProperties; an invalid attribute and an invalid device.
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

static int attr(cudaDeviceAttr a, int dev) {
    int v = -1;
    cudaCheck(cudaDeviceGetAttribute(&v, a, dev));
    return v;
}

#define SHOW(a) printf("%-44s %d\n", #a, attr(a, 0))

int main(void) {
    SHOW(cudaDevAttrComputeCapabilityMajor);
    SHOW(cudaDevAttrComputeCapabilityMinor);
    SHOW(cudaDevAttrWarpSize);
    SHOW(cudaDevAttrMaxThreadsPerBlock);
    SHOW(cudaDevAttrMaxBlockDimX);
    SHOW(cudaDevAttrMaxBlockDimY);
    SHOW(cudaDevAttrMaxBlockDimZ);
    SHOW(cudaDevAttrMaxGridDimX);
    SHOW(cudaDevAttrMaxGridDimY);
    SHOW(cudaDevAttrMaxGridDimZ);
    SHOW(cudaDevAttrMaxSharedMemoryPerBlock);
    SHOW(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    SHOW(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    SHOW(cudaDevAttrReservedSharedMemoryPerBlock);
    SHOW(cudaDevAttrMaxRegistersPerBlock);
    SHOW(cudaDevAttrMaxRegistersPerMultiprocessor);
    SHOW(cudaDevAttrMaxThreadsPerMultiProcessor);
    SHOW(cudaDevAttrMaxBlocksPerMultiprocessor);
    SHOW(cudaDevAttrTotalConstantMemory);
    SHOW(cudaDevAttrUnifiedAddressing);
    SHOW(cudaDevAttrManagedMemory);
    SHOW(cudaDevAttrConcurrentKernels);
    SHOW(cudaDevAttrCooperativeLaunch);
    SHOW(cudaDevAttrIntegrated);

    cudaDeviceProp p;
    cudaCheck(cudaGetDeviceProperties(&p, 0));
    int sms = attr(cudaDevAttrMultiProcessorCount, 0);
    printf("multiprocessor count >= 1 and equals the property: %s\n",
           sms >= 1 && sms == p.multiProcessorCount ? "yes" : "no");
    int bus = attr(cudaDevAttrGlobalMemoryBusWidth, 0);
    printf("memory bus width > 0 and equals the property: %s\n", bus > 0 && bus == p.memoryBusWidth ? "yes" : "no");
    int l2 = attr(cudaDevAttrL2CacheSize, 0);
    printf("L2 cache size > 0 and equals the property: %s\n", l2 > 0 && l2 == p.l2CacheSize ? "yes" : "no");

    int v = 0;
    cudaError_t e1 = cudaDeviceGetAttribute(&v, (cudaDeviceAttr)100000, 0);
    printf("attribute 100000: %s\n", cudaGetErrorName(e1));
    cudaError_t e2 = cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 4096);
    printf("device 4096: %s\n", cudaGetErrorName(e2));
    cudaGetLastError();

    bool ok = attr(cudaDevAttrComputeCapabilityMajor, 0) == 9 && e1 == cudaErrorInvalidValue &&
              e2 == cudaErrorInvalidDevice && sms >= 1 && sms == p.multiProcessorCount && bus > 0 &&
              bus == p.memoryBusWidth && l2 > 0 && l2 == p.l2CacheSize;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
