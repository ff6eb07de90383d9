// tests/programs/three_streams.cu: a diamond across three streams joined by
// events (cudaEventDisableTiming, cudaEventRecordWithFlags). s1 fills a; s2
// and s3 wait for it and compute b and c; s1 waits for both and adds them.
// s2 is held by a host function on a gate, so the join is provably waiting:
// the final event is not ready until the gate opens. A wait on an event
// never recorded waits for nothing.
#include <atomic>
#include <chrono>
#include <thread>
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

static std::atomic<int> g_gate(0);

static void CUDART_CB wait_gate(void *) {
    for (int i = 0; i < 5000 && !g_gate.load(); i++) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

__global__ void fill(int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = i;
}
__global__ void times2(const int *a, int *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 2 * a[i];
}
__global__ void plus5(const int *a, int *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + 5;
}
__global__ void add(const int *b, const int *c, int *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = b[i] + c[i];
}

int main(void) {
    const int n = 3000, T = 256, B = (n + T - 1) / T;
    int *a, *b, *c, *d, *h;
    cudaCheck(cudaMalloc(&a, n * sizeof(int)));
    cudaCheck(cudaMalloc(&b, n * sizeof(int)));
    cudaCheck(cudaMalloc(&c, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d, n * sizeof(int)));
    cudaCheck(cudaMallocHost(&h, n * sizeof(int)));
    cudaStream_t s1, s2, s3;
    cudaCheck(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    cudaCheck(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaCheck(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
    cudaEvent_t filled, doubled, added5, done, never;
    cudaCheck(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
    cudaCheck(cudaEventCreateWithFlags(&doubled, cudaEventDisableTiming));
    cudaCheck(cudaEventCreateWithFlags(&added5, cudaEventDisableTiming));
    cudaCheck(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    cudaCheck(cudaEventCreate(&never));

    expect(cudaEventQuery(never) == cudaSuccess, "an event never recorded is complete");
    fill<<<B, T, 0, s1>>>(a, n);
    cudaCheck(cudaEventRecord(filled, s1));
    cudaCheck(cudaStreamWaitEvent(s2, filled, 0));
    cudaCheck(cudaStreamWaitEvent(s3, filled, 0));
    cudaCheck(cudaStreamWaitEvent(s3, never, 0));
    cudaCheck(cudaLaunchHostFunc(s2, wait_gate, NULL));
    times2<<<B, T, 0, s2>>>(a, b, n);
    plus5<<<B, T, 0, s3>>>(a, c, n);
    cudaCheck(cudaEventRecordWithFlags(doubled, s2, cudaEventRecordDefault));
    cudaCheck(cudaEventRecordWithFlags(added5, s3, cudaEventRecordDefault));
    cudaCheck(cudaStreamWaitEvent(s1, doubled, 0));
    cudaCheck(cudaStreamWaitEvent(s1, added5, 0));
    add<<<B, T, 0, s1>>>(b, c, d, n);
    cudaCheck(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
    cudaCheck(cudaEventRecord(done, s1));
    cudaCheck(cudaGetLastError());

    cudaError_t q1 = cudaEventQuery(done);
    cudaError_t q2 = cudaStreamQuery(s2);
    cudaCheck(cudaStreamSynchronize(s3));  // s3 does not wait for s2
    printf("before the gate opens: done %s, s2 %s\n", cudaGetErrorName(q1), cudaGetErrorName(q2));
    expect(q1 == cudaErrorNotReady && q2 == cudaErrorNotReady, "the join waits for the held stream");
    g_gate = 1;
    cudaCheck(cudaEventSynchronize(done));
    bool right = true;
    for (int i = 0; i < n; i++) right &= h[i] == 3 * i + 5;
    printf("h[0] = %d, h[2999] = %d\n", h[0], h[n - 1]);
    expect(right, "d = 2a + (a + 5) after the join");
    float ms;
    expect(cudaEventElapsedTime(&ms, filled, done) == cudaErrorInvalidResourceHandle,
           "no elapsed time between events without timing");
    cudaGetLastError();

    cudaEvent_t evs[] = {filled, doubled, added5, done, never};
    for (cudaEvent_t e : evs) cudaCheck(cudaEventDestroy(e));
    cudaCheck(cudaStreamDestroy(s1));
    cudaCheck(cudaStreamDestroy(s2));
    cudaCheck(cudaStreamDestroy(s3));
    int *bufs[] = {a, b, c, d};
    for (int *p : bufs) cudaCheck(cudaFree(p));
    cudaCheck(cudaFreeHost(h));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
