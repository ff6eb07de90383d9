// tests/emurt/programs/uninit_padding.cu: a struct's padding is never
// written, and reading the struct back wider than its fields reads it.
// `fill` writes the int and the long long of pairs[0..n) with a 4- and an
// 8-byte store (bytes 4-7 stay padding); `readback` loads each pair as 8 and
// 16 bytes (what thrust::tuple<int, long> reductions do): no finding. Its
// load of pairs[n], which nothing wrote, is the one uninit-global finding.
#include <cstdio>
#include <cuda_runtime.h>

struct Pair {
    int key;
    long long value;
};

__global__ void fill(Pair *pairs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        pairs[i].key = i;
        pairs[i].value = 3ll * i;
    }
}

__global__ void readback(const Pair *pairs, long long *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n) return;
    unsigned long long lo, a, b;
    asm volatile("ld.global.u64 %0, [%1];" : "=l"(lo) : "l"(pairs + i));
    asm volatile("ld.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(pairs + i));
    out[i] = (long long)(unsigned)lo + (long long)(unsigned)a + (long long)b;
}

int main() {
    const int n = 256;
    Pair *d_pairs;
    long long *d_out;
    cudaMalloc(&d_pairs, (n + 1) * sizeof(Pair));
    cudaMalloc(&d_out, (n + 1) * sizeof(long long));
    fill<<<1, n>>>(d_pairs, n);
    readback<<<2, 256>>>(d_pairs, d_out, n);
    long long last;
    cudaMemcpy(&last, d_out + n - 1, sizeof last, cudaMemcpyDeviceToHost);
    printf("out[n-1] %lld\n", last);
    return 0;
}
