// matmul-naive-b-transposed.cu (wrong): B read as if it were stored by columns
// (B[col * K + k]): the product of A with B's transpose, wrong unless B is symmetric.

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;      // the lanes of a warp: 32 rows
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[row * K + k] * B[col * K + k];
        C[row * N + col] = acc;
    }
}
