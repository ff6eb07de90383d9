// wmma-tile.cu: one 16 x 16 x 16 product on the tensor cores, C = A * B.
//
// A warp (32 threads) does the whole tile together with nvcuda::wmma:
//   1. fragments: wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>,
//      the same with matrix_b, and wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
//   2. wmma::fill_fragment(acc, 0.0f);
//   3. wmma::load_matrix_sync(frag, pointer, leading dimension);
//   4. wmma::mma_sync(acc, a, b, acc);
//   5. wmma::store_matrix_sync(pointer, acc, leading dimension, wmma::mem_row_major).
// Every call is made by all 32 threads with the same arguments.
//
// A, B and C are row-major 16 x 16 floats. The given code converts A and B
// to half precision in shared memory; fill in the TODO.
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

    // TODO: declare the three fragments, zero the accumulator, load a and b
    //       (both row-major, leading dimension 16), multiply, and store the
    //       accumulator to C (row-major, leading dimension 16).
}
