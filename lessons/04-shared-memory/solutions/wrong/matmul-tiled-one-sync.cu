// matmul-tiled.cu (typical mistake): only the first barrier. A fast warp
// finishes its 16 multiply-adds and loads the NEXT tiles over As and Bs while
// a slower warp is still reading the current ones: a write-after-read race.

#define TILE 16

extern "C" __global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}
