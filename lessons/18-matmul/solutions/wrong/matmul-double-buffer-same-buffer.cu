// matmul-double-buffer-same-buffer.cu (wrong): the next tile is stored into the buffer
// being read (cur, never swapped): with one barrier per step, a fast warp
// overwrites values a slower one has not read yet (a race).

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define WM 64
#define WN 32
#define PAD 4
// blockDim = (16, 16): 256 threads, 8 warps

// A float4 of global memory, or zeros outside the matrix.
__device__ __forceinline__ float4 load_float4(const float *p, bool inside)
{
    return inside ? *reinterpret_cast<const float4 *>(p) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

extern "C" __global__ void __launch_bounds__(256, 2)
sgemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(16) float As[2][BK][BM + PAD];
    __shared__ __align__(16) float Bs[2][BK][BN];
    int t = threadIdx.y * 16 + threadIdx.x;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int warp = t / 32, lane = t % 32;
    int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    int ly = lane / 4, lx = lane % 4;
    int ar = t / 2, ac = (t % 2) * 4;
    int br = t / 32, bc = (t % 32) * 4;
    bool a_rows = row0 + ar < M, b_cols = col0 + bc < N;
    int a_at = (row0 + ar) * K + ac;                      // where this thread's float4s are
    int b_at = br * N + col0 + bc;

    // Tile 0 into buffer 0.
    float4 av = load_float4(A + a_at, a_rows && ac < K);
    float4 bv = load_float4(B + b_at, b_cols && br < K);
    As[0][ac + 0][ar] = av.x;
    As[0][ac + 1][ar] = av.y;
    As[0][ac + 2][ar] = av.z;
    As[0][ac + 3][ar] = av.w;
    *reinterpret_cast<float4 *>(&Bs[0][br][bc]) = bv;
    __syncthreads();

    float acc[TM][TN] = {};
    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        bool more = k0 + BK < K;
        if (more) {                                       // start loading the next tile
            a_at += BK;
            b_at += BK * N;
            av = load_float4(A + a_at, a_rows && k0 + BK + ac < K);
            bv = load_float4(B + b_at, b_cols && k0 + BK + br < K);
        }

#pragma unroll
        for (int k = 0; k < BK; k++) {                    // multiply out the current one
            float4 a0 = *reinterpret_cast<const float4 *>(&As[cur][k][wm + 4 * ly]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[cur][k][wm + 32 + 4 * ly]);
            float4 b0 = *reinterpret_cast<const float4 *>(&Bs[cur][k][wn + 4 * lx]);
            float4 b1 = *reinterpret_cast<const float4 *>(&Bs[cur][k][wn + 16 + 4 * lx]);
            float a[TM] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
            float b[TN] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a[i] * b[j];
        }

        if (more) {                                       // the next tile into the other buffer
            int nxt = cur;
            As[nxt][ac + 0][ar] = av.x;
            As[nxt][ac + 1][ar] = av.y;
            As[nxt][ac + 2][ar] = av.z;
            As[nxt][ac + 3][ar] = av.w;
            *reinterpret_cast<float4 *>(&Bs[nxt][br][bc]) = bv;
        }
        __syncthreads();                                  // the one barrier per step
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        int r = row0 + wm + 32 * (i / 4) + 4 * ly + i % 4;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            int c = col0 + wn + 16 * (j / 4) + 4 * lx;
            if (r < M && c < N)
                *reinterpret_cast<float4 *>(&C[r * N + c]) =
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
        }
    }
}
