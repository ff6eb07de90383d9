// tests/programs/per_thread_stream.cu: the per-thread default stream
// (compiled with --default-stream per-thread). Each host thread's
// <<<...>>> without a stream goes to its own default stream: thread B's
// kernels finish while thread A's default stream is held. The per-thread
// stream still waits for the legacy default stream (cudaStreamLegacy), and
// cudaStreamPerThread names the calling thread's stream explicitly.
// A stream is held by making it wait (cudaStreamWaitEvent) for an event
// recorded on a separate "holder" stream behind a host function that waits
// on a gate the main thread opens later (the mechanism streams.cu checks),
// so the answers do not depend on timing.
// cudojo: nvcc=--default-stream per-thread
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
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
    bool gave_up() {  // the host function stopped waiting before open(): the answers above prove nothing
        std::lock_guard<std::mutex> lk(m);
        return timed_out;
    }
};

__global__ void fill(int *x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v + i;
}

static int failures = 0;

static void expect(const char *what, cudaError_t got, cudaError_t want) {
    printf("%-52s %s\n", what, cudaGetErrorName(got));
    if (got != want) failures++;
}

int main(void) {
    const int n = 1024;
    int *d_a, *d_b, h[n];
    cudaCheck(cudaMalloc(&d_a, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d_b, n * sizeof(int)));
    // Load the kernel before anything is held: CUDA 13 loads modules lazily,
    // at a kernel's first launch, and that load waits for the work in flight
    // (on the H200 a first launch behind the held stream waited out the gate).
    fill<<<n / 128, 128>>>(d_a, n, 0);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());
    cudaStream_t holder;
    cudaCheck(cudaStreamCreateWithFlags(&holder, cudaStreamNonBlocking));
    cudaEvent_t release_a, release_l;
    cudaCheck(cudaEventCreateWithFlags(&release_a, cudaEventDisableTiming));
    cudaCheck(cudaEventCreateWithFlags(&release_l, cudaEventDisableTiming));

    // thread A's default stream waits for release_a, which waits for gate ga
    Gate ga;
    cudaCheck(cudaLaunchHostFunc(holder, Gate::wait, &ga));
    cudaCheck(cudaEventRecord(release_a, holder));
    expect("the holder stream, held:", cudaStreamQuery(holder), cudaErrorNotReady);
    std::mutex order;
    std::condition_variable held_cv;
    bool held = false, go = false;
    cudaError_t a_query = cudaSuccess, a_sync = cudaErrorUnknown, b_sync = cudaErrorUnknown;
    std::thread a([&] {
        cudaCheck(cudaStreamWaitEvent(cudaStreamPerThread, release_a, 0));
        fill<<<n / 128, 128>>>(d_a, n, 100);
        a_query = cudaStreamQuery(cudaStreamPerThread);
        std::unique_lock<std::mutex> lk(order);
        held = true;
        held_cv.notify_all();
        held_cv.wait(lk, [&] { return go; });
        lk.unlock();
        a_sync = cudaStreamSynchronize(cudaStreamPerThread);
    });
    {
        std::unique_lock<std::mutex> lk(order);
        held_cv.wait(lk, [&] { return held; });
    }
    std::thread b([&] {
        fill<<<n / 128, 128>>>(d_b, n, 200);
        b_sync = cudaStreamSynchronize(0);  // 0 is this thread's default stream here
    });
    b.join();
    expect("thread A's default stream, held:", a_query, cudaErrorNotReady);
    expect("thread B's default stream synchronized meanwhile:", b_sync, cudaSuccess);
    ga.open();
    {
        std::lock_guard<std::mutex> lk(order);
        go = true;
    }
    held_cv.notify_all();
    a.join();
    expect("thread A after the gate opened:", a_sync, cudaSuccess);
    cudaCheck(cudaMemcpy(h, d_a, sizeof h, cudaMemcpyDeviceToHost));
    int a1 = h[1];
    cudaCheck(cudaMemcpy(h, d_b, sizeof h, cudaMemcpyDeviceToHost));
    printf("a[1] = %d, b[1] = %d\n", a1, h[1]);
    if (a1 != 101 || h[1] != 201) failures++;

    // the legacy stream waits for release_l; this thread's default stream waits for the legacy stream
    Gate gl;
    cudaCheck(cudaLaunchHostFunc(holder, Gate::wait, &gl));
    cudaCheck(cudaEventRecord(release_l, holder));
    cudaCheck(cudaStreamWaitEvent(cudaStreamLegacy, release_l, 0));
    fill<<<n / 128, 128>>>(d_a, n, 300);
    cudaCheck(cudaGetLastError());
    expect("per-thread stream behind the held legacy stream:", cudaStreamQuery(cudaStreamPerThread),
           cudaErrorNotReady);
    gl.open();
    expect("synchronize after opening:", cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
    cudaCheck(cudaMemcpy(h, d_a, sizeof h, cudaMemcpyDeviceToHost));
    printf("a[1] = %d\n", h[1]);
    if (h[1] != 301) failures++;

    cudaCheck(cudaStreamSynchronize(holder));
    printf("gate of thread A's stream held until opened: %s\n", ga.gave_up() ? "no" : "yes");
    printf("gate of the legacy stream held until opened: %s\n", gl.gave_up() ? "no" : "yes");
    failures += ga.gave_up() + gl.gave_up();
    cudaCheck(cudaEventDestroy(release_a));
    cudaCheck(cudaEventDestroy(release_l));
    cudaCheck(cudaStreamDestroy(holder));
    cudaCheck(cudaFree(d_a));
    cudaCheck(cudaFree(d_b));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
