// matmul-float4.cu (solution): the 128 x 128 tile of the last exercise with
// 16-byte loads and stores. Each thread fetches ONE float4 of A's tile and one
// of B's per step (2 global requests per warp instead of 8), keeps A's tile
// transposed in shared memory (As[k][m]) so that the 8 values of a column a
// thread needs are adjacent, and reads its a and b as two float4 each: 4
// shared-memory requests for 64 multiply-adds. Thread (tx, ty) owns the 8 x 8
// block of rows 8 ty.. and columns 8 tx..: simple, but a quarter-warp's reads
// of Bs then hit each bank twice (the log shows the bank conflicts; the next
// exercise removes them). N and K must be multiples of 4, so every row starts
// on a 16-byte boundary.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define PAD 4                 // As rows of BM + 4 floats: the transposed stores hit 32 banks
// blockDim = (16, 16): 256 threads

extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ __align__(16) float As[BK][BM + PAD];       // A's tile, transposed: As[k][m]
    __shared__ __align__(16) float Bs[BK][BN];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * 16 + tx;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int ar = t / 2, ac = (t % 2) * 4;                     // A tile: 128 rows of 2 float4
    int br = t / 32, bc = (t % 32) * 4;                   // B tile: 8 rows of 32 float4

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        float4 av = make_float4(0.0f, 0.0f, 0.0f, 0.0f), bv = av;
        if (row0 + ar < M && k0 + ac < K)
            av = *reinterpret_cast<const float4 *>(&A[(row0 + ar) * K + k0 + ac]);
        if (k0 + br < K && col0 + bc < N)
            bv = *reinterpret_cast<const float4 *>(&B[(k0 + br) * N + col0 + bc]);
        As[ac + 0][ar] = av.x;
        As[ac + 1][ar] = av.y;
        As[ac + 2][ar] = av.z;
        As[ac + 3][ar] = av.w;
        *reinterpret_cast<float4 *>(&Bs[br][bc]) = bv;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float4 a0 = *reinterpret_cast<const float4 *>(&As[k][ty * TM]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[k][ty * TM + 4]);
            float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k][tx * TN]);
            float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k][tx * TN + 4]);
            float a[TM] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
            float b[TN] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        int r = row0 + ty * TM + i;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            int c = col0 + tx * TN + j;                   // N % 4 == 0: c < N means c + 3 < N
            if (r < M && c < N)
                *reinterpret_cast<float4 *>(&C[r * N + c]) =
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
        }
    }
}
