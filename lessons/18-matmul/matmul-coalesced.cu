// matmul-coalesced.cu: the naive kernel (the last exercise's solution), same
// launch: blocks of 32 x 32 threads, blockIdx.x picks 32 rows of C and
// blockIdx.y 32 columns. Only the mapping of threads inside the block changes.
//
// The lanes of a warp are 32 consecutive threadIdx.x. Here they take 32
// different rows: each load of A[row * K + k] touches 32 sectors of 32 bytes
// (the emulator's sectors per request), each store of C too.

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    // TODO: give threadIdx.x to the column and threadIdx.y to the row, so that
    //       a warp shares one row and covers 32 neighbouring columns. The block
    //       still covers rows blockIdx.x * 32.. and columns blockIdx.y * 32.
    int row = blockIdx.x * blockDim.x + threadIdx.x;      // the lanes of a warp: 32 rows
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
