// matmul-regs-2d.cu: the 1D register-tiled kernel (the last exercise's
// solution) reuses each value of B 8 times, but still reads A once per
// multiply-add. Give each thread an 8 x 8 block of outputs instead: for each
// k, 8 values of A's column and 8 of B's row in registers make 64 products.
//
// The launch changes (it is given): blocks of 16 x 16 threads compute a
// 128 x 128 tile of C:
//
//   grid  = ((N + 127) / 128, (M + 127) / 128)     block = (16, 16)
//
// Thread (tx, ty) is to own rows row0 + ty + 16 i and columns col0 + tx + 16 j
// (i, j = 0..7): 16 apart, so that a half-warp reads 16 consecutive words of
// shared memory (no bank conflicts). This starter is the last exercise's
// kernel moved to that launch: the 128 x 8 and 8 x 128 tiles are loaded (4
// elements of each per thread), but each thread still computes 8 outputs of
// ONE column, col0 + tx, so only 16 of the tile's 128 columns of C are written.

#define BM 128                // a block computes a BM x BN tile of C
#define BN 128
#define BK 8                  // ... walking along K in steps of BK
#define TM 8                  // each thread is to compute TM x TN outputs
#define TN 8
// blockDim = (BN / TN, BM / TM) = (16, 16): 256 threads

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * 16 + tx;                                 // 0..255
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    // TODO 1: TM x TN accumulators instead of TM: the thread's outputs are
    //         rows row0 + ty + 16 i and columns col0 + tx + 16 j (i, j = 0..7).
    // TODO 2: for each k of a tile, load a[i] = As[ty + 16 i][k] and
    //         b[j] = Bs[k][tx + 16 j] into registers (16 loads), then add all
    //         64 products a[i] * b[j]. #pragma unroll every loop.
    // TODO 3: store the outputs that lie inside C.
    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int q = 0; q < BM * BK / 256; q++) {         // 4 elements of each tile per thread
            int l = t + 256 * q;
            int ar = l / BK, ac = l % BK, br = l / BN, bc = l % BN;
            As[ar][ac] = (row0 + ar < M && k0 + ac < K) ? A[(row0 + ar) * K + k0 + ac] : 0.0f;
            Bs[br][bc] = (k0 + br < K && col0 + bc < N) ? B[(k0 + br) * N + col0 + bc] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float b = Bs[k][tx];                          // one load, used TM times
#pragma unroll
            for (int i = 0; i < TM; i++)
                acc[i] += As[ty * TM + i][k] * b;         // one column: col0 + tx
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        int r = row0 + ty * TM + i, c = col0 + tx;
        if (r < M && c < N)
            C[r * N + c] = acc[i];
    }
}
