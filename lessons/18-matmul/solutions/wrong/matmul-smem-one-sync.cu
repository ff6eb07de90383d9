// matmul-smem-one-sync.cu (wrong): no barrier after the inner loop: a fast warp
// overwrites the tiles for the next step while others still read them (a race).

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
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();                                  // the tiles are complete

        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];                 // As: a broadcast, Bs: 32 banks
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}
