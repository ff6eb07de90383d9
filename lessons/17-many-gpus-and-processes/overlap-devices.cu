// overlap-devices.cu: every GPU busy at the same time.
//
//   nvcc -O2 -lineinfo -DN=16777216 overlap-devices.cu -o overlap-devices && ./overlap-devices
//
// y = f(x) over N floats, split over the machine's devices as in
// split-devices, with a kernel that does real work per element. Splitting
// is not enough: if the host waits for device 0 to finish before it gives
// device 1 its work, the devices take turns and the machine is no faster
// than one GPU. The host must queue every device's copy in, kernel and copy
// out without waiting (asynchronous copies on a stream of each device, from
// pinned host memory), and only then wait for all of them.
//
// TODO: make the devices run at the same time. Allocate h_x and h_y pinned
// (cudaMallocHost, freed with cudaFreeHost), create a stream on each device
// (after its cudaSetDevice), queue each device's copy in, kernel and copy
// out on its stream (cudaMemcpyAsync, <<<..., 0, stream[d]>>>) without
// waiting, and wait for every device only after all are queued.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#ifndef N
#define N 262144
#endif
#ifndef ITERS
#define ITERS 32
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

// y = x, then ITERS times y = y * 0.5 + x * 0.5: stays x exactly, costs ITERS steps
__global__ void work(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float acc = v;
        for (int k = 0; k < ITERS; k++) acc = acc * 0.5f + v * 0.5f;
        y[i] = 2.0f * acc;
    }
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
    for (int d = 0; d <= ndev; d++) begin[d] = (int)((long long)N * d / ndev);

    for (int d = 0; d < ndev; d++) {
        int n = begin[d + 1] - begin[d];
        cudaCheck(cudaSetDevice(d));
        cudaCheck(cudaMalloc(&d_x[d], n * sizeof(float)));
        cudaCheck(cudaMalloc(&d_y[d], n * sizeof(float)));
        cudaCheck(cudaMemcpy(d_x[d], h_x + begin[d], n * sizeof(float), cudaMemcpyHostToDevice));
        work<<<(n + 255) / 256, 256>>>(d_x[d], d_y[d], n);
        cudaCheck(cudaGetLastError());
        cudaCheck(cudaMemcpy(h_y + begin[d], d_y[d], n * sizeof(float), cudaMemcpyDeviceToHost));
    }

    double sum = 0;
    int wrong = validate(h_x, h_y, N, &sum);
    printf("sum of y: %.4f\n", sum);
    for (int d = 0; d < ndev; d++) {
        cudaCheck(cudaSetDevice(d));
        cudaCheck(cudaFree(d_x[d]));
        cudaCheck(cudaFree(d_y[d]));
    }
    free(h_x);
    free(h_y);
    if (wrong) {
        printf("FAIL: %d wrong\n", wrong);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
