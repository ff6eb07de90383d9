// sgemm-tiled.cu (typical mistake): the rows and columns of a thread's
// outputs are swapped: thread (tx, ty) takes rows tx + 16 i and columns
// ty + 16 j. The result is right, but the 16 lanes of a half-warp now read
// As[tx + 16 i][k]: 16 rows 64 bytes apart, all in banks k and k + 16. ptxas
// merges the 4 k-steps of a row into one 128-bit LDS.128, and each quarter
// of the warp (8 lanes, 8 rows) still lands on the same 4 banks: 4-way bank
// conflicts on every load of a (cuobjdump -sass: 16 LDS.128, as in the
// solution; the conflicts stay). The stores to C are uncoalesced too.

#define BM 64                 // a block computes a BM x BN tile of C
#define BN 64
#define BK 16                 // ... walking along K in steps of BK
#define TM 4                  // each thread computes TM x TN outputs
#define TN 4
// blockDim = (BN / TN, BM / TM) = (16, 16): 256 threads

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[BM][BK];              // A tile: 64 rows x 16
    __shared__ float Bs[BK][BN];              // B tile: 16 x 64 columns
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * blockDim.x + tx;             // 0..255
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int l = t; l < BM * BK; l += 256) {          // 4 loads each, 0 outside A
            int r = l / BK, c = l % BK;
            As[r][c] = (row0 + r < M && k0 + c < K) ? A[(row0 + r) * K + k0 + c] : 0.0f;
        }
        for (int l = t; l < BK * BN; l += 256) {          // 4 loads each, 0 outside B
            int r = l / BN, c = l % BN;
            Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(k0 + r) * N + col0 + c] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[TM], b[TN];
            for (int i = 0; i < TM; i++) a[i] = As[tx + 16 * i][k];
            for (int j = 0; j < TN; j++) b[j] = Bs[k][ty + 16 * j];
            for (int i = 0; i < TM; i++)
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a[i] * b[j];             // 16 FMAs for 8 loads
        }
        __syncthreads();                                  // before the next tiles overwrite these
    }

    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++) {
            int r = row0 + tx + 16 * i, c = col0 + ty + 16 * j;
            if (r < M && c < N)
                C[r * N + c] = acc[i][j];
        }
}

// ---- given: measures your GPU's FP32 peak (leave it as it is) ---------------
// Eight independent chains of multiply-adds per thread: no memory traffic, and
// enough independent work to keep every FP32 unit busy.
extern "C" __global__ void fma_peak(float *out, int iters)
{
    float a0 = threadIdx.x * 1e-3f, a1 = a0 + 0.1f, a2 = a0 + 0.2f, a3 = a0 + 0.3f;
    float a4 = a0 + 0.4f, a5 = a0 + 0.5f, a6 = a0 + 0.6f, a7 = a0 + 0.7f;
    const float m = 0.999f, c = 1e-3f;
#pragma unroll 4
    for (int k = 0; k < iters; k++) {
        a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;
        a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
