// matmul-naive.cu: C = A * B in single precision (SGEMM), row-major: A is
// M x K, B is K x N, C is M x N. The first of eight steps towards cuBLAS's
// speed; each next exercise starts from this one's solution.
//
// One thread per element of C. The launch (given) has blocks of 32 x 32
// threads and gives threadIdx.x to the ROW:
//
//   row = blockIdx.x * 32 + threadIdx.x      col = blockIdx.y * 32 + threadIdx.y
//
// The grid is rounded up to whole blocks, so some threads lie outside C.

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;      // the lanes of a warp: 32 rows
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    // TODO: for a (row, col) inside C only, add up the K products of row `row` of
    //       A with column `col` of B in a register, then store the sum at (row, col).
}
