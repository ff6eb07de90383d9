// tests/programs/launch_limits.cu: the limits a launch is checked against.
// Registers: a kernel that keeps 96 values live needs more than 64 registers
// a thread, so 1024 threads do not fit in the SM's 64K registers: the launch
// fails with cudaErrorLaunchOutOfResources (not sticky), cudaFuncGetAttributes'
// maxThreadsPerBlock says how many fit, and that many run; the same code
// under __launch_bounds__(1024) fits. Dynamic shared memory: 48 KiB without
// the opt-in, one byte more is refused; after cudaFuncSetAttribute(
// cudaFuncAttributeMaxDynamicSharedMemorySize) up to the value set, and up to
// sharedMemPerBlockOptin (227 KiB on sm_90), never past it. cudaLaunchKernelEx
// with the priority and cooperative attributes, a cooperative grid too large
// to be resident (cudaErrorCooperativeLaunchTooLarge), an unknown attribute.
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

#define LIVE 96

// Every one of the LIVE loaded values is used after all of them are loaded
// and again after a data-dependent mix, so they stay in registers together.
#define HEAVY_BODY                                                                 \
    int t = blockIdx.x * blockDim.x + threadIdx.x;                                 \
    float v[LIVE];                                                                 \
    _Pragma("unroll") for (int i = 0; i < LIVE; i++) v[i] = in[(t + i * 977) % n]; \
    float acc = 0.f;                                                               \
    _Pragma("unroll") for (int i = 0; i < LIVE; i++) acc += v[i] * v[LIVE - 1 - i]; \
    _Pragma("unroll") for (int i = 0; i < LIVE; i++) acc = acc * 0.5f + v[(i * 37) % LIVE]; \
    out[t] = acc;

__global__ void heavy(const float *in, float *out, int n) { HEAVY_BODY }
__global__ void __launch_bounds__(1024) heavy_bounded(const float *in, float *out, int n) { HEAVY_BODY }

