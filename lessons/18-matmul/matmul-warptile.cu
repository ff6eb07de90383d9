// matmul-warptile.cu: the float4 kernel (the last exercise's solution),
// same launch. Its thread (tx, ty) owns the 8 x 8 block at rows 8 ty..,
// columns 8 tx..; the 32 threads of a warp (two values of ty) cover 2 x 8
// rows and all 128 columns of the block's tile. Per k a warp reads 16
// different float4 of Bs, and each quarter-warp hits every bank twice (the
// emulator's bank conflicts).
//
// Arrange the 256 threads by warp instead: the 8 warps form a 2 x 4 grid of
// 64 x 32 warp tiles; in a warp, lane (ly, lx) = (lane / 4, lane % 4) owns
//
//   rows    wm + 32 i2 + 4 ly + 0..3      (i2 = 0, 1)
//   columns wn + 16 j2 + 4 lx + 0..3      (j2 = 0, 1)
//
// of the block's tile, where (wm, wn) is where its warp's tile starts. The
// store of C is left out of this starter (TODO 3): it has to follow the new
// arrangement, so C stays unwritten until you write it.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define WM 64                 // a warp computes a WM x WN tile of C
#define WN 32
#define PAD 4                 // As rows of BM + 4 floats: the transposed stores hit 32 banks
// blockDim = (16, 16): 256 threads

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ __align__(16) float As[BK][BM + PAD];       // A's tile, transposed: As[k][m]
    __shared__ __align__(16) float Bs[BK][BN];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * 16 + tx;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int ar = t / 2, ac = (t % 2) * 4;                     // A tile: 128 rows of 2 float4
    int br = t / 32, bc = (t % 32) * 4;                   // B tile: 8 rows of 32 float4

    // TODO 1: the warp's tile: warp t / 32 of the 8 starts at row 64 (warp / 4)
    //         and column 32 (warp % 4) of the block's tile; lane (lane / 4,
    //         lane % 4) computes four 4 x 4 sub-tiles of it, 32 rows and 16
    //         columns apart.
    // TODO 2: read each k's two float4 of As and two of Bs at those places
    //         instead of 8 ty and 8 tx.
    // TODO 3: the store, below.
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
            float4 a0 = *reinterpret_cast<const float4 *>(&As[k][ty * TM]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[k][ty * TM + 4]);
            float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k][tx * TN]);
            float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k][tx * TN + 4]);
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

    // TODO 3: store each acc[i][j] at its new row and column of C, as float4
    //         (4 adjacent columns), inside C only. This starter stores
    //         nothing: with the outputs rearranged, the last exercise's store
    //         would put them in the wrong places.
}
