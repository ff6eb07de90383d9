// tests/programs/stream_tuning.cu: the calls that tune rather than compute,
// as the CUDA Programming Guide's L2 persistence example and older
// textbooks use them. cudaStreamSetAttribute/GetAttribute of an access
// policy window (and one past accessPolicyMaxWindowSize), the priority and
// the synchronization policy, cudaStreamCopyAttributes,
// cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize),
// cudaCtxResetPersistingL2Cache; cudaStreamAttachMemAsync of managed memory
// (the UnifiedMemoryStreams sample); cudaDeviceGetPCIBusId and back with
// cudaDeviceGetByPCIBusId; the deprecated shared memory bank configuration.
// The program's results do not change with any of them.
#define CUDA_DISABLE_DEPRECATED_WARNINGS 1
#pragma nv_diag_suppress 1444
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

__global__ void accumulate(float *data, int n, int reps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        for (int r = 0; r < reps; r++) data[i] += 1.0f;
}

int main(void) {
    const int n = 1 << 14;
    cudaDeviceProp prop;
    cudaCheck(cudaGetDeviceProperties(&prop, 0));
    expect(prop.persistingL2CacheMaxSize > 0 && prop.accessPolicyMaxWindowSize > 0, "the device has persisting L2");
    size_t carve = prop.persistingL2CacheMaxSize < (4 << 20) ? prop.persistingL2CacheMaxSize : (4 << 20);
    cudaCheck(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, carve));
    size_t got = 0;
    cudaCheck(cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize));
    expect(got > 0 && got <= (size_t)prop.persistingL2CacheMaxSize, "a persisting L2 limit is set");

    float *d;
    cudaCheck(cudaMalloc(&d, n * sizeof(float)));
    cudaCheck(cudaMemset(d, 0, n * sizeof(float)));
    cudaStream_t s, t;
    cudaCheck(cudaStreamCreate(&s));
    cudaCheck(cudaStreamCreate(&t));
    cudaStreamAttrValue v = {};
    v.accessPolicyWindow.base_ptr = d;
    v.accessPolicyWindow.num_bytes = n * sizeof(float);
    v.accessPolicyWindow.hitRatio = 0.6f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaCheck(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
    cudaStreamAttrValue back = {};
    cudaCheck(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
    expect(back.accessPolicyWindow.base_ptr == d && back.accessPolicyWindow.num_bytes == n * sizeof(float) &&
               back.accessPolicyWindow.hitRatio == 0.6f &&
               back.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
               back.accessPolicyWindow.missProp == cudaAccessPropertyStreaming,
           "the access policy window reads back");
    cudaStreamAttrValue fresh = {};
    cudaCheck(cudaStreamGetAttribute(t, cudaStreamAttributeAccessPolicyWindow, &fresh));
    expect(fresh.accessPolicyWindow.num_bytes == 0, "a new stream has no window");
    cudaCheck(cudaStreamCopyAttributes(t, s));
    cudaCheck(cudaStreamGetAttribute(t, cudaStreamAttributeAccessPolicyWindow, &fresh));
    expect(fresh.accessPolicyWindow.base_ptr == d && fresh.accessPolicyWindow.num_bytes == n * sizeof(float),
           "cudaStreamCopyAttributes copies it");
    cudaStreamAttrValue big = v;
    big.accessPolicyWindow.num_bytes = (size_t)prop.accessPolicyMaxWindowSize + 1;
    cudaError_t e = cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &big);
    printf("window past accessPolicyMaxWindowSize: %s\n", cudaGetErrorName(e));
    expect(e == cudaErrorInvalidValue, "a window past the maximum is refused");
    cudaGetLastError();

    accumulate<<<n / 256, 256, 0, s>>>(d, n, 10);
    cudaCheck(cudaGetLastError());
    v.accessPolicyWindow.num_bytes = 0;  // reset the window, then the persisting lines
    cudaCheck(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
    cudaCheck(cudaCtxResetPersistingL2Cache());
    accumulate<<<n / 256, 256, 0, s>>>(d, n, 5);
    cudaCheck(cudaStreamSynchronize(s));
    float h[4];
    cudaCheck(cudaMemcpy(h, d + n - 4, sizeof h, cudaMemcpyDeviceToHost));
    expect(h[3] == 15.0f, "the kernels' results do not depend on the window");

    int lo, hi;
    cudaCheck(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStreamAttrValue pr = {};
    pr.priority = hi;
    cudaCheck(cudaStreamSetAttribute(t, cudaStreamAttributePriority, &pr));
    int p = 1;
    cudaCheck(cudaStreamGetPriority(t, &p));
    expect(p == hi, "a priority set as an attribute is the stream's priority");
    cudaStreamAttrValue sp = {};
    sp.syncPolicy = cudaSyncPolicyYield;
    cudaCheck(cudaStreamSetAttribute(t, cudaStreamAttributeSynchronizationPolicy, &sp));
    sp.syncPolicy = cudaSyncPolicyAuto;
    cudaCheck(cudaStreamGetAttribute(t, cudaStreamAttributeSynchronizationPolicy, &sp));
    expect(sp.syncPolicy == cudaSyncPolicyYield, "the synchronization policy reads back");

    // managed memory attached to a stream, used by it, then by the host
    int *m;
    cudaCheck(cudaMallocManaged(&m, 256 * sizeof(int)));
    for (int i = 0; i < 256; i++) m[i] = i;
    cudaCheck(cudaStreamAttachMemAsync(t, m, 0, cudaMemAttachSingle));
    cudaCheck(cudaStreamSynchronize(t));
    accumulate<<<1, 256, 0, t>>>((float *)m, 0, 0);
    cudaCheck(cudaStreamSynchronize(t));
    m[5] += 1;
    cudaCheck(cudaStreamAttachMemAsync(t, m, 0, cudaMemAttachGlobal));
    cudaCheck(cudaStreamSynchronize(t));
    expect(m[5] == 6 && m[255] == 255, "attached managed memory stays the host's between the stream's work");

    char bus[32] = "";
    cudaCheck(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
    int dev = -1;
    cudaCheck(cudaDeviceGetByPCIBusId(&dev, bus));
    unsigned dom, b, dv, fn;
    expect(sscanf(bus, "%x:%x:%x.%x", &dom, &b, &dv, &fn) == 4 && (int)b == prop.pciBusID && dev == 0,
           "the PCI bus id names device 0 and its bus");

    cudaSharedMemConfig cfg;
    cudaCheck(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));
    cudaCheck(cudaDeviceGetSharedMemConfig(&cfg));
    cudaCheck(cudaFuncSetSharedMemConfig(accumulate, cudaSharedMemBankSizeDefault));
    printf("bank size after asking for 8 bytes: %s\n", cfg == cudaSharedMemBankSizeFourByte ? "4 bytes" : "other");
    expect(cfg == cudaSharedMemBankSizeFourByte, "shared memory banks stay 4 bytes wide");

    cudaCheck(cudaFree(m));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaStreamDestroy(t));
    cudaCheck(cudaFree(d));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
