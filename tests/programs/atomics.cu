// tests/programs/atomics.cu: atomics in a program. A 64-bin histogram with
// shared-memory atomicAdd per block merged into global memory, a global
// atomicMax/atomicMin, a float sum of exactly representable values, a
// ticket counter from atomicAdd's return value, atomicCAS in a loop building
// an atomic multiply, and atomicExch as a one-winner flag. Every printed
// result is independent of the order the threads run in.
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

const int BINS = 64;

__global__ void histogram(const unsigned char *data, int n, unsigned *hist) {
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

struct Stats {
    int max, min;
    float fsum;
    unsigned tickets;
    int winners;
    int flag;
    unsigned long long product;
};

__device__ unsigned long long atomic_mul(unsigned long long *p, unsigned long long f) {
    unsigned long long old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, assumed * f);
    } while (old != assumed);
    return old;
}

__global__ void stats(const int *v, int n, Stats *s, unsigned *ticket_of) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicMax(&s->max, v[i]);
    atomicMin(&s->min, v[i]);
    atomicAdd(&s->fsum, 0.25f * (float)(v[i] & 7));
    ticket_of[i] = atomicAdd(&s->tickets, 1u);
    if (atomicExch(&s->flag, 1) == 0) atomicAdd(&s->winners, 1);
    if (i < 20) atomic_mul(&s->product, (unsigned long long)(i % 4 + 1));
}

int main(void) {
    int failures = 0;
    const int n = 100000;
    std::vector<unsigned char> data(n);
    for (int i = 0; i < n; i++) data[i] = (unsigned char)((i * 7919) % 251);
    unsigned char *d_data;
    unsigned *d_hist, hist[BINS];
    cudaCheck(cudaMalloc(&d_data, n));
    cudaCheck(cudaMalloc(&d_hist, sizeof hist));
    cudaCheck(cudaMemcpy(d_data, data.data(), n, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemset(d_hist, 0, sizeof hist));
    histogram<<<32, 256>>>(d_data, n, d_hist);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(hist, d_hist, sizeof hist, cudaMemcpyDeviceToHost));
    unsigned ref[BINS] = {0}, total = 0;
    for (int i = 0; i < n; i++) ref[data[i] % BINS]++;
    int bad = 0;
    for (int b = 0; b < BINS; b++) {
        bad += hist[b] != ref[b];
        total += hist[b];
    }
    printf("histogram: total %u, bin 0 %u, bin 59 %u, bin 63 %u, mismatches %d\n", total, hist[0], hist[59], hist[63],
           bad);
    failures += bad;

    const int m = 5000;
    std::vector<int> v(m);
    for (int i = 0; i < m; i++) v[i] = (i * 2654435761u) % 100003 - 50000;
    int *d_v;
    unsigned *d_tickets;
    Stats *d_s, s = {-2147483647 - 1, 2147483647, 0.0f, 0u, 0, 0, 1ull};
    cudaCheck(cudaMalloc(&d_v, m * sizeof(int)));
    cudaCheck(cudaMalloc(&d_tickets, m * sizeof(unsigned)));
    cudaCheck(cudaMalloc(&d_s, sizeof s));
    cudaCheck(cudaMemcpy(d_v, v.data(), m * sizeof(int), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_s, &s, sizeof s, cudaMemcpyHostToDevice));
    stats<<<(m + 127) / 128, 128>>>(d_v, m, d_s, d_tickets);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(&s, d_s, sizeof s, cudaMemcpyDeviceToHost));
    std::vector<unsigned> tickets(m);
    cudaCheck(cudaMemcpy(tickets.data(), d_tickets, m * sizeof(unsigned), cudaMemcpyDeviceToHost));

    int rmax = v[0], rmin = v[0];
    double rsum = 0;
    for (int i = 0; i < m; i++) {
        rmax = v[i] > rmax ? v[i] : rmax;
        rmin = v[i] < rmin ? v[i] : rmin;
        rsum += 0.25 * (v[i] & 7);
    }
    std::vector<int> seen(m, 0);
    int ticket_bad = 0;
    for (int i = 0; i < m; i++) {
        if (tickets[i] >= (unsigned)m || seen[tickets[i]]++) ticket_bad++;
    }
    printf("max %d, min %d, float sum %.2f\n", s.max, s.min, s.fsum);
    printf("tickets: %u handed out, each of 0..%d exactly once: %s\n", s.tickets, m - 1, ticket_bad ? "no" : "yes");
    printf("atomicExch flag winners: %d\n", s.winners);
    printf("atomicCAS product of (i %% 4 + 1) for i < 20: %llu\n", s.product);
    failures += s.max != rmax || s.min != rmin || s.fsum != (float)rsum || ticket_bad || s.winners != 1 ||
                s.product != 7962624ull;  // 24^5

    cudaCheck(cudaFree(d_data));
    cudaCheck(cudaFree(d_hist));
    cudaCheck(cudaFree(d_v));
    cudaCheck(cudaFree(d_tickets));
    cudaCheck(cudaFree(d_s));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
