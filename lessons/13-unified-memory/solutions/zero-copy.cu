// zero-copy.cu: a kernel that reads host memory in place.
//
//   nvcc -O2 -lineinfo -DN=16777216 zero-copy.cu -o zero-copy && ./zero-copy
//
// y = 2 * x over N floats, where x is produced on the host and read exactly
// once by the GPU. Copying it first means the data crosses the bus and
// then is read again from device memory. Mapped pinned memory
// (cudaHostAlloc with cudaHostAllocMapped) lets the kernel read x straight
// from host memory over the bus, with no copy and no device buffer: "zero
// copy". Each byte crosses the bus once either way; zero copy overlaps the
// transfer with the kernel and saves the device buffer.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#ifndef N
#define N 1048576
#endif

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

__global__ void scale(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}

// a ramp 0, 1/1024, ..., 1023/1024, repeated: exact in float
static void make_input(float *x, int n)
{
    for (int i = 0; i < n; i++) x[i] = (float)(i % 1024) / 1024.0f;
}

static int validate(const float *x, const float *y, int n, double *sum)
{
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        if (y[i] != 2.0f * x[i] && wrong++ == 0) printf("y[%d] = %f, want %f\n", i, y[i], 2.0f * x[i]);
        *sum += y[i];
    }
    return wrong;
}

int main(void)
{
    size_t bytes = (size_t)N * sizeof(float);
    float *h_x, *d_x_view, *d_y;
    // x in page-locked host memory, mapped into the GPU's address space
    cudaCheck(cudaHostAlloc(&h_x, bytes, cudaHostAllocMapped));
    cudaCheck(cudaHostGetDevicePointer((void **)&d_x_view, h_x, 0));
    cudaCheck(cudaMalloc(&d_y, bytes));
    float *h_y = (float *)malloc(bytes);
    make_input(h_x, N);

    scale<<<(N + 255) / 256, 256>>>(d_x_view, d_y, N);   // reads x over the bus
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));

    double sum = 0;
    int wrong = validate(h_x, h_y, N, &sum);
    printf("sum of y: %.4f\n", sum);
    cudaCheck(cudaFreeHost(h_x));
    cudaCheck(cudaFree(d_y));
    free(h_y);
    if (wrong) {
        printf("FAIL: %d wrong\n", wrong);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
