// tests/programs/pageable_async.cu: cudaMemcpyAsync with pageable host
// memory. A copy from the device to pageable memory returns only once the
// copy is done (the CUDA documentation's rule), so the host may read the
// buffer at once, without a synchronize — even when the stream is still busy
// with a host function and a kernel queued before the copy. cudaMemsetAsync
// and a host-to-device copy from a std::vector in the same stream order.
#include <atomic>
#include <thread>
#include <chrono>
#include <vector>
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

static std::atomic<int> g_slow_done(0);

static void CUDART_CB slow_host(void *) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    g_slow_done = 1;
}

__global__ void square_plus(int *x, int n, int add) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i] + add;
}

int main(void) {
    const int n = 2000;
    std::vector<int> h(n), back(n, -1);
    for (int i = 0; i < n; i++) h[i] = i % 100;
    int *d;
    cudaCheck(cudaMalloc(&d, n * sizeof(int)));
    cudaStream_t s;
    cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cudaCheck(cudaMemsetAsync(d, 0, n * sizeof(int), s));
    cudaCheck(cudaMemcpyAsync(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice, s));
    cudaCheck(cudaLaunchHostFunc(s, slow_host, NULL));
    square_plus<<<(n + 255) / 256, 256, 0, s>>>(d, n, 1);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpyAsync(back.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    // no synchronize: the copy to pageable memory is complete when the call returns
    bool right = true;
    for (int i = 0; i < n; i++) right &= back[i] == (i % 100) * (i % 100) + 1;
    printf("back[99] = %d, back[1999] = %d, host function done: %d\n", back[99], back[1999], g_slow_done.load());
    expect(right, "device to pageable cudaMemcpyAsync has finished when it returns");
    expect(g_slow_done.load() == 1, "so has the host function queued before it");

    // the same with a memset at an offset in between
    cudaCheck(cudaMemsetAsync(d + 10, 0xff, 5 * sizeof(int), s));
    cudaCheck(cudaMemcpyAsync(back.data(), d, 20 * sizeof(int), cudaMemcpyDeviceToHost, s));
    expect(back[9] == 82 && back[10] == -1 && back[14] == -1 && back[15] == 226,
           "a cudaMemsetAsync before it is in the copy too");
    cudaCheck(cudaStreamSynchronize(s));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaFree(d));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
