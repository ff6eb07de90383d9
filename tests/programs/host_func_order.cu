// tests/programs/host_func_order.cu: host work queued in streams —
// cudaLaunchHostFunc and cudaStreamAddCallback run in stream order, after
// the copies and kernels queued before them (a host function sees the data
// the copy before it brought back) and before the work queued after them;
// two streams joined by an event keep their callbacks ordered too. The
// callbacks only append to a log (no CUDA calls inside, as required); the
// log is printed at the end.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

static std::mutex log_mutex;
static std::vector<std::string> log_lines;

static void log_line(const std::string &s) {
    std::lock_guard<std::mutex> lk(log_mutex);
    log_lines.push_back(s);
}

struct Step {
    const char *name;
    const int *h;  // pinned buffer the step reads, or NULL
    int n;
};

static void CUDART_CB host_step(void *p) {
    Step *s = (Step *)p;
    long sum = 0;
    for (int i = 0; s->h && i < s->n; i++) sum += s->h[i];
    char buf[128];
    snprintf(buf, sizeof buf, "%s: sum %ld", s->name, sum);
    log_line(buf);
}

static void CUDART_CB callback(cudaStream_t stream, cudaError_t status, void *p) {
    (void)stream;
    char buf[128];
    // no CUDA call in a callback, not even cudaGetErrorName
    snprintf(buf, sizeof buf, "%s (status %d)", (const char *)p, (int)status);
    log_line(buf);
}

__global__ void add(int *x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}

int main(void) {
    const int n = 1000;
    int *h, *d;
    cudaCheck(cudaMallocHost(&h, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d, n * sizeof(int)));
    for (int i = 0; i < n; i++) h[i] = i;
    cudaStream_t s, t;
    cudaCheck(cudaStreamCreate(&s));
    cudaCheck(cudaStreamCreate(&t));

    Step st1 = {"host func 1 after copy in (host buffer unchanged)", h, n};
    Step st2 = {"host func 2 after +1 and copy back", h, n};
    Step st3 = {"host func 3 after +2 and copy back", h, n};
    cudaCheck(cudaMemcpyAsync(d, h, n * sizeof(int), cudaMemcpyHostToDevice, s));
    cudaCheck(cudaLaunchHostFunc(s, host_step, &st1));
    add<<<(n + 255) / 256, 256, 0, s>>>(d, n, 1);
    cudaCheck(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    cudaCheck(cudaLaunchHostFunc(s, host_step, &st2));
    cudaCheck(cudaStreamAddCallback(s, callback, (void *)"callback after host func 2", 0));
    add<<<(n + 255) / 256, 256, 0, s>>>(d, n, 2);
    cudaCheck(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    cudaCheck(cudaLaunchHostFunc(s, host_step, &st3));

    // stream t waits for everything above, then logs
    cudaEvent_t done_s;
    cudaCheck(cudaEventCreateWithFlags(&done_s, cudaEventDisableTiming));
    cudaCheck(cudaEventRecord(done_s, s));
    cudaCheck(cudaStreamWaitEvent(t, done_s, 0));
    cudaCheck(cudaStreamAddCallback(t, callback, (void *)"stream t's callback after the event", 0));
    Step st4 = {"stream t's host func", NULL, 0};
    cudaCheck(cudaLaunchHostFunc(t, host_step, &st4));
    cudaCheck(cudaDeviceSynchronize());

    for (size_t i = 0; i < log_lines.size(); i++) printf("%zu. %s\n", i + 1, log_lines[i].c_str());
    bool ok = log_lines.size() == 6 && h[0] == 3 && h[n - 1] == n + 2;
    printf("h[0] = %d, h[999] = %d\n", h[0], h[n - 1]);

    cudaCheck(cudaEventDestroy(done_s));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaStreamDestroy(t));
    cudaCheck(cudaFreeHost(h));
    cudaCheck(cudaFree(d));
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
