// launch-bounds.cu (typical mistake): __launch_bounds__(256, 2). The second
// number is the minimum number of resident BLOCKS per SM the compiler should
// make room for, not a count of anything else: 2 blocks of 256 threads may
// use up to 128 registers each, which the kernel already fits in, so nothing
// changes and the occupancy stays at 37.5%.

#ifndef TM
#define TM 6
#endif
#ifndef TN
#define TN 6
#endif

extern "C" __global__ void __launch_bounds__(256, 2)
matmul_tile(const float *A, const float *B, float *C, int M, int N, int K)
{
    int cols = (N + TN - 1) / TN;              // threads per group of TM rows
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int r0 = (t / cols) * TM;                  // this thread's rows: r0 .. r0 + TM - 1
    int c0 = t % cols;                         // its columns: c0, c0 + cols, c0 + 2 cols, ...
    if (r0 >= M) return;                       // (neighbouring threads, neighbouring columns)

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
        for (int j = 0; j < TN; j++) b[j] = c0 + j * cols < N ? B[k * N + c0 + j * cols] : 0.0f;
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j++) acc[i][j] += a[i] * b[j];
    }

#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            if (r0 + i < M && c0 + j * cols < N) C[(r0 + i) * N + c0 + j * cols] = acc[i][j];
}
