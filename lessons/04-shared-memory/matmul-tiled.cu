// matmul-tiled.cu: C = A * B with A M x K, B K x N, C M x N (row-major), here
// 75 x 61 times 61 x 93. Each 16 x 16 block computes a 16 x 16 tile of C. It
// walks along K one 16-wide step at a time: the block loads a 16 x 16 tile of A
// and one of B into shared memory (one element per thread), and every thread
// then uses 16 values of each from there. Target on the emulator: at most
// 2 * ceil(K / 16) + 1 global requests per warp (the plain kernel needs 2K + 1).

#define TILE 16

extern "C" __global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // row of C (and of A)
    int col = blockIdx.x * TILE + tx;   // column of C (and of B)

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        // TODO: load As[ty][tx] = A[row][k0 + tx] and Bs[ty][tx] = B[k0 + ty][col],
        //       storing 0 where the index is outside A or B (M, N and K are not
        //       multiples of 16).
        As[ty][tx] = 0.0f;
        Bs[ty][tx] = 0.0f;

        // TODO: barriers. Before the loop below every tile must be complete,
        //       and no thread may overwrite As/Bs while others still read them.

        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}
