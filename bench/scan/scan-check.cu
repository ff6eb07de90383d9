// bench/scan/scan-check.cu: checks bench/scan/scan-pipe.cu against a CPU scan
// at small sizes, on the emulator runtime (no GPU) or on a GPU, for one set of
// defines: tails (n not a multiple of the tile or of 4), several launches on
// one status array (epochs), persistent grids of several sizes, and a
// look-back that must walk more than one window of 32 over aggregates.
//
// Build and run one configuration on the emulator (from the repository root):
//   nvcc -std=c++17 -arch=sm_90 -cudart shared -DBLOCK=128 -DITEMS=24 -DPERSIST=1 \
//        -o /tmp/scan-check bench/scan/scan-check.cu
//   LD_LIBRARY_PATH=build/emurt /tmp/scan-check
// Prints "ok - ..." or "not ok - ..." per case; exits 1 if any is wrong.
#include "scan-pipe.cu"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                    \
    do {                                                                                               \
        cudaError_t err_ = (call);                                                                     \
        if (err_ != cudaSuccess) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_));   \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

static int g_bad = 0;

// Inputs in [-50, 50] from a small LCG.
static std::vector<int> inputs(int n, unsigned seed)
{
    std::vector<int> x(n);
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (int)((seed >> 8) % 101u) - 50;
    }
    return x;
}

// Runs `launches` launches of `grid` blocks on one status array (seeded: the
// first `seeded` tiles published their aggregates only, tile 0 its prefix,
// and the launch's tickets start after them) and compares each output.
static void check(const char *what, int n, int grid, int launches, int seeded = 0)
{
    int tiles = (n + TILE - 1) / TILE;
    if (grid == 0) grid = tiles - seeded;
    std::vector<int> x = inputs(n, 1000u + n), want(n), got(n);
    long long run = 0;
    for (int i = 0; i < n; i++) want[i] = (int)(run += x[i]);
    int *in, *out;
    unsigned long long *status;
    CHECK(cudaMalloc(&in, (size_t)n * 4));
    CHECK(cudaMalloc(&out, (size_t)n * 4));
    CHECK(cudaMalloc(&status, ((size_t)tiles + 4) * 8));
    CHECK(cudaMemcpy(in, x.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(status, 0, ((size_t)tiles + 4) * 8));
    CHECK(cudaMemset(out, 0, (size_t)n * 4));
    if (seeded) {
        std::vector<unsigned long long> st(tiles + 4, 0);
        for (int p = 0; p < seeded; p++) {
            long long sum = 0;
            for (int i = p * TILE; i < n && i < (p + 1) * TILE; i++) sum += x[i];
            unsigned flag = p == 0 ? FLAG_PREFIX : FLAG_AGGREGATE;
            st[p] = ((unsigned long long)(1u << 2 | flag) << 32) | (unsigned)(int)sum;   // epoch 1
        }
        st[tiles] = PERSIST ? 0 : seeded;                  // TICKET: the tickets handed out
        st[tiles + 2] = seeded;                             // PERSIST: epoch 1's counter
        CHECK(cudaMemcpy(status, st.data(), st.size() * 8, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(out, want.data(), (size_t)seeded * TILE * 4, cudaMemcpyHostToDevice));
    }
    for (int l = 1; l <= launches; l++) {
        scan<<<grid, THREADS>>>(in, out, status, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(got.data(), out, (size_t)n * 4, cudaMemcpyDeviceToHost));
        unsigned long long gave_up = 0;
        CHECK(cudaMemcpy(&gave_up, status + tiles + 3, 8, cudaMemcpyDeviceToHost));
        int first = -1;
        for (int i = 0; i < n && first < 0; i++)
            if (got[i] != want[i]) first = i;
        if (first < 0 && !gave_up) {
            printf("ok - %s: n = %d, %d tiles, grid %d, launch %d\n", what, n, tiles, grid, l);
        } else {
            g_bad++;
            printf("not ok - %s: n = %d, %d tiles, grid %d, launch %d: ", what, n, tiles, grid, l);
            if (first >= 0) printf("out[%d] = %d, want %d", first, got[first], want[first]);
            if (gave_up) printf(" (a look-back gave up)");
            printf("\n");
        }
        CHECK(cudaMemset(out, 0, (size_t)n * 4));
        if (seeded) CHECK(cudaMemcpy(out, want.data(), (size_t)seeded * TILE * 4, cudaMemcpyHostToDevice));
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(status));
}

int main(void)
{
    printf("# BLOCK=%d ITEMS=%d STAGES=%d PERSIST=%d TICKET=%d LOOKAHEAD=%d FENCE=%d\n", BLOCK, ITEMS, STAGES, PERSIST, TICKET, LOOKAHEAD,
           FENCE);
    if (PERSIST) {
        check("persistent, partial last tile", 33 * TILE + 7, 3, 3);
        check("persistent, whole tiles", 5 * TILE, 2, 2);
        check("persistent, more blocks than tiles", 2 * TILE + 1, 7, 2);
        check("persistent, one block", 9 * TILE + 2, 1, 2);
        check("persistent, n = 5", 5, 4, 2);
        check("persistent, n = 1002", 1002, 2, 1);
        check("persistent, after aggregates", 80 * TILE + 3, 4, 1, 70);
    } else {
        check("one tile per block, partial last tile", 33 * TILE + 7, 0, 3);
        check("one tile per block, whole tiles", 5 * TILE, 0, 2);
        check("one tile per block, n = 5", 5, 0, 2);
        check("one tile per block, n = 1002", 1002, 0, 1);
        if (TICKET) check("one tile per block, after aggregates", 80 * TILE + 3, 0, 1, 70);
    }
    return g_bad ? 1 : 0;
}
