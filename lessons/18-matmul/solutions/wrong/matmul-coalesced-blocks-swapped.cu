// matmul-coalesced-blocks-swapped.cu (wrong): the thread mapping is fixed but the block
// indices are swapped too, while the launch still gives blockIdx.x to the rows:
// with M != N part of C is never written.

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;      // one row per warp
    int col = blockIdx.x * blockDim.x + threadIdx.x;      // 32 neighbouring columns
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
