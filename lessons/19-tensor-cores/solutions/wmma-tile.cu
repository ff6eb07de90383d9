// wmma-tile.cu (solution): one 16 x 16 x 16 product on the tensor cores.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_tile(const float *A, const float *B, float *C)
{
    __shared__ __half a[16 * 16], b[16 * 16];
    for (int i = threadIdx.x; i < 256; i += 32) {
        a[i] = __float2half(A[i]);
        b[i] = __float2half(B[i]);
    }
    __syncwarp();

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(C, acc, 16, wmma::mem_row_major);
}
