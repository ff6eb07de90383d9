// tests/programs/matmul_tiled.cu: a tiled matrix multiply C = A * B with
// 16x16 shared-memory tiles, sizes that are not multiples of the tile
// (guards on loads and stores), integer-valued floats so every product and
// sum is exact and the GPU must equal the CPU reference bit for bit.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

const int TILE = 16;

// A (M, K), B (K, N), C (M, N), row-major
__global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
        int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[kb * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

int main(void) {
    const int M = 70, N = 45, K = 33;
    std::vector<float> A(M * K), B(K * N), C(M * N), ref(M * N);
    for (int i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 11 - 5);
    for (int i = 0; i < K * N; i++) B[i] = (float)((i * 5) % 13 - 6);
    for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) {
            float s = 0;
            for (int k = 0; k < K; k++) s += A[r * K + k] * B[k * N + c];
            ref[r * N + c] = s;
        }
    float *dA, *dB, *dC;
    cudaCheck(cudaMalloc(&dA, A.size() * sizeof(float)));
    cudaCheck(cudaMalloc(&dB, B.size() * sizeof(float)));
    cudaCheck(cudaMalloc(&dC, C.size() * sizeof(float)));
    cudaCheck(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    double trace = 0, total = 0;
    for (int i = 0; i < M * N; i++) {
        bad += C[i] != ref[i];
        total += C[i];
    }
    for (int i = 0; i < N; i++) trace += C[i * N + i];
    printf("C = A (%dx%d) * B (%dx%d) on a %ux%u grid\n", M, K, K, N, grid.x, grid.y);
    printf("C[0][0] = %.0f, C[69][44] = %.0f, trace %.0f, total %.0f, mismatches %d\n", C[0], C[M * N - 1], trace,
           total, bad);
    cudaCheck(cudaFree(dA));
    cudaCheck(cudaFree(dB));
    cudaCheck(cudaFree(dC));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
