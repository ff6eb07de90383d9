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
// elements each, one per thread.

#define BM 64
#define BN 64
#define BK 8
#define TM 8
#define TILE 32

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    // TODO 1: tiles As[BM][BK] and Bs[BK][BN]; row0 = blockIdx.y * BM and
    //         col0 = blockIdx.x * BN; the thread's number t in 0..511 picks one
    //         element of each tile to load (row t / BK, column t % BK of A's;
    //         row t / BN, column t % BN of B's), 0 outside the matrices.
    // TODO 2: float acc[TM] in registers; for each k of a tile, read Bs[k][tx]
    //         once and add its product with each of the thread's TM values of
    //         column k of As.
    // TODO 3: store the TM outputs that lie inside C.
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
        __syncthreads();                                  // everyone is done reading them
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}
