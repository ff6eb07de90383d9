// split-devices.cu (wrong: each share rounded down, the remainder lost): one vector operation split over every GPU of the machine.
//
//   nvcc -O2 -lineinfo -DN=16777219 split-devices.cu -o split-devices && ./split-devices
//
// y = 2 * x over N floats. A machine with several GPUs runs them side by
// side only if the program gives each its own share: the runtime works on
// one device at a time (the current one, cudaSetDevice), and every
// allocation, copy and launch goes to the device current when it is made.
// Device d takes elements [N*d/ndev, N*(d+1)/ndev): the shares differ by at
// most one element and together cover all N, whatever ndev divides.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#ifndef N
#define N 1048579
#endif
#define MAX_DEVICES 16

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

    int ndev = 0;
    cudaCheck(cudaGetDeviceCount(&ndev));
    if (ndev > MAX_DEVICES) ndev = MAX_DEVICES;
    printf("devices: %d\n", ndev);

    float *d_x[MAX_DEVICES], *d_y[MAX_DEVICES];
    int begin[MAX_DEVICES + 1];
    for (int d = 0; d <= ndev; d++) begin[d] = d * (N / ndev);   // N / ndev each

    for (int d = 0; d < ndev; d++) {
        int n = begin[d + 1] - begin[d];
        cudaCheck(cudaSetDevice(d));    // everything below goes to device d
        cudaCheck(cudaMalloc(&d_x[d], n * sizeof(float)));
        cudaCheck(cudaMalloc(&d_y[d], n * sizeof(float)));
        cudaCheck(cudaMemcpy(d_x[d], h_x + begin[d], n * sizeof(float), cudaMemcpyHostToDevice));
        scale<<<(n + 255) / 256, 256>>>(d_x[d], d_y[d], n);
        cudaCheck(cudaGetLastError());
        printf("device %d: elements %d..%d\n", d, begin[d], begin[d + 1] - 1);
    }
    for (int d = 0; d < ndev; d++) {
        int n = begin[d + 1] - begin[d];
        cudaCheck(cudaSetDevice(d));
        cudaCheck(cudaMemcpy(h_y + begin[d], d_y[d], n * sizeof(float), cudaMemcpyDeviceToHost));
        cudaCheck(cudaFree(d_x[d]));
        cudaCheck(cudaFree(d_y[d]));
    }

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
