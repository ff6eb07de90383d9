// matmul-coalesced.cu (solution): the same dot products, but threadIdx.x now
// picks the column. The 32 lanes of a warp share one row: their loads of A
// are one address (a broadcast, 1 sector), their loads of B and stores of C
// 32 neighbouring floats (4 sectors), where the naive mapping touched 32.

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.x * blockDim.y + threadIdx.y;      // one row per warp
    int col = blockIdx.y * blockDim.x + threadIdx.x;      // 32 neighbouring columns
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
