// tests/programs/multi_device.cu: more than one device, written to adapt to
// however many there are (an H200 machine has one; the emulator runtime is
// run with two), printing only what is the same either way.
// cudaGetDeviceCount, cudaSetDevice/cudaGetDevice per device, a kernel and a
// copy on each device, cudaDeviceCanAccessPeer, cudaMemcpyPeer from each device
// to the one before it, cudaSetDevice of an ordinal past the end.
// cudojo: devices=2
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void fill(int *x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v * 1000 + i;
}

int main(void) {
    int count = 0, failures = 0;
    cudaCheck(cudaGetDeviceCount(&count));
    printf("devices >= 1: %s\n", count >= 1 ? "yes" : "no");
    const int n = 512;
    std::vector<int *> buf(count);

    bool each_ok = true;
    for (int d = 0; d < count; d++) {
        cudaCheck(cudaSetDevice(d));
        int cur = -1;
        cudaCheck(cudaGetDevice(&cur));
        each_ok &= cur == d;
        cudaDeviceProp p;
        cudaCheck(cudaGetDeviceProperties(&p, d));
        each_ok &= p.major == 9;
        cudaCheck(cudaMalloc(&buf[d], n * sizeof(int)));
        fill<<<n / 128, 128>>>(buf[d], n, d + 1);
        cudaCheck(cudaGetLastError());
    }
    for (int d = 0; d < count; d++) {
        cudaCheck(cudaSetDevice(d));
        cudaCheck(cudaDeviceSynchronize());
        int h[n];
        cudaCheck(cudaMemcpy(h, buf[d], sizeof h, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) each_ok &= h[i] == (d + 1) * 1000 + i;
    }
    printf("each device ran its own kernel on its own memory: %s\n", each_ok ? "yes" : "no");
    failures += !each_ok;

    // peers: the answer is 0 or 1; copies work with or without peer access
    bool peer_ok = true;
    for (int a = 0; a < count; a++) {
        for (int b = 0; b < count; b++) {
            if (a == b) continue;
            int can = -1;
            cudaCheck(cudaDeviceCanAccessPeer(&can, a, b));
            peer_ok &= can == 0 || can == 1;
            if (can) {
                cudaCheck(cudaSetDevice(a));
                cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
                peer_ok &= e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled;
                cudaGetLastError();
            }
        }
    }
    for (int a = 0; a + 1 < count; a++) {
        cudaCheck(cudaMemcpyPeer(buf[a], a, buf[a + 1], a + 1, 16 * sizeof(int)));
        int h[16];
        cudaCheck(cudaSetDevice(a));
        cudaCheck(cudaMemcpy(h, buf[a], sizeof h, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 16; i++) peer_ok &= h[i] == (a + 2) * 1000 + i;
    }
    printf("peer queries and peer copies agree: %s\n", peer_ok ? "yes" : "no");
    failures += !peer_ok;

    cudaCheck(cudaSetDevice(count - 1));
    cudaError_t e = cudaSetDevice(count);
    printf("cudaSetDevice(count): %s\n", cudaGetErrorName(e));
    failures += e != cudaErrorInvalidDevice;
    cudaGetLastError();
    int cur = -1;
    cudaCheck(cudaGetDevice(&cur));
    printf("current device after the failed call is the last one set: %s\n", cur == count - 1 ? "yes" : "no");
    failures += cur != count - 1;

    for (int d = 0; d < count; d++) {
        cudaCheck(cudaSetDevice(d));
        cudaCheck(cudaFree(buf[d]));
    }
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
