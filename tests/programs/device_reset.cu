// tests/programs/device_reset.cu: cudaSetDeviceFlags before the first call
// that creates the context (read back with cudaGetDeviceFlags), then
// cudaDeviceReset: everything of the device's state is gone — a __device__
// variable is back to its initial value — and new allocations and launches
// work afterwards.
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

__device__ int generation = 5;

__global__ void bump(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = i + generation;
}

__global__ void set_generation(int g) { generation = g; }

static long run_once(const char *when) {
    const int n = 300;
    int *d, h[n];
    cudaCheck(cudaMalloc(&d, sizeof h));
    bump<<<(n + 127) / 128, 128>>>(d, n);
    cudaCheck(cudaGetLastError());
    set_generation<<<1, 1>>>(42);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int g = 0;
    cudaCheck(cudaMemcpyFromSymbol(&g, generation, sizeof g));
    long s = 0;
    for (int i = 0; i < n; i++) s += h[i];
    printf("%s: x[0] = %d, sum = %ld, generation now %d\n", when, h[0], s, g);
    cudaCheck(cudaFree(d));
    return s;
}

int main(void) {
    cudaCheck(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    unsigned flags = 0;
    cudaCheck(cudaGetDeviceFlags(&flags));
    printf("schedule flag is blocking sync: %s\n",
           (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync ? "yes" : "no");

    long a = run_once("first run");
    long b = run_once("second run, same context");
    cudaCheck(cudaDeviceReset());
    printf("cudaGetLastError after reset: %s\n", cudaGetErrorName(cudaGetLastError()));
    long c = run_once("after cudaDeviceReset");

    bool ok = (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync && a == c && b == a + 300 * 37;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
