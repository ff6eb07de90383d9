// tests/conformance/algos.cu: the classic teaching kernels, whole: tree
// reduction, Blelloch scan, bitonic sort, tiled transpose, tiled SGEMM,
// shared-memory histogram, Monte Carlo pi with a hash RNG. The CPU references
// replay the same order of floating-point operations, so results are exact.

// Shared-memory tree reduction, one float per block (blockDim a power of two).
extern "C" __global__ void tree_reduce(const float *a, float *out, int n) {
    extern __shared__ float s[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// Work-efficient exclusive scan of 2 * blockDim.x ints per block (Blelloch).
extern "C" __global__ void blelloch_scan(const int *a, int *out, int n) {
    extern __shared__ int temp[];
    int t = threadIdx.x;
    int m = 2 * blockDim.x;
    int base = blockIdx.x * m;
    temp[2 * t] = base + 2 * t < n ? a[base + 2 * t] : 0;
    temp[2 * t + 1] = base + 2 * t + 1 < n ? a[base + 2 * t + 1] : 0;
    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (t == 0) temp[m - 1] = 0;
    for (int d = 1; d < m; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            int x = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += x;
        }
    }
    __syncthreads();
    if (base + 2 * t < n) out[base + 2 * t] = temp[2 * t];
    if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = temp[2 * t + 1];
}

// Bitonic sort of blockDim.x floats per block in shared memory (ascending).
extern "C" __global__ void bitonic_sort(const float *a, float *out, int n) {
    extern __shared__ float s[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? a[i] : 3.0e38f;
    __syncthreads();
    for (unsigned k = 2; k <= blockDim.x; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned p = t ^ j;
            if (p > (unsigned)t) {
                bool up = (t & k) == 0;
                float x = s[t], y = s[p];
                if ((x > y) == up) { s[t] = y; s[p] = x; }
            }
            __syncthreads();
        }
    }
    if (i < n) out[i] = s[t];
}

#define TILE 32
#define ROWS 8
// Tiled transpose through a padded shared tile (coalesced reads and writes).
// in is h x w, out is w x h. Block TILE x ROWS.
extern "C" __global__ void transpose_tiled(const float *in, float *out, int w, int h) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

#define BS 16
// C = A * B, A is m x k, B is k x n, row-major; 16 x 16 tiles.
extern "C" __global__ void sgemm_tiled(const float *A, const float *B, float *C, int m, int n, int k) {
    __shared__ float As[BS][BS];
    __shared__ float Bs[BS][BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * BS + ty, col = blockIdx.x * BS + tx;
    float acc = 0.0f;
    for (int t0 = 0; t0 < k; t0 += BS) {
        As[ty][tx] = (row < m && t0 + tx < k) ? A[row * k + t0 + tx] : 0.0f;
        Bs[ty][tx] = (col < n && t0 + ty < k) ? B[(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int q = 0; q < BS; q++) acc += As[ty][q] * Bs[q][tx];
        __syncthreads();
    }
    if (row < m && col < n) C[row * n + col] = acc;
}

#define BINS 64
// Histogram of bytes into 64 bins: shared atomics per block, then global atomics.
extern "C" __global__ void histogram_shared(const unsigned char *data, unsigned *hist, int n) {
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

__device__ __forceinline__ unsigned hash_u32(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// Monte Carlo pi: each thread draws `per_thread` points from a hash of
// (seed, thread, draw); hits are counted per block in shared memory.
extern "C" __global__ void monte_carlo(unsigned *hits, unsigned seed, int per_thread) {
    __shared__ unsigned block_hits;
    if (threadIdx.x == 0) block_hits = 0;
    __syncthreads();
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mine = 0;
    for (int k = 0; k < per_thread; k++) {
        unsigned h1 = hash_u32(seed ^ hash_u32(tid * 2654435761u + (unsigned)k));
        unsigned h2 = hash_u32(h1 + 0x9e3779b9u);
        float x = (float)(h1 >> 8) * (1.0f / 16777216.0f);
        float y = (float)(h2 >> 8) * (1.0f / 16777216.0f);
        if (x * x + y * y <= 1.0f) mine++;
    }
    atomicAdd(&block_hits, mine);
    __syncthreads();
    if (threadIdx.x == 0) hits[blockIdx.x] = block_hits;
}
