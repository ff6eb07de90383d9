// tests/programs/device_props.cu: cudaGetDeviceProperties, printing only the
// fields a compute capability 9.0 device (the H200, the emulator's sm_90
// profile) fixes; what differs between boards (name, memory size, SM count,
// clocks, L2 size) is printed as a predicate. Also cudaGetDevice,
// cudaRuntimeGetVersion, cudaDriverGetVersion and a bad device ordinal.
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
    int dev = -1;
    cudaCheck(cudaGetDevice(&dev));
    cudaDeviceProp p;
    cudaCheck(cudaGetDeviceProperties(&p, dev));
    printf("device %d: compute capability %d.%d\n", dev, p.major, p.minor);
    printf("warpSize %d\n", p.warpSize);
    printf("maxThreadsPerBlock %d\n", p.maxThreadsPerBlock);
    printf("maxThreadsDim %d %d %d\n", p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]);
    printf("maxGridSize %d %d %d\n", p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
    printf("sharedMemPerBlock %zu\n", p.sharedMemPerBlock);
    printf("sharedMemPerBlockOptin %zu\n", p.sharedMemPerBlockOptin);
    printf("sharedMemPerMultiprocessor %zu\n", p.sharedMemPerMultiprocessor);
    printf("reservedSharedMemPerBlock %zu\n", p.reservedSharedMemPerBlock);
    printf("regsPerBlock %d\n", p.regsPerBlock);
    printf("regsPerMultiprocessor %d\n", p.regsPerMultiprocessor);
    printf("maxThreadsPerMultiProcessor %d\n", p.maxThreadsPerMultiProcessor);
    printf("maxBlocksPerMultiProcessor %d\n", p.maxBlocksPerMultiProcessor);
    printf("totalConstMem %zu\n", p.totalConstMem);
    printf("unifiedAddressing %d, managedMemory %d, concurrentKernels %d, canMapHostMemory %d\n",
           p.unifiedAddressing, p.managedMemory, p.concurrentKernels, p.canMapHostMemory);
    printf("integrated %d, cooperativeLaunch %d, clusterLaunch %d, streamPrioritiesSupported %d\n", p.integrated,
           p.cooperativeLaunch, p.clusterLaunch, p.streamPrioritiesSupported);
    printf("name is not empty: %s\n", yes(p.name[0] != 0));
    printf("totalGlobalMem > 1 GiB: %s\n", yes(p.totalGlobalMem > (1ull << 30)));
    printf("multiProcessorCount >= 1: %s\n", yes(p.multiProcessorCount >= 1));
    printf("l2CacheSize > 0: %s\n", yes(p.l2CacheSize > 0));
    printf("asyncEngineCount >= 1: %s\n", yes(p.asyncEngineCount >= 1));

    int rt = 0, drv = 0;
    cudaCheck(cudaRuntimeGetVersion(&rt));
    cudaCheck(cudaDriverGetVersion(&drv));
    printf("runtime version %d.%d\n", rt / 1000, rt % 1000 / 10);
    printf("driver version >= runtime version: %s\n", yes(drv >= rt));

    cudaDeviceProp q;
    cudaError_t e = cudaGetDeviceProperties(&q, 4096);
    printf("cudaGetDeviceProperties(device 4096): %s\n", cudaGetErrorName(e));
    cudaGetLastError();

    bool ok = p.major == 9 && p.minor == 0 && p.warpSize == 32 && p.maxThreadsPerBlock == 1024 &&
              e == cudaErrorInvalidDevice;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
