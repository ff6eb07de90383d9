// tests/emurt/programs/flag_publish.cu: blocks chained by flags, each waiting
// for the one before, then reading that block's result. argv[1] says how a
// block publishes its result before raising its flag: "volatile" (a
// volatile flag with nothing between: a race on the result, reported at its
// read), "fence" (__threadfence() then the volatile flag) or "release"
// (cuda::atomic_ref's release store, polled with acquire loads): no finding.
#include <cstdio>
#include <cstring>
#include <cuda/atomic>

__global__ void chain(int *data, int *flag, int mode) {
    int b = blockIdx.x;
    if (threadIdx.x != 0) return;
    int prev = 0;
    if (b > 0) {
        if (mode == 2) {
            cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[b - 1]);
            while (f.load(cuda::std::memory_order_acquire) == 0) { }
        } else {
            while (*(volatile int *)&flag[b - 1] == 0) { }
        }
        prev = data[b - 1];   // the result's read
    }
    data[b] = prev + b;
    if (mode == 2) {
        cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[b]);
        f.store(1, cuda::std::memory_order_release);
    } else {
        if (mode == 1) __threadfence();
        *(volatile int *)&flag[b] = 1;
    }
}

int main(int argc, char **argv) {
    int mode = argc > 1 && !strcmp(argv[1], "fence") ? 1 : argc > 1 && !strcmp(argv[1], "release") ? 2 : 0;
    const int n = 8;
    int *data, *flag, last = 0;
    cudaMalloc(&data, n * sizeof(int));
    cudaMalloc(&flag, n * sizeof(int));
    cudaMemset(data, 0, n * sizeof(int));
    cudaMemset(flag, 0, n * sizeof(int));
    chain<<<n, 32>>>(data, flag, mode);
    cudaMemcpy(&last, data + n - 1, sizeof last, cudaMemcpyDeviceToHost);
    printf("last %d\n", last);
    return 0;
}
