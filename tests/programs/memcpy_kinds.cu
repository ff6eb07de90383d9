// tests/programs/memcpy_kinds.cu: every cudaMemcpy direction. Host to
// device, device to device (within one allocation at an offset, and between
// allocations), device to host, host to host through the runtime, and
// cudaMemcpyDefault, which infers the direction from the pointers (unified
// addressing); cudaMemcpyAsync on the legacy stream is ordered with the
// synchronous copies; a zero-byte copy succeeds.
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

static long sum(const int *x, int n) {
    long s = 0;
    for (int i = 0; i < n; i++) s += x[i];
    return s;
}

int main(void) {
    const int n = 2048;
    int *h = (int *)malloc(n * sizeof(int)), *h2 = (int *)malloc(n * sizeof(int)), *pinned;
    cudaCheck(cudaMallocHost(&pinned, n * sizeof(int)));
    for (int i = 0; i < n; i++) h[i] = i;
    int *a, *b;
    cudaCheck(cudaMalloc(&a, n * sizeof(int)));
    cudaCheck(cudaMalloc(&b, n * sizeof(int)));
    int failures = 0;

    cudaCheck(cudaMemcpy(a, h, n * sizeof(int), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(b, a, n * sizeof(int), cudaMemcpyDeviceToDevice));
    // shift the first half of b up by 1000 elements, within b
    cudaCheck(cudaMemcpy(b + 1000, a, 1000 * sizeof(int), cudaMemcpyDeviceToDevice));
    cudaCheck(cudaMemcpy(h2, b, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("device to device: b[999] = %d, b[1000] = %d, b[1999] = %d, b[2000] = %d, sum %ld\n", h2[999], h2[1000],
           h2[1999], h2[2000], sum(h2, n));
    failures += h2[1000] != 0 || h2[2000] != 2000;

    cudaCheck(cudaMemcpy(pinned, h, n * sizeof(int), cudaMemcpyHostToHost));
    printf("host to host: pinned[2047] = %d\n", pinned[n - 1]);
    failures += pinned[n - 1] != n - 1;

    // cudaMemcpyDefault: the direction comes from the pointers
    memset(h2, 0, n * sizeof(int));
    for (int i = 0; i < n; i++) pinned[i] = 3 * i;
    cudaCheck(cudaMemcpy(a, pinned, n * sizeof(int), cudaMemcpyDefault));       // host -> device
    cudaCheck(cudaMemcpy(b, a, n * sizeof(int), cudaMemcpyDefault));            // device -> device
    cudaCheck(cudaMemcpy(h2, b + 10, 10 * sizeof(int), cudaMemcpyDefault));     // device -> pageable host
    printf("cudaMemcpyDefault: h2[0] = %d, h2[9] = %d, h2[10] = %d\n", h2[0], h2[9], h2[10]);
    failures += h2[0] != 30 || h2[9] != 57 || h2[10] != 0;

    // async on the legacy stream, then a synchronous copy: in order
    for (int i = 0; i < n; i++) pinned[i] = -i;
    cudaCheck(cudaMemcpyAsync(a, pinned, n * sizeof(int), cudaMemcpyHostToDevice, 0));
    cudaCheck(cudaMemcpy(h2, a, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("async then sync on the default stream: sum %ld\n", sum(h2, n));
    failures += sum(h2, n) != -(long)n * (n - 1) / 2;

    cudaError_t e = cudaMemcpy(a, h, 0, cudaMemcpyHostToDevice);
    printf("zero-byte copy: %s\n", cudaGetErrorName(e));
    failures += e != cudaSuccess;

    cudaCheck(cudaFree(a));
    cudaCheck(cudaFree(b));
    cudaCheck(cudaFreeHost(pinned));
    free(h);
    free(h2);
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
