// matmul-tiled.cu (typical mistake): threads outside C return at the start.
// But they were needed to load their share of the tiles (and to reach the
// barriers): the edge tiles keep stale values and the remaining threads wait
// at a __syncthreads() that part of the block never reaches.

#define TILE 16

extern "C" __global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    if (row >= M || col >= N)
        return;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = k0 + tx < K ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = k0 + ty < K ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }

    C[row * N + col] = acc;
}
