// tests/programs/sync_errors.cu: which call reports which error. A launch
// configuration error is reported by the launch (cudaGetLastError), not by a
// later cudaDeviceSynchronize, which succeeds and leaves the last error
// alone. A fault in a kernel on one stream is reported by the first
// synchronizing call after it — here cudaEventSynchronize on an event behind
// the kernel — and then, being sticky, by calls about other streams and
// events too.
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

__global__ void store(int *p, int v) { p[blockIdx.x * blockDim.x + threadIdx.x] = v; }

static int failures = 0;

static void expect(const char *what, cudaError_t got, cudaError_t want) {
    printf("%-48s %s\n", what, cudaGetErrorName(got));
    if (got != want) failures++;
}

int main(void) {
    int *d;
    cudaCheck(cudaMalloc(&d, 1024 * sizeof(int)));
    cudaStream_t s1, s2;
    cudaCheck(cudaStreamCreate(&s1));
    cudaCheck(cudaStreamCreate(&s2));
    cudaEvent_t after_fault, on_s2;
    cudaCheck(cudaEventCreate(&after_fault));
    cudaCheck(cudaEventCreate(&on_s2));

    store<<<1, 1025>>>(d, 1);
    expect("cudaDeviceSynchronize after a bad launch:", cudaDeviceSynchronize(), cudaSuccess);
    expect("cudaGetLastError still has the launch error:", cudaGetLastError(), cudaErrorInvalidValue);
    expect("and then it is clear:", cudaGetLastError(), cudaSuccess);

    store<<<4, 256, 0, s2>>>(d, 2);
    cudaCheck(cudaEventRecord(on_s2, s2));
    expect("a good kernel on s2, cudaStreamSynchronize(s2):", cudaStreamSynchronize(s2), cudaSuccess);

    int *nowhere = NULL;
    store<<<1, 32, 0, s1>>>(nowhere, 3);
    cudaCheck(cudaEventRecord(after_fault, s1));
    expect("a faulting kernel on s1, cudaEventSynchronize:", cudaEventSynchronize(after_fault),
           cudaErrorIllegalAddress);
    expect("cudaStreamSynchronize(s2), idle:", cudaStreamSynchronize(s2), cudaErrorIllegalAddress);
    expect("cudaStreamQuery(s2):", cudaStreamQuery(s2), cudaErrorIllegalAddress);
    expect("cudaEventQuery of s2's completed event:", cudaEventQuery(on_s2), cudaErrorIllegalAddress);
    expect("cudaDeviceSynchronize:", cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
// cudojo: emu-errors=that is a null (or nearly null) pointer
