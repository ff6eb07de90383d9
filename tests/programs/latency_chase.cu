// tests/programs/latency_chase.cu: how long one load takes, from L1, from L2
// and from global memory (HBM), measured the classic way: one thread follows
// a chain of dependent loads (each address is the value the previous load
// returned, so nothing overlaps) and clock64() counts the cycles. The lessons
// quote the global-memory figure (chapters 3, 4, 8, 11).
//
// The figures go to stderr ("global memory: 612 cycles per load, 309 ns at
// 1980 MHz"); stdout holds only predicates, so the conformance suite can
// compare it on the emulator runtime too (whose clock is not a GPU's).
//
//   nvcc -O2 -o /tmp/latency_chase tests/programs/latency_chase.cu && /tmp/latency_chase
//
// Chains: L1, 256 lines in 32 KiB, walked once to warm and then timed; L2,
// 65536 lines in 8 MiB (more than L1, less than the 50 MB L2), warm; global
// memory, 4096 lines chosen at random in 256 MiB, timed on the first (cold)
// walk after 4 x L2's size of other data has been written, so every load
// misses both caches (some also miss the TLB, as a program's loads do).
// Lines are 128 bytes apart, one load per line; the figure is the mean.
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

static const size_t LINE_WORDS = 32;   // 128-byte lines of 4-byte words

// next[line[j] * LINE_WORDS] = line[j + 1] * LINE_WORDS: a cycle through the chosen lines.
__global__ void chain_build(unsigned *next, const unsigned *line, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) next[(size_t)line[j] * LINE_WORDS] = line[(j + 1) % n] * (unsigned)LINE_WORDS;
}

// One thread: `warm` walks of the chain untimed, then `steps` dependent loads
// timed. out[0] = cycles, out[1] = where the walk ended (so it is not optimised away).
__global__ void chain_chase(const unsigned *next, unsigned start, int steps, int warm,
                            unsigned long long *out) {
    unsigned j = start;
    for (int w = 0; w < warm; w++)
        for (int s = 0; s < steps; s++) j = next[j];
    long long t0 = clock64();
    for (int s = 0; s < steps; s++) j = next[j];
    long long t1 = clock64();
    out[0] = (unsigned long long)(t1 - t0);
    out[1] = j;
}

// `n` distinct lines out of `lines`, in a random order (seeded, so every run
// walks the same chain); when n == lines, a random permutation of all of them.
static unsigned *pick_lines(size_t lines, int n, unsigned seed) {
    unsigned *all = NULL, *pick = (unsigned *)malloc(n * sizeof(unsigned));
    unsigned long long x = seed;
    auto rnd = [&x]() { x = x * 6364136223846793005ull + 1442695040888963407ull; return (unsigned)(x >> 33); };
    if ((size_t)n == lines) {
        for (int i = 0; i < n; i++) pick[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int k = rnd() % (i + 1);
            unsigned t = pick[i]; pick[i] = pick[k]; pick[k] = t;
        }
        return pick;
    }
    // Sparse: one line from each of n equal strips, strips visited in random order.
    all = (unsigned *)malloc(n * sizeof(unsigned));
    for (int i = 0; i < n; i++) all[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int k = rnd() % (i + 1);
        unsigned t = all[i]; all[i] = all[k]; all[k] = t;
    }
    size_t strip = lines / n;
    for (int i = 0; i < n; i++) pick[i] = (unsigned)(all[i] * strip + rnd() % strip);
    free(all);
    return pick;
}

struct Level {
    const char *name;
    size_t bytes;   // the chain's footprint
    int lines;      // lines in the chain
    int warm;       // untimed walks first
};

int main(void) {
    const Level levels[] = {
        {"L1 hit", 32u << 10, 256, 2},
        {"L2 hit", 8u << 20, 65536, 1},
        {"global memory", (size_t)256 << 20, 4096, 0},
    };
    int clock_khz = 0, l2 = 0;
    cudaCheck(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    cudaCheck(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    // Writing this much pushes the chain's lines (just written by chain_build) out of L2.
    size_t flush_bytes = 4 * (size_t)(l2 > 0 ? l2 : 64 << 20);
    void *flush;
    cudaCheck(cudaMalloc(&flush, flush_bytes));
    unsigned long long *d_out;
    cudaCheck(cudaMalloc(&d_out, 2 * sizeof(unsigned long long)));
    bool ok = true;
    printf("latency_chase: one thread, each load's address from the load before\n");
    for (const Level &lv : levels) {
        unsigned *next, *d_line;
        cudaCheck(cudaMalloc(&next, lv.bytes));
        cudaCheck(cudaMalloc(&d_line, lv.lines * sizeof(unsigned)));
        size_t lines = lv.bytes / (LINE_WORDS * 4);
        unsigned *line = pick_lines(lines, lv.lines, 20261201u);
        cudaCheck(cudaMemcpy(d_line, line, lv.lines * sizeof(unsigned), cudaMemcpyHostToDevice));
        chain_build<<<(lv.lines + 255) / 256, 256>>>(next, d_line, lv.lines);
        cudaCheck(cudaGetLastError());
        if (lv.warm == 0) cudaCheck(cudaMemset(flush, 1, flush_bytes));
        chain_chase<<<1, 1>>>(next, line[0] * (unsigned)LINE_WORDS, lv.lines, lv.warm, d_out);
        cudaCheck(cudaGetLastError());
        unsigned long long out[2];
        cudaCheck(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
        double cycles = (double)out[0] / lv.lines;
        double ns = clock_khz > 0 ? cycles / clock_khz * 1e6 : 0;
        // After a whole number of walks the chain is back where it started.
        bool closed = out[1] == line[0] * LINE_WORDS;
        fprintf(stderr, "%-14s %5d loads over %7zu KiB: %6.0f cycles per load, %5.0f ns at %d MHz\n", lv.name,
                lv.lines, lv.bytes >> 10, cycles, ns, clock_khz / 1000);
        printf("%s: %d loads over %zu KiB, cycles per load measured and positive: %s, chain closed: %s\n", lv.name,
               lv.lines, lv.bytes >> 10, cycles > 0 ? "yes" : "no", closed ? "yes" : "no");
        ok = ok && cycles > 0 && closed;
        free(line);
        cudaCheck(cudaFree(d_line));
        cudaCheck(cudaFree(next));
    }
    cudaCheck(cudaFree(d_out));
    cudaCheck(cudaFree(flush));
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
