// matmul-tiled.cu (typical mistake): the B tile is loaded with its indices
// swapped, B[(k0 + tx) * N + col] instead of row k0 + ty: every thread of a
// row of the block loads from a different row of B, and the tile no longer
// holds the 16 x 16 piece of B that the loop below expects.

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
        Bs[ty][tx] = (k0 + tx < K && col < N) ? B[(k0 + tx) * N + col] : 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}
