// tests/programs/streams.cu: streams. Create and destroy (blocking and
// non-blocking, cudaStreamGetFlags), the priority range and clamping,
// cudaStreamQuery on idle and on held streams, cudaStreamWaitEvent ordering
// a second stream after the first, and the legacy default stream: a blocking
// stream waits for it, a non-blocking one does not.
// A stream is "held" by a host function that waits on a gate the main thread
// opens later, so the "not ready" answers do not depend on timing (the
// gate gives up after 5 s, so a runtime that never runs it cannot hang).
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

// A host function that blocks its stream until open() is called.
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

__global__ void copy_plus_one(const int *x, int *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + 1;
}

static int failures = 0;

static void expect(const char *what, cudaError_t got, cudaError_t want) {
    printf("%-48s %s\n", what, cudaGetErrorName(got));
    if (got != want) failures++;
}

static void yes(const char *what, bool b) {
    printf("%s: %s\n", what, b ? "yes" : "no");
    if (!b) failures++;
}

int main(void) {
    const int n = 4096;
    int *d_x, *d_y, *h_y;
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d_y, n * sizeof(int)));
    cudaCheck(cudaMallocHost(&h_y, n * sizeof(int)));

    cudaStream_t s1, s2;
    cudaCheck(cudaStreamCreate(&s1));
    cudaCheck(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    unsigned f1 = 99, f2 = 99;
    cudaCheck(cudaStreamGetFlags(s1, &f1));
    cudaCheck(cudaStreamGetFlags(s2, &f2));
    printf("flags: created %u, non-blocking %u\n", f1, f2);
    if (f1 != cudaStreamDefault || f2 != cudaStreamNonBlocking) failures++;

    int least = 99, greatest = 99;
    cudaCheck(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    yes("least priority is 0", least == 0);
    yes("greatest priority is below least (higher priority)", greatest < least);
    cudaStream_t hi, too_hi, too_lo;
    cudaCheck(cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, greatest));
    cudaCheck(cudaStreamCreateWithPriority(&too_hi, cudaStreamDefault, greatest - 10));
    cudaCheck(cudaStreamCreateWithPriority(&too_lo, cudaStreamDefault, least + 10));
    int p_hi = 99, p_too_hi = 99, p_too_lo = 99, p_s1 = 99;
    cudaCheck(cudaStreamGetPriority(hi, &p_hi));
    cudaCheck(cudaStreamGetPriority(too_hi, &p_too_hi));
    cudaCheck(cudaStreamGetPriority(too_lo, &p_too_lo));
    cudaCheck(cudaStreamGetPriority(s1, &p_s1));
    yes("a stream created with the greatest priority has it", p_hi == greatest);
    yes("a priority beyond the greatest is clamped to it", p_too_hi == greatest);
    yes("a priority beyond the least is clamped to it", p_too_lo == least);
    yes("cudaStreamCreate gives priority 0", p_s1 == 0);
    fill<<<n / 256, 256, 0, hi>>>(d_x, n, 0);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaStreamSynchronize(hi));
    cudaCheck(cudaStreamDestroy(hi));
    cudaCheck(cudaStreamDestroy(too_hi));
    cudaCheck(cudaStreamDestroy(too_lo));

    expect("query of an idle stream:", cudaStreamQuery(s1), cudaSuccess);

    // a held stream is not ready until its gate opens
    Gate g1;
    cudaCheck(cudaLaunchHostFunc(s1, Gate::wait, &g1));
    fill<<<n / 256, 256, 0, s1>>>(d_x, n, 1000);
    cudaCheck(cudaGetLastError());
    expect("query of a held stream:", cudaStreamQuery(s1), cudaErrorNotReady);
    g1.open();
    expect("synchronize after opening:", cudaStreamSynchronize(s1), cudaSuccess);
    expect("query after synchronize:", cudaStreamQuery(s1), cudaSuccess);

    // s2 waits for an event recorded on s1 after s1's kernel
    Gate g2;
    cudaEvent_t x_ready;
    cudaCheck(cudaEventCreateWithFlags(&x_ready, cudaEventDisableTiming));
    cudaCheck(cudaLaunchHostFunc(s1, Gate::wait, &g2));
    fill<<<n / 256, 256, 0, s1>>>(d_x, n, 2000);
    cudaCheck(cudaEventRecord(x_ready, s1));
    cudaCheck(cudaStreamWaitEvent(s2, x_ready, 0));
    copy_plus_one<<<n / 256, 256, 0, s2>>>(d_x, d_y, n);
    cudaCheck(cudaMemcpyAsync(h_y, d_y, n * sizeof(int), cudaMemcpyDeviceToHost, s2));
    expect("query of a stream waiting on a held one:", cudaStreamQuery(s2), cudaErrorNotReady);
    g2.open();
    cudaCheck(cudaStreamSynchronize(s2));
    printf("after the wait: y[0] = %d, y[4095] = %d\n", h_y[0], h_y[n - 1]);
    if (h_y[0] != 2001 || h_y[n - 1] != 2000 + n) failures++;

    // the legacy default stream held: blocking s1 waits for it, non-blocking s2 does not
    Gate g3;
    cudaCheck(cudaLaunchHostFunc(0, Gate::wait, &g3));
    fill<<<n / 256, 256, 0, s1>>>(d_x, n, 3000);
    cudaCheck(cudaGetLastError());
    fill<<<n / 256, 256, 0, s2>>>(d_y, n, 4000);
    cudaCheck(cudaMemcpyAsync(h_y, d_y, n * sizeof(int), cudaMemcpyDeviceToHost, s2));
    cudaCheck(cudaStreamSynchronize(s2));
    printf("non-blocking stream done while the legacy stream is held: y[1] = %d\n", h_y[1]);
    if (h_y[1] != 4001) failures++;
    expect("blocking stream behind the held legacy stream:", cudaStreamQuery(s1), cudaErrorNotReady);
    expect("the legacy stream itself:", cudaStreamQuery(0), cudaErrorNotReady);
    g3.open();
    expect("device synchronize after opening:", cudaDeviceSynchronize(), cudaSuccess);
    expect("blocking stream now:", cudaStreamQuery(s1), cudaSuccess);
    cudaCheck(cudaMemcpy(h_y, d_x, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("blocking stream's kernel ran after the gate: x[1] = %d\n", h_y[1]);
    if (h_y[1] != 3001) failures++;

    bool gave_up = g1.gave_up() || g2.gave_up() || g3.gave_up();
    printf("every gate was opened by the program, none gave up waiting: %s\n", gave_up ? "no" : "yes");
    failures += gave_up;
    cudaCheck(cudaEventDestroy(x_ready));
    cudaCheck(cudaStreamDestroy(s1));
    cudaCheck(cudaStreamDestroy(s2));
    cudaCheck(cudaFreeHost(h_y));
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
