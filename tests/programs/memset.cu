// tests/programs/memset.cu: cudaMemset sets bytes, not elements (0x01 in an
// int is 16843009); cudaMemsetAsync on a stream at an offset; cudaMemset2D on
// a pitched allocation; a memset after a kernel is ordered after it on the
// default stream.
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

__global__ void fill_index(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = i;
}

int main(void) {
    const int n = 1000;
    int *d_x;
    int h[n];
    int ok = 1;
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));

    cudaCheck(cudaMemset(d_x, 0, n * sizeof(int)));
    cudaCheck(cudaMemcpy(h, d_x, sizeof h, cudaMemcpyDeviceToHost));
    long s = 0;
    for (int i = 0; i < n; i++) s += h[i];
    printf("after memset 0: sum = %ld\n", s);
    ok &= s == 0;

    cudaCheck(cudaMemset(d_x, 1, n * sizeof(int)));
    cudaCheck(cudaMemcpy(h, d_x, sizeof h, cudaMemcpyDeviceToHost));
    printf("after memset 1: x[0] = %d (0x%08x), x[999] = %d\n", h[0], (unsigned)h[0], h[999]);
    ok &= h[0] == 0x01010101 && h[999] == 0x01010101;

    // 0xff bytes are -1 as an int; the value is an int but only its low byte is used
    cudaCheck(cudaMemset(d_x, 0x1ff, 10 * sizeof(int)));
    cudaCheck(cudaMemcpy(h, d_x, sizeof h, cudaMemcpyDeviceToHost));
    printf("after memset 0x1ff on 10 ints: x[9] = %d, x[10] = %d\n", h[9], h[10]);
    ok &= h[9] == -1 && h[10] == 0x01010101;

    // a kernel then a memset of the middle, both on the default stream, in order
    fill_index<<<(n + 127) / 128, 128>>>(d_x, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemset(d_x + 100, 0, 50 * sizeof(int)));
    cudaCheck(cudaMemcpy(h, d_x, sizeof h, cudaMemcpyDeviceToHost));
    s = 0;
    for (int i = 0; i < n; i++) s += h[i];
    printf("kernel then memset of [100,150): x[99] = %d, x[100] = %d, x[149] = %d, x[150] = %d, sum = %ld\n",
           h[99], h[100], h[149], h[150], s);
    ok &= s == 499500 - (100 + 149) * 50 / 2;

    // cudaMemsetAsync on a stream, one byte into an element: the byte order shows
    cudaStream_t st;
    cudaCheck(cudaStreamCreate(&st));
    cudaCheck(cudaMemsetAsync((char *)d_x + 1, 0xab, 1, st));
    cudaCheck(cudaMemsetAsync(d_x + 2, 0x7f, 2 * sizeof(int), st));
    cudaCheck(cudaStreamSynchronize(st));
    cudaCheck(cudaMemcpy(h, d_x, 4 * sizeof(int), cudaMemcpyDeviceToHost));
    printf("memsetAsync: x[0] = 0x%08x, x[1] = %d, x[2] = 0x%08x, x[3] = 0x%08x\n",
           (unsigned)h[0], h[1], (unsigned)h[2], (unsigned)h[3]);
    ok &= h[0] == 0xab00 && h[1] == 1 && h[2] == 0x7f7f7f7f && h[3] == 0x7f7f7f7f;
    cudaCheck(cudaStreamDestroy(st));

    // cudaMemset2D: 3 rows of 5 bytes in a pitched buffer; the padding keeps its old value
    char *d_p;
    size_t pitch;
    cudaCheck(cudaMallocPitch((void **)&d_p, &pitch, 5, 3));
    cudaCheck(cudaMemset2D(d_p, pitch, '.', pitch, 3));
    cudaCheck(cudaMemset2D(d_p, pitch, '#', 5, 3));
    char rows[3][8];
    cudaCheck(cudaMemcpy2D(rows, 8, d_p, pitch, 7, 3, cudaMemcpyDeviceToHost));
    for (int r = 0; r < 3; r++) {
        rows[r][7] = 0;
        printf("row %d: %s\n", r, rows[r]);
        ok &= rows[r][4] == '#' && rows[r][5] == '.';
    }
    cudaCheck(cudaFree(d_p));
    cudaCheck(cudaFree(d_x));
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
