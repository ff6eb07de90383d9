// matmul-coalesced-no-guard.cu (wrong): the guard tests the row only: in the last
// column of blocks (N = 45) threads past the last column write into the next row.

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.x * blockDim.y + threadIdx.y;      // one row per warp
    int col = blockIdx.y * blockDim.x + threadIdx.x;      // 32 neighbouring columns
    if (row < M) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