__global__ void use_shared(int *out, int n_ints) {
    extern __shared__ int buf[];
    for (int i = threadIdx.x; i < n_ints; i += blockDim.x) buf[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = buf[n_ints - 1];
}

__global__ void inc(int *x) { atomicAdd(x, 1); }

static cudaError_t launch_shared(size_t bytes, int *out) {
    use_shared<<<1, 256, bytes>>>(out, (int)(bytes / sizeof(int)));
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    return e;
}

int main(void) {
    const int n = 1 << 15;
    float *in, *out;
    int *d_i;
    cudaCheck(cudaMalloc(&in, n * sizeof(float)));
    cudaCheck(cudaMalloc(&out, n * sizeof(float)));
    cudaCheck(cudaMalloc(&d_i, 64 * 1024));
    cudaCheck(cudaMemset(in, 0, n * sizeof(float)));
    cudaDeviceProp prop;
    cudaCheck(cudaGetDeviceProperties(&prop, 0));

    // ---- registers
    cudaFuncAttributes fa, fb;
    cudaCheck(cudaFuncGetAttributes(&fa, heavy));
    cudaCheck(cudaFuncGetAttributes(&fb, heavy_bounded));
    printf("heavy: more than 64 registers: %s, maxThreadsPerBlock < 1024: %s\n", fa.numRegs > 64 ? "yes" : "no",
           fa.maxThreadsPerBlock < 1024 ? "yes" : "no");
    printf("heavy_bounded: at most 64 registers: %s, maxThreadsPerBlock %d\n", fb.numRegs <= 64 ? "yes" : "no",
           fb.maxThreadsPerBlock);
    heavy<<<n / 1024, 1024>>>(in, out, n);
    cudaError_t e = cudaGetLastError();
    printf("heavy<<<32, 1024>>>: %s\n", cudaGetErrorName(e));
    expect(e == cudaErrorLaunchOutOfResources, "too many registers for the block: cudaErrorLaunchOutOfResources");
    expect(cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess,
           "the error is not sticky");
    int fit = fa.maxThreadsPerBlock / 32 * 32;
    heavy<<<n / fit, fit>>>(in, out, n);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    expect(e == cudaSuccess, "maxThreadsPerBlock threads of it run");
    heavy_bounded<<<n / 1024, 1024>>>(in, out, n);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    printf("heavy_bounded<<<32, 1024>>>: %s\n", cudaGetErrorName(e));
    expect(e == cudaSuccess, "under __launch_bounds__(1024) the same code fits 1024 threads");

    // ---- dynamic shared memory
    size_t optin = prop.sharedMemPerBlockOptin;
    printf("sharedMemPerBlockOptin = %zu (227 KiB: %s)\n", optin, optin == 227 * 1024 ? "yes" : "no");
    printf("48 KiB without the opt-in: %s\n", cudaGetErrorName(launch_shared(48 * 1024, d_i)));
    e = launch_shared(48 * 1024 + 4, d_i);
    printf("48 KiB + 4 without the opt-in: %s\n", cudaGetErrorName(e));
    expect(e == cudaErrorInvalidValue, "more than 48 KiB needs the opt-in");
    cudaCheck(cudaFuncSetAttribute(use_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
    printf("100 KiB after opting in to 100 KiB: %s\n", cudaGetErrorName(launch_shared(100 * 1024, d_i)));
    e = launch_shared(100 * 1024 + 4, d_i);
    printf("100 KiB + 4 after opting in to 100 KiB: %s\n", cudaGetErrorName(e));
    expect(e == cudaErrorInvalidValue, "no more than the value opted in to");
    e = cudaFuncSetAttribute(use_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)optin + 4);
    printf("opting in to sharedMemPerBlockOptin + 4: %s\n", cudaGetErrorName(e));
    expect(e == cudaErrorInvalidValue, "the opt-in stops at sharedMemPerBlockOptin");
    cudaGetLastError();
    cudaCheck(cudaFuncSetAttribute(use_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)optin));
    e = launch_shared(optin, d_i);
    printf("sharedMemPerBlockOptin after opting in to it: %s\n", cudaGetErrorName(e));
    expect(e == cudaSuccess, "the whole opt-in limit is usable");
    e = launch_shared(optin + 4, d_i);
    printf("sharedMemPerBlockOptin + 4: %s\n", cudaGetErrorName(e));
    expect(e == cudaErrorInvalidValue, "past the device's limit the launch fails");

    // ---- cudaLaunchKernelEx attributes
    int h = 0;
    cudaCheck(cudaMemset(d_i, 0, sizeof(int)));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(4);
    cfg.blockDim = dim3(64);
    cudaLaunchAttribute attr[2];
    attr[0].id = cudaLaunchAttributePriority;
    attr[0].val.priority = -1;
    attr[1].id = cudaLaunchAttributeCooperative;
    attr[1].val.cooperative = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 2;
    e = cudaLaunchKernelEx(&cfg, inc, d_i);
    printf("cudaLaunchKernelEx with priority and cooperative: %s\n", cudaGetErrorName(e));
    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaMemcpy(&h, d_i, sizeof h, cudaMemcpyDeviceToHost));
    expect(e == cudaSuccess && h == 256, "it ran every thread once");
    int per_sm = 0;
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, inc, 1024, 0));
    cfg.gridDim = dim3(per_sm * prop.multiProcessorCount + 1);
    cfg.blockDim = dim3(1024);
    e = cudaLaunchKernelEx(&cfg, inc, d_i);
    printf("a cooperative grid one block larger than can be resident: %s\n", cudaGetErrorName(e));
    expect(e == cudaErrorCooperativeLaunchTooLarge, "too large for a cooperative launch");
    cudaGetLastError();
    cfg.gridDim = dim3(per_sm * prop.multiProcessorCount);
    e = cudaLaunchKernelEx(&cfg, inc, d_i);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    printf("a cooperative grid that is just resident: %s\n", cudaGetErrorName(e));
    expect(e == cudaSuccess, "exactly resident is allowed");
    attr[0].id = (cudaLaunchAttributeID)9999;
    cfg.numAttrs = 1;
    e = cudaLaunchKernelEx(&cfg, inc, d_i);
    printf("an unknown launch attribute: %s\n", cudaGetErrorName(e));
    cudaGetLastError();
    cudaCheck(cudaDeviceSynchronize());

    cudaCheck(cudaFree(in));
    cudaCheck(cudaFree(out));
    cudaCheck(cudaFree(d_i));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
