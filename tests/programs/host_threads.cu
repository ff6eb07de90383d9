// tests/programs/host_threads.cu: host threads sharing the device. The last
// error is per host thread: a bad launch in main is seen by main's
// cudaGetLastError, not by the threads'. Four std::threads each create a
// stream, allocate, launch, copy back and check their own data at once;
// an event recorded by one thread is waited for by main after the join.
#include <thread>
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

__global__ void affine(int *x, int n, int a, int b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * i + b;
}

struct Result {
    cudaError_t peek = cudaErrorUnknown;
    bool right = false;
};

int main(void) {
    const int n = 5000, workers = 4;
    affine<<<1, 2048>>>(NULL, 0, 0, 0);  // too many threads: the launch fails in main
    std::vector<Result> res(workers);
    cudaEvent_t ev;
    cudaCheck(cudaEventCreate(&ev));
    int *shared_d;
    cudaCheck(cudaMalloc(&shared_d, n * sizeof(int)));
    std::vector<std::thread> ts;
    for (int w = 0; w < workers; w++)
        ts.emplace_back([w, &res, ev, shared_d]() {
            res[w].peek = cudaPeekAtLastError();
            cudaCheck(cudaSetDevice(0));
            cudaStream_t s;
            cudaCheck(cudaStreamCreate(&s));
            int *d;
            std::vector<int> h(n);
            cudaCheck(cudaMalloc(&d, n * sizeof(int)));
            for (int rep = 0; rep < 5; rep++) {
                affine<<<(n + 127) / 128, 128, 0, s>>>(d, n, w + 1, rep);
                cudaCheck(cudaGetLastError());
                cudaCheck(cudaMemcpyAsync(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
                cudaCheck(cudaStreamSynchronize(s));
                bool ok = true;
                for (int i = 0; i < n; i++) ok &= h[i] == (w + 1) * i + rep;
                res[w].right = rep == 0 ? ok : res[w].right && ok;
            }
            if (w == 2) {
                affine<<<(n + 127) / 128, 128, 0, s>>>(shared_d, n, 10, 1);
                cudaCheck(cudaEventRecord(ev, s));
            }
            cudaCheck(cudaStreamSynchronize(s));
            cudaCheck(cudaStreamDestroy(s));
            cudaCheck(cudaFree(d));
        });
    for (auto &t : ts) t.join();
    for (int w = 0; w < workers; w++) {
        printf("thread %d: last error %s, data %s\n", w, cudaGetErrorName(res[w].peek), res[w].right ? "right" : "WRONG");
        expect(res[w].peek == cudaSuccess && res[w].right, "a thread sees its own last error and its own data");
    }
    cudaError_t mine = cudaGetLastError();
    printf("main: %s\n", cudaGetErrorName(mine));
    expect(mine == cudaErrorInvalidValue, "main's bad launch stays main's last error");
    cudaCheck(cudaEventSynchronize(ev));
    std::vector<int> h(n);
    cudaCheck(cudaMemcpy(h.data(), shared_d, n * sizeof(int), cudaMemcpyDeviceToHost));
    expect(h[0] == 1 && h[n - 1] == 10 * (n - 1) + 1, "the work behind another thread's event is done");
    cudaCheck(cudaEventDestroy(ev));
    cudaCheck(cudaFree(shared_d));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
