// tests/bugs/race_transpose_missing_sync.cu: a tiled transpose with no
// __syncthreads() between filling the tile and reading it back transposed:
// threads read tile entries other warps have not written yet.
// LAUNCH: grid=2x2 block=32x8 n=4096
#define TILE 32
extern "C" __global__ void race_transpose_missing_sync(float *in, float *out, int n) {
    __shared__ float tile[TILE][TILE + 1];
    int w = 64;
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        out[(y + j) * w + x] = tile[threadIdx.x][threadIdx.y + j]; // BUG: race-shared
}
