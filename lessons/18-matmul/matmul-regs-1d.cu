// matmul-regs-1d.cu: the shared-memory kernel (the last exercise's solution)
// computes one output per thread, and for each multiply-add reads two floats
// from shared memory: shared memory, not arithmetic, limits it.
//
// Make each thread compute TM = 8 outputs of one column, in registers. The
// launch changes (it is given): blocks of 64 x 8 threads compute a 64 x 64
// tile of C, walking along K in steps of BK = 8:
//
//   grid  = ((N + 63) / 64, (M + 63) / 64)     blockIdx.x: columns, blockIdx.y: rows
//   block = (64, 8)                            thread (tx, ty): column col0 + tx,
//                                              rows row0 + 8 ty .. row0 + 8 ty + 7
//
// The A tile is then BM x BK = 64 x 8 and the B tile BK x BN = 8 x 64: 512
// elements each, one per thread. This starter is the last exercise's kernel
// moved to that launch: the new tiles are loaded, but each thread still
// computes ONE output, row row0 + ty, so only 8 of the tile's 64 rows of C
// are written.

#define BM 64                 // a block computes a BM x BN tile of C
#define BN 64
#define BK 8                  // ... walking along K in steps of BK
#define TM 8                  // each thread is to compute TM outputs of one column
// blockDim = (BN, BM / TM) = (64, 8): 512 threads

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * BN + tx;                                 // 0..511
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int ar = t / BK, ac = t % BK;                         // this thread's element of the A tile
    int br = t / BN, bc = t % BN;                         // ... and of the B tile

    // TODO 1: an array of TM accumulators, all 0, instead of one: the thread's
    //         outputs are rows row0 + ty * TM + i (i = 0..TM-1) of column col0 + tx.
    // TODO 2: for each k of a tile, read Bs[k][tx] once into a register and
    //         add its product with As[ty * TM + i][k] to acc[i], for every i.
    //         #pragma unroll the loops over i, so acc stays in registers.
    // TODO 3: store the TM outputs that lie inside C.
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[ar][ac] = (row0 + ar < M && k0 + ac < K) ? A[(row0 + ar) * K + k0 + ac] : 0.0f;
        Bs[br][bc] = (k0 + br < K && col0 + bc < N) ? B[(k0 + br) * N + col0 + bc] : 0.0f;
        __syncthreads();                                  // the tiles are complete

        for (int k = 0; k < BK; k++)
            acc += As[ty][k] * Bs[k][tx];                 // one output: row row0 + ty
        __syncthreads();                                  // everyone is done reading them
    }

    int r = row0 + ty, c = col0 + tx;
    if (r < M && c < N)
        C[r * N + c] = acc;
}
