// tests/programs/events.cu: events. Record, synchronize, query; elapsed time
// around a kernel and around a loop of launches after a warm-up (printed
// only as "> 0", never the value); the errors cudaEventElapsedTime gives for
// an event never recorded, for a disable-timing event and for an event not
// yet complete; cudaEventQuery of a never-recorded event; re-recording.
// A stream is held by a host function on a gate (see streams.cu) for the
// "not ready" cases.
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
    bool gave_up() {  // the host function stopped waiting before open(): the answers above prove nothing
        std::lock_guard<std::mutex> lk(m);
        return timed_out;
    }
};

// x[i] = sum of (i * k) % 7 for k < 64
__global__ void busy(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int s = 0;
    for (int k = 0; k < 64; k++) s += (i * k) % 7;
    x[i] = s;
}

static int failures = 0;

static void expect(const char *what, cudaError_t got, cudaError_t want) {
    printf("%-52s %s\n", what, cudaGetErrorName(got));
    if (got != want) failures++;
}

int main(void) {
    const int n = 1 << 14;
    int *d_x;
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));
    cudaEvent_t start, stop, never, untimed, untimed2;
    cudaCheck(cudaEventCreate(&start));
    cudaCheck(cudaEventCreate(&stop));
    cudaCheck(cudaEventCreate(&never));
    cudaCheck(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
    cudaCheck(cudaEventCreateWithFlags(&untimed2, cudaEventDisableTiming | cudaEventBlockingSync));

    busy<<<n / 256, 256>>>(d_x, n);  // warm-up
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaEventRecord(start));
    busy<<<n / 256, 256>>>(d_x, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaEventRecord(stop));
    expect("synchronize on stop:", cudaEventSynchronize(stop), cudaSuccess);
    expect("query of stop:", cudaEventQuery(stop), cudaSuccess);
    float ms = -1;
    expect("elapsed start..stop:", cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
    printf("elapsed time > 0: %s\n", ms > 0 ? "yes" : "no");
    if (!(ms > 0)) failures++;

    int h[n], bad = 0;
    cudaCheck(cudaMemcpy(h, d_x, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int s = 0;
        for (int k = 0; k < 64; k++) s += (i * k) % 7;
        if (h[i] != s) bad++;
    }
    printf("x[1] = %d, x[7] = %d, mismatches = %d\n", h[1], h[7], bad);
    if (bad) failures++;

    // a timing loop, the way benchmarks are written
    const int reps = 10;
    cudaCheck(cudaEventRecord(start, 0));
    for (int r = 0; r < reps; r++) busy<<<n / 256, 256>>>(d_x, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaEventRecord(stop, 0));
    cudaCheck(cudaEventSynchronize(stop));
    float loop_ms = -1;
    cudaCheck(cudaEventElapsedTime(&loop_ms, start, stop));
    printf("time per launch over %d launches > 0: %s\n", reps, loop_ms / reps > 0 ? "yes" : "no");
    if (!(loop_ms > 0)) failures++;

    expect("query of an event never recorded:", cudaEventQuery(never), cudaSuccess);
    expect("elapsed to an event never recorded:", cudaEventElapsedTime(&ms, start, never),
           cudaErrorInvalidResourceHandle);
    cudaCheck(cudaEventRecord(untimed));
    cudaCheck(cudaEventRecord(untimed2));
    expect("synchronize on a disable-timing event:", cudaEventSynchronize(untimed2), cudaSuccess);
    expect("elapsed between disable-timing events:", cudaEventElapsedTime(&ms, untimed, untimed2),
           cudaErrorInvalidResourceHandle);
    expect("elapsed from a timed to a disable-timing event:", cudaEventElapsedTime(&ms, start, untimed),
           cudaErrorInvalidResourceHandle);
    cudaGetLastError();

    // an event behind a held stream is not ready, and neither is a time to it
    cudaStream_t s;
    cudaCheck(cudaStreamCreate(&s));
    Gate g;
    cudaCheck(cudaLaunchHostFunc(s, Gate::wait, &g));
    busy<<<n / 256, 256, 0, s>>>(d_x, n);
    cudaCheck(cudaEventRecord(stop, s));
    expect("query of an event behind a held stream:", cudaEventQuery(stop), cudaErrorNotReady);
    expect("elapsed to it:", cudaEventElapsedTime(&ms, start, stop), cudaErrorNotReady);
    g.open();
    expect("synchronize after opening:", cudaEventSynchronize(stop), cudaSuccess);
    expect("query now:", cudaEventQuery(stop), cudaSuccess);
    expect("elapsed now:", cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
    printf("re-recorded stop is later than the loop's stop: %s\n", ms > loop_ms ? "yes" : "no");
    if (!(ms > loop_ms)) failures++;
    cudaGetLastError();

    bool gave_up = g.gave_up();
    printf("every gate was opened by the program, none gave up waiting: %s\n", gave_up ? "no" : "yes");
    failures += gave_up;
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaEventDestroy(start));
    cudaCheck(cudaEventDestroy(stop));
    cudaCheck(cudaEventDestroy(never));
    cudaCheck(cudaEventDestroy(untimed));
    cudaCheck(cudaEventDestroy(untimed2));
    cudaCheck(cudaFree(d_x));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
