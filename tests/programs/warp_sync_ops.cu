// tests/programs/warp_sync_ops.cu: warp intrinsics beyond full-warp
// shuffles. __shfl_*_sync with a width (segments of 4, 8 and 16 lanes),
// source lanes outside the segment, shuffles of 64-bit values, a partial
// member mask (only the even lanes take part), __ballot_sync/__activemask in
// divergent branches, __any/__all with partial masks, __match_any_sync and
// __match_all_sync, the __reduce_*_sync family (sm_80), __syncwarp(mask).
// One warp of 32 lanes writes rows of results; the host checks them against a
// model of the rules in the CUDA programming guide.
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

const unsigned FULL = 0xffffffffu;
const int ROWS = 18;

__global__ void warp_ops(long long *out) {
    int lane = threadIdx.x;
    int v = lane * 10 + 1;
    long long *row = out;
#define PUT(r, x) row[(r) * 32 + lane] = (long long)(x)
    PUT(0, __shfl_sync(FULL, v, 3, 8));        // lane 3 of each 8-lane segment
    PUT(1, __shfl_sync(FULL, v, 11, 8));       // 11 % 8 = 3 again
    PUT(2, __shfl_down_sync(FULL, v, 2, 16));  // past the segment's end: own value
    PUT(3, __shfl_up_sync(FULL, v, 1, 4));     // first lane of a segment: own value
    PUT(4, __shfl_xor_sync(FULL, v, 5, 8));    // xor 5 stays inside the 8-lane segment
    PUT(5, __shfl_sync(FULL, 0x100000000LL * lane + 7, 31 - lane));
    PUT(6, __shfl_down_sync(FULL, v, 40));  // a delta past the warp
    if (lane % 2 == 0) {
        PUT(7, __shfl_sync(0x55555555u, v, (lane + 2) % 32));
        PUT(8, __ballot_sync(0x55555555u, lane % 4 == 0));
        PUT(9, __activemask());
        PUT(10, __any_sync(0x55555555u, lane == 30) * 10 + __all_sync(0x55555555u, lane < 31));
    } else {
        PUT(7, -1);
        PUT(8, __ballot_sync(0xaaaaaaaau, lane > 20));
        PUT(9, __activemask());
        PUT(10, __any_sync(0xaaaaaaaau, lane == 30) * 10 + __all_sync(0xaaaaaaaau, lane > 0));
    }
    __syncwarp();
    if (lane < 10) PUT(11, __ballot_sync(0x3ffu, v > 50));
    else PUT(11, 0);
    PUT(12, __match_any_sync(FULL, lane % 3));
    int pred;
    unsigned all = __match_all_sync(FULL, lane / 32, &pred);
    PUT(13, (long long)all * 2 + pred);
    unsigned some = __match_all_sync(FULL, lane % 2, &pred);
    PUT(14, (long long)some * 2 + pred);
    PUT(15, __reduce_add_sync(FULL, (unsigned)lane) * 1000 + __reduce_min_sync(FULL, (unsigned)(lane + 5)));
    PUT(16, (long long)__reduce_max_sync(FULL, lane - 40) * 1000 + __reduce_min_sync(FULL, lane - 40));
    PUT(17, (long long)__reduce_and_sync(FULL, 0xf0u | lane) << 32 | __reduce_or_sync(FULL, 1u << (lane % 8)) << 16 |
                __reduce_xor_sync(FULL, (unsigned)lane));
}

int main(void) {
    long long *d, h[ROWS * 32], want[ROWS * 32];
    cudaCheck(cudaMalloc(&d, sizeof h));
    warp_ops<<<1, 32>>>(d);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int l = 0; l < 32; l++) {
        int v = l * 10 + 1;
        auto val = [](int lane) { return lane * 10 + 1; };
        int seg8 = l / 8 * 8, seg16 = l / 16 * 16, seg4 = l / 4 * 4;
        want[0 * 32 + l] = val(seg8 + 3);
        want[1 * 32 + l] = val(seg8 + 3);
        want[2 * 32 + l] = l + 2 < seg16 + 16 ? val(l + 2) : v;
        want[3 * 32 + l] = l - 1 >= seg4 ? val(l - 1) : v;
        want[4 * 32 + l] = val(seg8 + ((l ^ 5) & 7));
        want[5 * 32 + l] = 0x100000000LL * (31 - l) + 7;
        want[6 * 32 + l] = l + 8 < 32 ? val(l + 8) : v;  // PTX uses the low 5 bits of the delta: 40 -> 8
        want[7 * 32 + l] = l % 2 == 0 ? val((l + 2) % 32) : -1;
        want[8 * 32 + l] = l % 2 == 0 ? 0x11111111LL : 0xaaa00000LL;
        want[9 * 32 + l] = l % 2 == 0 ? 0x55555555LL : 0xaaaaaaaaLL;
        want[10 * 32 + l] = l % 2 == 0 ? 11 : 1;
        want[11 * 32 + l] = l < 10 ? 0x3e0 : 0;
        want[12 * 32 + l] = l % 3 == 0 ? 0x49249249LL : l % 3 == 1 ? 0x92492492LL : 0x24924924LL;
        want[13 * 32 + l] = 0xffffffffLL * 2 + 1;
        want[14 * 32 + l] = 0;
        want[15 * 32 + l] = 496 * 1000 + 5;
        want[16 * 32 + l] = -9 * 1000 - 40;
        want[17 * 32 + l] = 0xf0LL << 32 | 0xffLL << 16 | 0;
    }
    int bad = 0;
    for (int r = 0; r < ROWS; r++) {
        int rb = 0;
        for (int l = 0; l < 32; l++) rb += h[r * 32 + l] != want[r * 32 + l];
        printf("row %2d: lane 0 %lld, lane 13 %lld, lane 31 %lld, mismatches %d\n", r, h[r * 32], h[r * 32 + 13],
               h[r * 32 + 31], rb);
        bad += rb;
    }
    cudaCheck(cudaFree(d));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
