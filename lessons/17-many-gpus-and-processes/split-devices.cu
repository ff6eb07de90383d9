// split-devices.cu: one vector operation split over every GPU of the machine.
//
//   nvcc -O2 -lineinfo -DN=16777219 split-devices.cu -o split-devices && ./split-devices
//
// y = 2 * x over N floats. A machine with several GPUs runs them side by
// side only if the program gives each its own share: the runtime works on
// one device at a time (the current one, cudaSetDevice), and every
// allocation, copy and launch goes to the device current when it is made.
//
// TODO: ask how many devices there are (cudaGetDeviceCount; print
// "devices: <count>"), and give each device its own share of x: make it
// current (cudaSetDevice), allocate its part of x and y there, copy its part
// in, launch over its part, and copy its part of y back. The shares must
// cover all N elements whatever the count (N need not divide evenly).
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#ifndef N
#define N 1048579
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
    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes);
    make_input(h_x, N);

    int ndev = 1;                                    // one device: the current one, device 0
    printf("devices: %d\n", ndev);

    float *d_x, *d_y;
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    scale<<<(N + 255) / 256, 256>>>(d_x, d_y, N);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));

    double sum = 0;
    int wrong = validate(h_x, h_y, N, &sum);
    printf("sum of y: %.4f\n", sum);
    free(h_x);
    free(h_y);
    if (wrong) {
        printf("FAIL: %d wrong\n", wrong);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
