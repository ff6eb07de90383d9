// matmul-regs-2d.cu: the 1D register-tiled kernel (the last exercise's
// solution) reuses each value of B 8 times, but still reads A once per
// multiply-add. Give each thread an 8 x 8 block of outputs instead: for each
// k, 8 values of A's column and 8 of B's row in registers make 64 products.
//
// The launch changes (it is given): blocks of 16 x 16 threads compute a
// 128 x 128 tile of C:
//
//   grid  = ((N + 127) / 128, (M + 127) / 128)     block = (16, 16)
//
// Thread (tx, ty) owns rows row0 + ty + 16 i and columns col0 + tx + 16 j
// (i, j = 0..7): 16 apart, so that a half-warp reads 16 consecutive words of
// shared memory (no bank conflicts).

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    // TODO 1: tiles of BM x BK (A) and BK x BN (B): 1024 elements each, so
    //         each of the 256 threads loads 4 of each (element t + 256 q for
    //         q = 0..3), 0 outside the matrices.
    // TODO 2: float acc[TM][TN]; for each k of a tile, load the thread's 8
    //         values of column k of As and 8 of row k of Bs into registers,
    //         then add all 64 products. #pragma unroll every loop.
    // TODO 3: store the outputs that lie inside C.
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][64];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * blockDim.x + tx;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * 64;
    int ar = t / BK, ac = t % BK;
    int br = t / 64, bc = t % 64;

    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[ar][ac] = (row0 + ar < M && k0 + ac < K) ? A[(row0 + ar) * K + k0 + ac] : 0.0f;
        Bs[br][bc] = (k0 + br < K && col0 + bc < N) ? B[(k0 + br) * N + col0 + bc] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float b = Bs[k][tx];                          // one load, used TM times
#pragma unroll
            for (int i = 0; i < TM; i++)
                acc[i] += As[ty * TM + i][k] * b;
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        int r = row0 + ty * TM + i, c = col0 + tx;
        if (r < M && c < N)
            C[r * N + c] = acc[i];
    }
}
