// tests/programs/memcpy_wrong_kind.cu: cudaMemcpy with a kind that
// contradicts its pointers (NVIDIA documents it as undefined behaviour):
// what the call returns and whether the bytes arrive, for pageable host
// memory where device memory is expected and the other way round, device
// to device under a host kind, pinned memory (which the GPU can address)
// under a device kind; then a double cudaFree. Chapter 14's bug hunt
// (bug-copy-direction) relies on the first two; the emulator runtime must
// answer as the H200 does.
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

static const int n = 256;

static void report(const char *what, cudaError_t e, const int *got, int want) {
    printf("%-58s %-24s arrived: %s\n", what, cudaGetErrorName(e), got[n - 1] == want ? "yes" : "no");
    cudaGetLastError();     // an argument error is also the last error: clear it for the next case
}

int main(void) {
    size_t bytes = n * sizeof(int);
    int *h = (int *)malloc(bytes), *h2 = (int *)malloc(bytes), *pinned, *a, *b;
    cudaCheck(cudaMallocHost(&pinned, bytes));
    cudaCheck(cudaMalloc(&a, bytes));
    cudaCheck(cudaMalloc(&b, bytes));
    for (int i = 0; i < n; i++) h[i] = i + 1;
    cudaCheck(cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice));

    for (int i = 0; i < n; i++) h2[i] = 0;
    report("device -> pageable host, kind HostToDevice:", cudaMemcpy(h2, a, bytes, cudaMemcpyHostToDevice), h2, n);

    cudaCheck(cudaMemset(b, 0, bytes));
    cudaError_t e = cudaMemcpy(b, h, bytes, cudaMemcpyDeviceToHost);
    cudaCheck(cudaMemcpy(h2, b, bytes, cudaMemcpyDeviceToHost));
    report("pageable host -> device, kind DeviceToHost:", e, h2, n);

    cudaCheck(cudaMemset(b, 0, bytes));
    e = cudaMemcpy(b, a, bytes, cudaMemcpyHostToDevice);
    cudaCheck(cudaMemcpy(h2, b, bytes, cudaMemcpyDeviceToHost));
    report("device -> device, kind HostToDevice:", e, h2, n);

    for (int i = 0; i < n; i++) pinned[i] = 0;
    report("device -> pinned host, kind HostToDevice:", cudaMemcpy(pinned, a, bytes, cudaMemcpyHostToDevice),
           pinned, n);

    for (int i = 0; i < n; i++) h2[i] = 0;
    report("device -> pageable host, kind Default:", cudaMemcpy(h2, a, bytes, cudaMemcpyDefault), h2, n);

    cudaCheck(cudaFree(b));
    e = cudaFree(b);
    printf("%-58s %s\n", "cudaFree of a freed pointer:", cudaGetErrorName(e));
    printf("%-58s %s\n", "cudaGetLastError after it:", cudaGetErrorName(cudaGetLastError()));
    printf("%-58s %s\n", "a good call after it:", cudaGetErrorName(cudaMemcpy(h2, a, bytes, cudaMemcpyDeviceToHost)));

    cudaCheck(cudaFree(a));
    cudaCheck(cudaFreeHost(pinned));
    free(h);
    free(h2);
    printf("PASS\n");
    return 0;
}
