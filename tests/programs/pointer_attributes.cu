// tests/programs/pointer_attributes.cu: cudaPointerGetAttributes on each kind
// of pointer — cudaMalloc'd (and an address inside it), cudaMallocHost,
// cudaHostRegister'd, cudaMallocManaged, plain malloc and a stack address
// (unregistered: cudaSuccess since CUDA 11) — printing the memory type, the
// device and whether the device/host pointers are the pointer itself or
// NULL (never the addresses).
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

static const char *type_name(cudaMemoryType t) {
    switch (t) {
    case cudaMemoryTypeUnregistered: return "unregistered";
    case cudaMemoryTypeHost: return "host";
    case cudaMemoryTypeDevice: return "device";
    case cudaMemoryTypeManaged: return "managed";
    }
    return "?";
}

static const char *same(const void *q, const void *p) { return q == p ? "itself" : q == NULL ? "NULL" : "other"; }

static void show(const char *what, const void *p, bool show_device) {
    cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess) {
        printf("%-22s %s\n", what, cudaGetErrorName(e));
        return;
    }
    printf("%-22s type %-12s", what, type_name(a.type));
    if (show_device) printf(" device %d, devicePointer %s, hostPointer %s", a.device, same(a.devicePointer, p),
                            same(a.hostPointer, p));
    printf("\n");
}

int main(void) {
    char *dev, *pinned, *managed;
    cudaCheck(cudaMalloc(&dev, 4096));
    cudaCheck(cudaMallocHost(&pinned, 4096));
    cudaCheck(cudaMallocManaged(&managed, 4096));
    char *heap = (char *)malloc(1 << 16);
    char *reg = (char *)malloc(1 << 16);
    cudaCheck(cudaHostRegister(reg, 1 << 16, cudaHostRegisterDefault));
    int on_stack = 0;

    show("cudaMalloc:", dev, true);
    show("inside cudaMalloc:", dev + 100, true);
    show("cudaMallocHost:", pinned, true);
    show("cudaHostRegister:", reg, true);
    show("cudaMallocManaged:", managed, true);
    show("malloc:", heap, false);
    show("stack:", &on_stack, false);

    cudaPointerAttributes a;
    cudaCheck(cudaPointerGetAttributes(&a, heap));
    bool ok = a.type == cudaMemoryTypeUnregistered;
    cudaCheck(cudaPointerGetAttributes(&a, dev + 100));
    ok &= a.type == cudaMemoryTypeDevice && a.devicePointer == dev + 100;
    cudaCheck(cudaPointerGetAttributes(&a, managed));
    ok &= a.type == cudaMemoryTypeManaged;

    cudaCheck(cudaHostUnregister(reg));
    show("after unregistering:", reg, false);
    cudaCheck(cudaFree(dev));
    cudaCheck(cudaFreeHost(pinned));
    cudaCheck(cudaFree(managed));
    free(heap);
    free(reg);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
