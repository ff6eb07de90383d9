// matmul-float4.cu: the 2D register-tiled kernel (the last exercise's
// solution) with 16-byte loads and stores. Same launch: blocks of 16 x 16
// threads, a 128 x 128 tile of C each, BK = 8.
//
// Each tile load here is 4 scalar loads per thread (8 global requests per
// warp and step), and each k 16 scalar reads of shared memory. A float4 moves
// 16 bytes with one instruction and one request. From this exercise on, N and
// K are multiples of 4, so every row of A and B starts on a 16-byte boundary
// and a float4 never straddles the edge of a matrix.

#define BM 128                // a block computes a BM x BN tile of C
#define BN 128
#define BK 8                  // ... walking along K in steps of BK
#define TM 8                  // each thread computes TM x TN outputs
#define TN 8
// blockDim = (BN / TN, BM / TM) = (16, 16): 256 threads

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    // TODO 1: keep A's tile transposed, As[BK][BM + 4] (As[k][m]; the 4 extra
    //         floats per row spread the transposed stores over the banks), and
    //         give both tiles __align__(16).
    // TODO 2: load each tile with ONE float4 per thread and step: A's at tile
    //         row t / 2, column 4 (t % 2) (its 4 floats go down a column of
    //         As), B's at tile row t / 32, column 4 (t % 32). K and N are
    //         multiples of 4: one guard per float4, zeros outside.
    // TODO 3: own the 8 x 8 block of rows 8 ty.. and columns 8 tx..; read the
    //         8 values of As and of Bs for each k as two float4 each.
    // TODO 4: store C as float4 (4 adjacent outputs of a row), inside C only.
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * 16 + tx;                                 // 0..255
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int q = 0; q < BM * BK / 256; q++) {         // 4 elements of each tile per thread
            int l = t + 256 * q;
            int ar = l / BK, ac = l % BK, br = l / BN, bc = l % BN;
            As[ar][ac] = (row0 + ar < M && k0 + ac < K) ? A[(row0 + ar) * K + k0 + ac] : 0.0f;
            Bs[br][bc] = (k0 + br < K && col0 + bc < N) ? B[(k0 + br) * N + col0 + bc] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; i++) a[i] = As[ty + 16 * i][k];
#pragma unroll
            for (int j = 0; j < TN; j++) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a[i] * b[j];             // 64 FMAs for 16 loads
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
            if (r < M && c < N)
                C[r * N + c] = acc[i][j];
        }
}
