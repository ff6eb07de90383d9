// peer-copy.cu (wrong: peer access enabled without asking whether it can be): one GPU's result handed straight to another GPU.
//
//   nvcc -O2 -lineinfo -DN=16777216 peer-copy.cu -o peer-copy && ./peer-copy
//
// A two-stage job: device 0 computes y = 2 * x, device 1 then computes
// w = 2 * y. y must get from device 0's memory to device 1's. Through the
// host that is two copies over PCIe and a wait in between. When the two
// GPUs can reach each other's memory (NVLink, or PCIe peer-to-peer), the
// driver copies directly, device to device, once peer access is enabled:
// cudaDeviceCanAccessPeer says whether it can be, cudaDeviceEnablePeerAccess
// (called on the device that accesses) turns it on, cudaMemcpyPeer copies.
// A machine whose GPUs cannot reach each other still needs the host path.
// With one GPU both stages run on it and y stays where it is.
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

static int validate(const float *x, const float *w, int n, double *sum)
{
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        if (w[i] != 4.0f * x[i] && wrong++ == 0) printf("w[%d] = %f, want %f\n", i, w[i], 4.0f * x[i]);
        *sum += w[i];
    }
    return wrong;
}

int main(void)
{
    size_t bytes = (size_t)N * sizeof(float);
    float *h_x = (float *)malloc(bytes), *h_w = (float *)malloc(bytes);
    make_input(h_x, N);
    int ndev = 0;
    cudaCheck(cudaGetDeviceCount(&ndev));
    int a = 0, b = ndev > 1 ? 1 : 0;                 // the two stages' devices
    printf("devices: %d (stage 1 on device %d, stage 2 on device %d)\n", ndev, a, b);

    float *d_x, *d_y, *d_y1, *d_w;
    cudaCheck(cudaSetDevice(a));
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    scale<<<(N + 255) / 256, 256>>>(d_x, d_y, N);
    cudaCheck(cudaGetLastError());

    cudaCheck(cudaSetDevice(b));
    cudaCheck(cudaMalloc(&d_w, bytes));
    if (a == b) {
        d_y1 = d_y;                                  // one GPU: y is already there
    } else {
        cudaCheck(cudaMalloc(&d_y1, bytes));
        cudaCheck(cudaDeviceEnablePeerAccess(a, 0));       // "our GPUs have NVLink"
        cudaCheck(cudaMemcpyPeer(d_y1, b, d_y, a, bytes));
        printf("y: peer to peer\n");
    }
    scale<<<(N + 255) / 256, 256>>>(d_y1, d_w, N);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_w, d_w, bytes, cudaMemcpyDeviceToHost));

    double sum = 0;
    int wrong = validate(h_x, h_w, N, &sum);
    printf("sum of w: %.4f\n", sum);
    cudaCheck(cudaFree(d_w));
    if (d_y1 != d_y) cudaCheck(cudaFree(d_y1));
    cudaCheck(cudaSetDevice(a));
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_w);
    if (wrong) {
        printf("FAIL: %d wrong\n", wrong);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
