// matmul-regs-2d.cu (solution): a block of 16 x 16 threads computes a
// 128 x 128 tile of C, each thread 8 x 8 outputs in registers. For each k a
// thread loads 8 values of A's column and 8 of B's row and forms all 64
// products: 16 shared-memory loads for 64 multiply-adds. Thread (tx, ty) owns
// rows ty + 16 i and columns tx + 16 j, so a half-warp reads 16 consecutive
// words: no bank conflicts.

#define BM 128                // a block computes a BM x BN tile of C
#define BN 128
#define BK 8                  // ... walking along K in steps of BK
#define TM 8                  // each thread computes TM x TN outputs
#define TN 8
// blockDim = (BN / TN, BM / TM) = (16, 16): 256 threads

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * 16 + tx;                                 // 0..255
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    float acc[TM][TN] = {};
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
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; i++) a[i] = As[ty + 16 * i][k];
#pragma unroll
            for (int j = 0; j < TN; j++) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a[i] * b[j];             // 64 FMAs for 16 loads
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
            if (r < M && c < N)
                C[r * N + c] = acc[i][j];
        }
}
