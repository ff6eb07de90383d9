// tests/emurt/programs/unimpl.cu: a runtime function the emulator runtime
// does not implement fails loudly: cudaErrorNotSupported, a line on stderr
// naming it, an "unimplemented" record. Then a host crash: the crash record
// names the signal and frames that addr2line maps to this file.
#include <cstdio>
#include <cuda_runtime.h>

int main(int argc, char **argv) {
    (void)argv;
    cudaArray_t arr = 0;
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaError_t e = cudaMallocArray(&arr, &desc, 16, 16, 0);
    printf("cudaMallocArray: %s\n", cudaGetErrorName(e));
    fflush(stdout);
    if (argc > 1) {
        volatile int *p = nullptr;
        *p = 42;
    }
    return 3;
}
