// tests/emurt/programs/uninit_padding.cu: a struct's padding is never
// written, and reading the struct back wider than its fields reads it.
// `fill` writes the int and the long long of pairs[0..n) with a 4- and an
// 8-byte store (bytes 4-7 stay padding) and the bool of flags[0..n) with a
// 1-byte store; `readback` loads each pair as 8 and 16 bytes and each flag
// as 4 (what thrust's reductions of tuple<int, long> and tuple<bool, long>
// do): no finding. Its loads of pairs[n], which nothing wrote, are the
// uninit-global findings (one per line that loads it).
#include <cstdio>
#include <cuda_runtime.h>

struct Pair {
    int key;
    long long value;
};

struct Flag {
    bool set;
    long long where;
};

__global__ void fill(Pair *pairs, Flag *flags, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        pairs[i].key = i;
        pairs[i].value = 3ll * i;
        flags[i].set = i & 1;
    }
}

__global__ void readback(const Pair *pairs, const Flag *flags, long long *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n) return;
    unsigned long long lo, a, b;
    unsigned f = 0;
    asm volatile("ld.global.u64 %0, [%1];" : "=l"(lo) : "l"(pairs + i));
    asm volatile("ld.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(pairs + i));
    if (i < n) asm volatile("ld.global.u32 %0, [%1];" : "=r"(f) : "l"(flags + i));
    out[i] = (long long)(unsigned)lo + (long long)(unsigned)a + (long long)b + (f & 0xff);
}

int main() {
    const int n = 256;
    Pair *d_pairs;
    Flag *d_flags;
    long long *d_out;
    cudaMalloc(&d_pairs, (n + 1) * sizeof(Pair));
    cudaMalloc(&d_flags, n * sizeof(Flag));
    cudaMalloc(&d_out, (n + 1) * sizeof(long long));
    fill<<<1, n>>>(d_pairs, d_flags, n);
    readback<<<2, 256>>>(d_pairs, d_flags, d_out, n);
    long long last;
    cudaMemcpy(&last, d_out + n - 1, sizeof last, cudaMemcpyDeviceToHost);
    printf("out[n-1] %lld\n", last);
    return 0;
}
