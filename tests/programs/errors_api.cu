// tests/programs/errors_api.cu: runtime calls that fail because of their
// arguments, and what the error functions say. Each failing call returns its
// code and also becomes the thread's last error (cudaGetLastError returns it
// once, then cudaSuccess); none of them is sticky, so a kernel still runs at
// the end. cudaGetErrorName/String for a table of codes and an unknown one.
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

__global__ void twice(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2;
}

static int failures = 0;

static void expect(const char *what, cudaError_t got, cudaError_t want) {
    printf("%-40s %s\n", what, cudaGetErrorName(got));
    if (got != want) failures++;
}

int main(void) {
    static const int codes[] = {cudaSuccess, cudaErrorInvalidValue, cudaErrorMemoryAllocation,
                                cudaErrorInvalidConfiguration, cudaErrorInvalidPitchValue, cudaErrorInvalidSymbol,
                                cudaErrorInvalidDevicePointer, cudaErrorInvalidMemcpyDirection,
                                cudaErrorInvalidDeviceFunction, cudaErrorNoDevice, cudaErrorInvalidDevice,
                                cudaErrorInvalidResourceHandle, cudaErrorNotReady, cudaErrorIllegalAddress,
                                cudaErrorLaunchOutOfResources, cudaErrorAssert, cudaErrorLaunchFailure,
                                cudaErrorNotSupported, cudaErrorStreamCaptureUnsupported, cudaErrorUnknown};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        printf("%3d %-34s %s\n", codes[i], cudaGetErrorName((cudaError_t)codes[i]),
               cudaGetErrorString((cudaError_t)codes[i]));
    printf("%3d %-34s %s\n", 12345, cudaGetErrorName((cudaError_t)12345), cudaGetErrorString((cudaError_t)12345));

    int *d_x;
    cudaCheck(cudaMalloc(&d_x, 256 * sizeof(int)));

    void *huge = NULL;
    expect("cudaMalloc of 2^50 bytes:", cudaMalloc(&huge, 1ull << 50), cudaErrorMemoryAllocation);
    printf("pointer after the failed cudaMalloc is NULL: %s\n", huge == NULL ? "yes" : "no");
    if (huge != NULL) failures++;
    expect("  last error:", cudaGetLastError(), cudaErrorMemoryAllocation);
    expect("  last error again:", cudaGetLastError(), cudaSuccess);

    int h[256];
    for (int i = 0; i < 256; i++) h[i] = i;
    expect("cudaMemcpy with kind 42:", cudaMemcpy(d_x, h, sizeof h, (cudaMemcpyKind)42),
           cudaErrorInvalidMemcpyDirection);
    expect("  last error:", cudaGetLastError(), cudaErrorInvalidMemcpyDirection);

    expect("cudaSetDevice(4096):", cudaSetDevice(4096), cudaErrorInvalidDevice);
    int dev = -1;
    cudaCheck(cudaGetDevice(&dev));
    printf("current device is still %d\n", dev);
    expect("  last error:", cudaGetLastError(), cudaErrorInvalidDevice);

    int *on_host = (int *)malloc(64);
    expect("cudaFree of a malloc'd pointer:", cudaFree(on_host), cudaErrorInvalidValue);
    free(on_host);
    expect("cudaFree inside an allocation:", cudaFree(d_x + 1), cudaErrorInvalidValue);
    expect("cudaFree(NULL):", cudaFree(NULL), cudaSuccess);
    expect("  last error (the last failure):", cudaGetLastError(), cudaErrorInvalidValue);

    int *d_y;
    cudaCheck(cudaMalloc(&d_y, 64));
    cudaCheck(cudaFree(d_y));
    expect("cudaFree twice:", cudaFree(d_y), cudaErrorInvalidValue);
    cudaGetLastError();

    // none of that is sticky
    cudaCheck(cudaMemcpy(d_x, h, sizeof h, cudaMemcpyHostToDevice));
    twice<<<2, 128>>>(d_x, 256);
    expect("a kernel after all the errors:", cudaGetLastError(), cudaSuccess);
    expect("synchronize:", cudaDeviceSynchronize(), cudaSuccess);
    cudaCheck(cudaMemcpy(h, d_x, sizeof h, cudaMemcpyDeviceToHost));
    long s = 0;
    for (int i = 0; i < 256; i++) s += h[i];
    printf("sum of doubled 0..255 = %ld\n", s);
    if (s != 65280) failures++;

    cudaCheck(cudaFree(d_x));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
