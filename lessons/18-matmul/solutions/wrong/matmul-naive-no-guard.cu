// matmul-naive-no-guard.cu (wrong): no test that (row, col) lies inside C: the
// threads of the rounded-up blocks read and write past the matrices.

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;      // the lanes of a warp: 32 rows
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
