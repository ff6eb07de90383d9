// tests/programs/host_func_per_thread.cu: a host function holds the stream
// it is queued on, whichever stream that is, in a program compiled with
// --default-stream per-thread: an ordinary stream, cudaStreamPerThread (the
// calling thread's default stream) and cudaStreamLegacy. For each: the host
// function waits on a gate, a kernel is queued behind it, cudaStreamQuery
// must say cudaErrorNotReady, and once the gate opens the stream finishes
// with the kernel's result and the gate reports it was opened (not given up
// after 5 s). H200 run 2 showed why run 1 answered cudaSuccess for the
// first version of per_thread_stream.cu: the kernel's first launch (lazy
// module loading) waited for the held stream; the kernel is warmed up first.
// cudojo: nvcc=--default-stream per-thread
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

struct Gate {
    std::mutex m;
    std::condition_variable cv;
    bool is_open = false, timed_out = false;
    static void CUDART_CB wait(void *p) {
        Gate *g = (Gate *)p;
        std::unique_lock<std::mutex> lk(g->m);
        if (!g->cv.wait_for(lk, std::chrono::seconds(5), [g] { return g->is_open; })) g->timed_out = true;
    }
    void open() {
        { std::lock_guard<std::mutex> lk(m); is_open = true; }
        cv.notify_all();
    }
    bool gave_up() {
        std::lock_guard<std::mutex> lk(m);
        return timed_out;
    }
};

__global__ void fill(int *x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v + i;
}

static int failures = 0;

// Holds `s` with a gated host function, queues a kernel behind it, queries.
static void hold(const char *name, cudaStream_t s, int *d, int *h, int n, int v) {
    Gate g;
    cudaCheck(cudaLaunchHostFunc(s, Gate::wait, &g));
    fill<<<n / 128, 128, 0, s>>>(d, n, v);
    cudaCheck(cudaGetLastError());
    cudaError_t q = cudaStreamQuery(s);
    g.open();
    cudaError_t sync = cudaStreamSynchronize(s);
    cudaCheck(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    cudaCheck(cudaStreamSynchronize(s));
    printf("%-20s query while held: %-18s synchronize: %-12s x[1] = %d, gate held until opened: %s\n", name,
           cudaGetErrorName(q), cudaGetErrorName(sync), h[1], g.gave_up() ? "no" : "yes");
    failures += q != cudaErrorNotReady || sync != cudaSuccess || h[1] != v + 1 || g.gave_up();
}

int main(void) {
    const int n = 1024;
    int *d, *h;
    cudaCheck(cudaMalloc(&d, n * sizeof(int)));
    cudaCheck(cudaMallocHost(&h, n * sizeof(int)));
    // Load the kernel before anything is held: CUDA 13 loads modules lazily,
    // at a kernel's first launch, and that load waits for the work in flight
    // (on the H200 the first launch behind a held stream waited out the gate).
    fill<<<n / 128, 128>>>(d, n, 0);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());
    cudaStream_t s;
    cudaCheck(cudaStreamCreate(&s));
    hold("created stream:", s, d, h, n, 100);
    hold("cudaStreamPerThread:", cudaStreamPerThread, d, h, n, 200);
    hold("cudaStreamLegacy:", cudaStreamLegacy, d, h, n, 300);
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaFreeHost(h));
    cudaCheck(cudaFree(d));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
