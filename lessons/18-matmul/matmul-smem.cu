// matmul-smem.cu: the coalesced kernel (the last exercise's solution), same
// launch. Each thread still reads its row of A and column of B from global
// memory, 2 K loads per output, although the 32 warps of the block read the
// same 32 columns of B and the 32 lanes of a warp the same row of A.
//
// Stage the data in shared memory instead: in steps of TILE along K, the
// block loads a 32 x 32 tile of A (its rows, columns k0..k0+31) and one of B
// (rows k0..k0+31, its columns), one element of each per thread, then every
// thread does its 32 multiply-adds from the tiles.

#define TILE 32

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.x * blockDim.y + threadIdx.y;      // one row per warp
    int col = blockIdx.y * blockDim.x + threadIdx.x;      // 32 neighbouring columns
    // TODO 1: two __shared__ float tiles of TILE x TILE, one for A and one for B.
    // TODO 2: replace the loop below by a loop over steps k0 = 0, TILE, 2 TILE...:
    //         each thread stores one element of each tile (thread (tx, ty) at
    //         [ty][tx]; 0 where the element lies outside A or B: K need not be a
    //         multiple of TILE), waits at a barrier, adds its TILE products from
    //         the tiles, and waits again before the next step overwrites them.
    //         Every thread must reach every barrier: no early return.
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
