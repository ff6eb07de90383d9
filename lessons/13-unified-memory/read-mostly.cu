// read-mostly.cu: a table that the GPU and the host both read.
//
//   nvcc -O2 -lineinfo -DN=16777216 read-mostly.cu -o read-mostly && ./read-mostly
//
// A managed lookup table (N floats) is read by a kernel ITERS times; after
// each kernel the host reads the table too (here: its checksum, as a host
// step of an iterative method would). Without advice every page moves to
// the GPU for the kernel, back to the host for the host's read, and again
// to the GPU for the next kernel: a page fault and a migration per page,
// per iteration, per side.
//
// TODO: give the driver the advice that fits a table nobody writes, so that
// after the first kernel no page faults and nothing moves. cudojo counts
// the faults of every kernel and of the host's reads.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#ifndef N
#define N 1048576
#endif
#define ITERS 4

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// out[i] = 2 * table[i]: the kernel only reads the table
__global__ void lookup(const float *table, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * table[i];
}

int main(void)
{
    size_t bytes = (size_t)N * sizeof(float);
    int dev;
    cudaCheck(cudaGetDevice(&dev));   // the device for cudaMemAdvise's location
    float *table, *d_out;
    cudaCheck(cudaMallocManaged(&table, bytes));
    cudaCheck(cudaMalloc(&d_out, bytes));
    float *h_out = (float *)malloc(bytes);
    for (int i = 0; i < N; i++) table[i] = (float)(i % 1024) / 1024.0f;   // a ramp, exact in float

    // TODO: tell the driver that the table is only read from now on
    // (cudaMemAdvise), so that the GPU and the host may each keep a copy.

    double table_sum = 0, out_sum = 0;
    int wrong = 0;
    for (int it = 0; it < ITERS; it++) {
        lookup<<<(N + 255) / 256, 256>>>(table, d_out, N);
        cudaCheck(cudaGetLastError());
        cudaCheck(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
        table_sum = 0;
        for (int i = 0; i < N; i++) {         // the host reads the table too
            table_sum += table[i];
            if (h_out[i] != 2.0f * table[i] && wrong++ == 0)
                printf("iteration %d: out[%d] = %f, want %f\n", it, i, h_out[i], 2.0f * table[i]);
        }
    }
    for (int i = 0; i < N; i++) out_sum += h_out[i];
    printf("table checksum %.4f\n", table_sum);
    printf("sum of out: %.4f\n", out_sum);
    cudaCheck(cudaFree(table));
    cudaCheck(cudaFree(d_out));
    free(h_out);
    if (wrong) {
        printf("FAIL: %d wrong\n", wrong);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
