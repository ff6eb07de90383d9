// tests/programs/vector_add.cu: the first CUDA program everyone writes —
// cudaMalloc, cudaMemcpy both ways, a <<<grid, block>>> launch with a
// bounds guard (n is not a multiple of the block), cudaGetLastError after
// the launch, a CPU reference, cudaFree.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main(void) {
    const int n = 10007; // prime: the last block is partly empty
    const size_t bytes = n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        a[i] = (float)(i % 100);
        b[i] = (float)(2 * (i % 37)) + 0.5f;
    }
    float *d_a, *d_b, *d_c;
    cudaCheck(cudaMalloc(&d_a, bytes));
    cudaCheck(cudaMalloc(&d_b, bytes));
    cudaCheck(cudaMalloc(&d_c, bytes));
    cudaCheck(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));

    const int block = 256;
    const int grid = (n + block - 1) / block;
    vector_add<<<grid, block>>>(d_a, d_b, d_c, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost));

    int bad = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        if (c[i] != a[i] + b[i]) bad++;
        sum += c[i];
    }
    printf("n = %d, grid = %d blocks of %d\n", n, grid, block);
    printf("c[0] = %.1f, c[n-1] = %.1f, sum = %.1f\n", c[0], c[n - 1], sum);
    printf("mismatches: %d\n", bad);

    cudaCheck(cudaFree(d_a));
    cudaCheck(cudaFree(d_b));
    cudaCheck(cudaFree(d_c));
    free(a); free(b); free(c);
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
