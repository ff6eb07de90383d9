// launch-errors.cu: find out which launch configurations the GPU refuses.
//
//   nvcc -O2 -lineinfo launch-errors.cu -o launch-errors && ./launch-errors
//
// The program tries block sizes from the largest down and keeps the first
// that works, then checks the result against the CPU. It believes the
// first one (2048 threads) worked, and its answer is wrong.
//
// A launch (<<<...>>>) returns nothing. A bad configuration (more than 1024
// threads in a block, a zero or too-large dimension, too much shared
// memory) is refused at once: the kernel never runs, and the error waits
// in the runtime's "last error" slot. cudaDeviceSynchronize does not report
// it (nothing ran, so nothing failed while running): it returns cudaSuccess.
//
// TODO: read each launch's own error right after it, with the call that
// returns the last error AND clears it (so the next try starts clean).
// Keep the printf lines: cudojo checks what each try says.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}

#ifndef N
#define N 100000
#endif

// y[i] = 3 * i + 1
__global__ void fill(int *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 3 * i + 1;
}

int main(void)
{
    static const int blocks[] = {2048, 1025, 1024, 256};
    int *d_y, *h_y = (int *)malloc(N * sizeof(int));
    cudaCheck(cudaMalloc(&d_y, N * sizeof(int)));
    cudaCheck(cudaMemset(d_y, 0, N * sizeof(int)));

    int chosen = 0;
    for (int k = 0; k < 4 && !chosen; k++) {
        int block = blocks[k], grid = (N + block - 1) / block;
        fill<<<grid, block>>>(d_y, N);
        cudaError_t launch = cudaSuccess;           // TODO: the launch's own error
        cudaError_t sync = cudaDeviceSynchronize();
        printf("block %4d: launch %s, synchronize %s\n", block, cudaGetErrorName(launch), cudaGetErrorName(sync));
        if (launch == cudaSuccess && sync == cudaSuccess) chosen = block;
    }
    printf("chosen block: %d\n", chosen);

    cudaCheck(cudaMemcpy(h_y, d_y, N * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    long long sum = 0;
    for (int i = 0; i < N; i++) {
        if (h_y[i] != 3 * i + 1 && wrong++ == 0) printf("y[%d] = %d, want %d\n", i, h_y[i], 3 * i + 1);
        sum += h_y[i];
    }
    printf("sum of y: %lld\n", sum);
    printf("%s\n", wrong ? "FAIL" : "PASS");
    cudaCheck(cudaFree(d_y));
    free(h_y);
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
