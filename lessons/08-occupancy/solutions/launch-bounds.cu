// launch-bounds.cu (solution): __launch_bounds__(256, 4) promises blocks of
// at most 256 threads and asks for 4 of them per SM: 1024 threads sharing
// 65536 registers, so ptxas keeps the kernel at 64 registers per thread (it
// needed about 70; the difference is scheduling slack, so nothing spills).
// 4 blocks x 8 warps = 32 of 64 warps: 50%.

#ifndef TM
#define TM 6
#endif
#ifndef TN
#define TN 6
#endif

extern "C" __global__ void __launch_bounds__(256, 4)
matmul_tile(const float *A, const float *B, float *C, int M, int N, int K)
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
