// launch-bounds.cu: C = A * B (row-major, A is M x K, B is K x N), each
// thread computing a TM x TN = 6 x 6 block of C in registers: 36
// accumulators plus a column of A and a row of B for every step of k.
// Keeping all that in registers is what makes register tiling fast, and it
// costs: ptxas gives this kernel about 70 registers per thread on sm_90.
//
// The exercise launches it with blocks of 256 threads. With 70 registers a
// block needs 256 x 72 = 18432 of the SM's 65536 registers (rounded per
// warp), so only 3 blocks fit: 24 of 64 warps, 37.5% occupancy.
//
// Goal: at least 50% occupancy on sm_90 with blocks of 256 threads, without
// changing what the kernel computes (TM and TN stay 6).

#ifndef TM
#define TM 6
#endif
#ifndef TN
#define TN 6
#endif

// TODO: tell the compiler how this kernel is launched (__launch_bounds__),
// so that it keeps the registers per thread low enough for 4 blocks of 256.
extern "C" __global__ void matmul_tile(const float *A, const float *B, float *C, int M, int N, int K)
{
    int tiles_n = (N + TN - 1) / TN;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int r0 = (t / tiles_n) * TM, c0 = (t % tiles_n) * TN;
    if (r0 >= M) return;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;

    for (int k = 0; k < K; k++) {
        float a[TM], b[TN];
#pragma unroll
        for (int i = 0; i < TM; i++) a[i] = r0 + i < M ? A[(r0 + i) * K + k] : 0.0f;
#pragma unroll
        for (int j = 0; j < TN; j++) b[j] = c0 + j < N ? B[k * N + c0 + j] : 0.0f;
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j++) acc[i][j] += a[i] * b[j];
    }

#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            if (r0 + i < M && c0 + j < N) C[(r0 + i) * N + c0 + j] = acc[i][j];
}
