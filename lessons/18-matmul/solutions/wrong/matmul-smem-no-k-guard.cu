// matmul-smem-no-k-guard.cu (wrong): A's tile is loaded without testing k0 + tx < K:
// in the last step (K not a multiple of 32) it takes the next row's values.

#define TILE 32

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.x * TILE + ty;
    int col = blockIdx.y * TILE + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (row < M) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();                                  // the tiles are complete

        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];                 // As: a broadcast, Bs: 32 banks
        __syncthreads();                                  // everyone is done reading them
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}
