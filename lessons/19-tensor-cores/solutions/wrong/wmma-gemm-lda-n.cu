// wmma-gemm-lda-n.cu (wrong): A's leading dimension given as N instead of K: right only when N == K. Otherwise: one warp
// per 16 x 16 tile of C (blockDim = 32, grid = (N / 16, M / 16)).
//
// A (M x K) and B (K x N) are row-major half-precision matrices (the given
// kernel to_half made them); C (M x N) is float. The warp of block
// (bx, by) owns the tile whose top-left corner is row 16 * by, column 16 * bx:
//
//     acc = 0
//     for k0 = 0, 16, 32, ... < K:
//         acc += A[16 by .. 16 by + 15][k0 .. k0 + 15] * B[k0 .. k0 + 15][16 bx .. 16 bx + 15]
//
// load_matrix_sync takes a pointer to a tile's first element and the leading
// dimension of the whole matrix (the distance between two rows: K for A, N for B).
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_gemm(const __half *A, const __half *B, float *C, int M, int N, int K)
{
    int row0 = 16 * blockIdx.y, col0 = 16 * blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    for (int k0 = 0; k0 < K; k0 += 16) {
        wmma::load_matrix_sync(fa, A + row0 * K + k0, N);
        wmma::load_matrix_sync(fb, B + k0 * N + col0, N);
        wmma::mma_sync(acc, fa, fb, acc);
    }

    wmma::store_matrix_sync(C + row0 * N + col0, acc, N, wmma::mem_row_major);
}

// ---- given: float -> half, one element per thread ----------------------------
extern "C" __global__ void to_half(const float *x, __half *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2half(x[i]);
}
