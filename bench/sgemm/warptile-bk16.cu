// bench/sgemm/warptile-bk16.cu: an experiment for chapter 18, not a lesson
// file. matmul-warptile's solution (same launch: blocks of 16 x 16 threads,
// 128 x 128 tiles of C, warps in a 2 x 4 grid of 64 x 32 warp tiles) with
// BK = 16 instead of 8: half the barriers and global round trips per
// multiply-add, two float4 of each tile per thread and step. bench/anchors
// times it beside the chapter's steps, to learn whether the warptile step
// should take it (on the H200 the BK = 8 warptile kernel runs no faster than
// matmul-float4's). N and K must be multiples of 4.

#define BM 128
#define BN 128
#define BK 16
#define TM 8
#define TN 8
#define WM 64                 // a warp computes a WM x WN tile of C
#define WN 32
#define PAD 4
// blockDim = (16, 16): 256 threads, 8 warps

extern "C" __global__ void __launch_bounds__(256, 2)
sgemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(16) float As[BK][BM + PAD];      // A's tile, transposed: As[k][m]
    __shared__ __align__(16) float Bs[BK][BN];
    int t = threadIdx.y * 16 + threadIdx.x;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int warp = t / 32, lane = t % 32;
    int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    int ly = lane / 4, lx = lane % 4;
    int ar = t / 4, ac = (t % 4) * 4;                     // A tile: 128 rows of 4 float4, rows ar and ar + 64
    int br = t / 32, bc = (t % 32) * 4;                   // B tile: 16 rows of 32 float4, rows br and br + 8

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int q = 0; q < 2; q++) {
            int r = ar + 64 * q;
            float4 av = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (row0 + r < M && k0 + ac < K)
                av = *reinterpret_cast<const float4 *>(&A[(row0 + r) * K + k0 + ac]);
            As[ac + 0][r] = av.x;
            As[ac + 1][r] = av.y;
            As[ac + 2][r] = av.z;
            As[ac + 3][r] = av.w;
        }
#pragma unroll
        for (int q = 0; q < 2; q++) {
            int r = br + 8 * q;
            float4 bv = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (k0 + r < K && col0 + bc < N)
                bv = *reinterpret_cast<const float4 *>(&B[(k0 + r) * N + col0 + bc]);
            *reinterpret_cast<float4 *>(&Bs[r][bc]) = bv;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float4 a0 = *reinterpret_cast<const float4 *>(&As[k][wm + 4 * ly]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[k][wm + 32 + 4 * ly]);
            float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k][wn + 4 * lx]);
            float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k][wn + 16 + 4 * lx]);
            float a[TM] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
            float b[TN] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        int r = row0 + wm + 32 * (i / 4) + 4 * ly + i % 4;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            int c = col0 + wn + 16 * (j / 4) + 4 * lx;
            if (r < M && c < N)
                *reinterpret_cast<float4 *>(&C[r * N + c]) =
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
        }
    }
}
