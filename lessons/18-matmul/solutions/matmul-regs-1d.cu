// matmul-regs-1d.cu (solution): a block of 64 x 8 threads computes a 64 x 64
// tile of C, each thread a column of TM = 8 outputs kept in registers. For
// each k a thread reads one value of B into a register and uses it 8 times:
// 9 shared-memory loads feed 8 multiply-adds, where one output per thread
// needed 2 loads for each.

#define BM 64                 // a block computes a BM x BN tile of C
#define BN 64
#define BK 8                  // ... walking along K in steps of BK
#define TM 8                  // each thread computes TM outputs of one column
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
