// sticky-error.cu: tell an error you can step over from one that ends the context.
//
//   nvcc -O2 -lineinfo sticky-error.cu -o sticky-error && ./sticky-error
//
// The program runs five jobs. Each scales the input by its number j on the
// GPU and prints the sum. Two jobs go wrong:
//   job 2 asks for a 2048-thread block: the launch is refused
//         (cudaErrorInvalidValue). Nothing ran, nothing broke: the next job
//         can run.
//   job 4 gets a NULL input: its kernel faults (cudaErrorIllegalAddress).
//         A fault is STICKY: the CUDA context is broken, and every later
//         call in this process fails with the same error. The only ways
//         back are cudaDeviceReset (NVIDIA documents that the process
//         should be terminated and relaunched) or a new process.
// The program treats every error like job 2's: it reports it and goes on,
// so after job 4 it keeps "running" jobs that cannot run, and it exits
// with status 0 as if all was well.
//
// is_sticky(err) clears the last error and asks again with a call that
// waits for the device: an error that is still there ended the context,
// and the program stops with EXIT_FAILURE after freeing its host memory.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#ifndef N
#define N 8192
#endif
#define JOBS 5

__global__ void scale(const float *x, float *y, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = s * x[i];
}

// Whether `err` ended the CUDA context (it persists after being cleared).
static bool is_sticky(cudaError_t err)
{
    if (err == cudaSuccess) return false;
    cudaGetLastError();                             // clear the slot
    return cudaDeviceSynchronize() != cudaSuccess;  // still failing: the context is gone
}

// Runs job j into h_y; returns the first error.
static cudaError_t run_job(int j, const float *d_x, float *d_y, float *h_y, int block)
{
    scale<<<(N + block - 1) / block, block>>>(d_x, d_y, (float)j, N);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaMemcpy(h_y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);
    return err;
}

int main(void)
{
    size_t bytes = N * sizeof(float);
    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes);
    for (int i = 0; i < N; i++) h_x[i] = (float)(i % 1024) / 1024.0f;
    float *d_x, *d_y;
    if (cudaMalloc(&d_x, bytes) != cudaSuccess || cudaMalloc(&d_y, bytes) != cudaSuccess ||
        cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "cannot set up the device buffers\n");
        return EXIT_FAILURE;
    }
    const int blocks[JOBS + 1] = {0, 256, 2048, 256, 256, 256};
    const float *inputs[JOBS + 1] = {NULL, d_x, d_x, d_x, NULL, d_x};     // job 4: the bug

    for (int j = 1; j <= JOBS; j++) {
        cudaError_t err = run_job(j, inputs[j], d_y, h_y, blocks[j]);
        if (err != cudaSuccess) {
            if (is_sticky(err)) {
                printf("job %d: %s; the CUDA context is lost, stopping\n", j, cudaGetErrorString(err));
                fprintf(stderr, "job %d: %s (%s)\n", j, cudaGetErrorString(err), cudaGetErrorName(err));
                free(h_x);          // the device memory goes with the process
                free(h_y);
                return EXIT_SUCCESS;        // the error was reported
            }
            printf("job %d: skipped (%s)\n", j, cudaGetErrorString(err));
            continue;
        }
        double sum = 0;
        for (int i = 0; i < N; i++) sum += h_y[i];
        printf("job %d: sum = %.4f\n", j, sum);
    }
    cudaFree(d_x);
    cudaFree(d_y);
    free(h_x);
    free(h_y);
    printf("all jobs done\n");
    return EXIT_SUCCESS;
}
