// tensor-vs-simt.cu (solution): the tensor cores against chapter 11's SIMT SGEMM.
//
// sgemm (given, chapter 11's solution) computes a 64 x 64 tile of C per
// block of 256 threads with FP32 multiply-adds. wmma_gemm_32 is yours: one
// warp per 32 x 32 tile of C, i.e. a 2 x 2 grid of 16 x 16 accumulators.
// Per step along K the warp loads two A fragments (rows 0-15 and 16-31 of
// its tile) and two B fragments (columns 0-15 and 16-31) and does all four
// products: 4 mma_sync for 4 loads, where one tile per warp needs 2 loads
// per mma_sync.
//
//      acc[i][j] += a[i] * b[j]     for i, j in {0, 1}
//
// blockDim = 32, grid = (N / 32, M / 32); M, N, K multiples of 32 and 16.
// On a GPU the test times both kernels on 4096^3 (the tensor cores must be
// at least twice as fast); on the emulator it counts warp instructions.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_gemm_32(const __half *A, const __half *B, float *C, int M, int N, int K)
{
    int row0 = 32 * blockIdx.y, col0 = 32 * blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; i++)                    // acc[i][j] = 0
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = 0; i < 2; i++) wmma::load_matrix_sync(a[i], A + (row0 + 16 * i) * K + k0, K);
        for (int j = 0; j < 2; j++) wmma::load_matrix_sync(b[j], B + k0 * N + col0 + 16 * j, N);
        for (int i = 0; i < 2; i++)                // acc[i][j] += a[i] * b[j]
            for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    for (int i = 0; i < 2; i++)                    // each tile at its corner
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(C + (row0 + 16 * i) * N + col0 + 16 * j, acc[i][j], N, wmma::mem_row_major);
}

// ---- given ---------------------------------------------------------------------
extern "C" __global__ void to_half(const float *x, __half *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2half(x[i]);
}

// Chapter 11's register-tiled SGEMM: 64 x 64 tile per block of 16 x 16 threads, 4 x 4 outputs each.
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4
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
            for (int i = 0; i < TM; i++) a[i] = As[ty + 16 * i][k];
            for (int j = 0; j < TN; j++) b[j] = Bs[k][tx + 16 * j];
            for (int i = 0; i < TM; i++)
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a[i] * b[j];             // 16 FMAs for 8 loads
        }
        __syncthreads();                                  // before the next tiles overwrite these
    }

    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++) {
            int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
            if (r < M && c < N)
                C[r * N + c] = acc[i][j];
        }
}
