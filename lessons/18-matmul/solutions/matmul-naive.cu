// matmul-naive.cu (solution): one thread per element of C, the dot product of
// row `row` of A and column `col` of B read straight from global memory. The
// launch gives threadIdx.x to the row, so the 32 lanes of a warp work on 32
// different rows: every load of A touches 32 sectors (the next exercise
// fixes that).

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;      // the lanes of a warp: 32 rows
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
