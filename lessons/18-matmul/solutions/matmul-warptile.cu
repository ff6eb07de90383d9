// matmul-warptile.cu (solution): the float4 kernel with its 256 threads
// arranged by warp. The 8 warps of a block form a 2 x 4 grid of 64 x 32 warp
// tiles; in a warp, lane (ly, lx) = (lane / 4, lane % 4) computes four 4 x 4
// sub-tiles, 32 rows and 16 columns apart:
//
//   rows    wm + 32 i2 + 4 ly + 0..3      (i2 = 0, 1)
//   columns wn + 16 j2 + 4 lx + 0..3      (j2 = 0, 1)
//
// A warp now reads 8 float4 of As and 4 of Bs per k (the last exercise: 2 and
// 16), each quarter-warp 16 consecutive words of Bs: no bank conflicts, fewer
// bytes through shared memory, and the warp's 64 x 32 outputs are close
// together in C.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define WM 64                 // a warp computes a WM x WN tile of C
#define WN 32
#define PAD 4
// blockDim = (16, 16): 256 threads, 8 warps

extern "C" __global__ void __launch_bounds__(256, 2)
sgemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(16) float As[BK][BM + PAD];
    __shared__ __align__(16) float Bs[BK][BN];
    int t = threadIdx.y * 16 + threadIdx.x;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int warp = t / 32, lane = t % 32;
    int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;   // this warp's tile
    int ly = lane / 4, lx = lane % 4;                     // this lane's place in it
    int ar = t / 2, ac = (t % 2) * 4;
    int br = t / 32, bc = (t % 32) * 4;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        float4 av = make_float4(0.0f, 0.0f, 0.0f, 0.0f), bv = av;
        if (row0 + ar < M && k0 + ac < K)
            av = *reinterpret_cast<const float4 *>(&A[(row0 + ar) * K + k0 + ac]);
        if (k0 + br < K && col0 + bc < N)
            bv = *reinterpret_cast<const float4 *>(&B[(k0 + br) * N + col0 + bc]);
        As[ac + 0][ar] = av.x;
        As[ac + 1][ar] = av.y;
        As[ac + 2][ar] = av.z;
        As[ac + 3][ar] = av.w;
        *reinterpret_cast<float4 *>(&Bs[br][bc]) = bv;
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
