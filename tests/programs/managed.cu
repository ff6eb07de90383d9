// tests/programs/managed.cu: unified (managed) memory. cudaMallocManaged,
// the host writes, a kernel reads and writes, cudaDeviceSynchronize before
// the host reads again; cudaMemAdvise (preferred location, read-mostly, read
// back with cudaMemRangeGetAttribute), cudaMemPrefetchAsync to the device
// and back to the host (CUDA 13's cudaMemLocation form); a __managed__
// variable shared by host and kernels.
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

__managed__ int launches = 0;

// y = a * x + y, counting launches in a managed variable
__global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
    if (i == 0) launches++;
}

int main(void) {
    const int n = 1 << 16;
    int dev = 0, failures = 0;
    cudaCheck(cudaGetDevice(&dev));
    int managed = 0;
    cudaCheck(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
    printf("managed memory supported: %s\n", managed ? "yes" : "no");
    failures += !managed;

    float *x, *y;
    cudaCheck(cudaMallocManaged(&x, n * sizeof(float)));
    cudaCheck(cudaMallocManaged(&y, n * sizeof(float), cudaMemAttachGlobal));
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 64);
        y[i] = 1.0f;
    }

    cudaMemLocation on_dev = {cudaMemLocationTypeDevice, dev};
    cudaMemLocation on_host = {cudaMemLocationTypeHost, 0};
    cudaCheck(cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, on_dev));
    cudaCheck(cudaMemAdvise(y, n * sizeof(float), cudaMemAdviseSetPreferredLocation, on_dev));
    int read_mostly_x = -1, read_mostly_y = -1;
    cudaCheck(cudaMemRangeGetAttribute(&read_mostly_x, sizeof(int), cudaMemRangeAttributeReadMostly, x,
                                       n * sizeof(float)));
    cudaCheck(cudaMemRangeGetAttribute(&read_mostly_y, sizeof(int), cudaMemRangeAttributeReadMostly, y,
                                       n * sizeof(float)));
    printf("read-mostly: x %d, y %d\n", read_mostly_x, read_mostly_y);
    failures += read_mostly_x != 1 || read_mostly_y != 0;

    cudaStream_t s;
    cudaCheck(cudaStreamCreate(&s));
    cudaCheck(cudaMemPrefetchAsync(x, n * sizeof(float), on_dev, 0, s));
    cudaCheck(cudaMemPrefetchAsync(y, n * sizeof(float), on_dev, 0, s));
    saxpy<<<n / 256, 256, 0, s>>>(2.0f, x, y, n);
    cudaCheck(cudaGetLastError());
    saxpy<<<n / 256, 256, 0, s>>>(0.5f, x, y, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemPrefetchAsync(y, n * sizeof(float), on_host, 0, s));
    cudaCheck(cudaDeviceSynchronize());  // before the host touches managed memory again

    int bad = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        float want = 0.5f * x[i] + (2.0f * x[i] + 1.0f);
        if (y[i] != want) bad++;
        sum += y[i];
    }
    printf("y[0] = %.1f, y[63] = %.1f, sum = %.1f, mismatches = %d\n", y[0], y[63], sum, bad);
    printf("launches counted in a __managed__ variable: %d\n", launches);
    failures += bad != 0 || launches != 2;

    // the host writes between kernels; the next kernel sees it
    y[5] = 100.0f;
    launches = 10;
    saxpy<<<n / 256, 256>>>(1.0f, x, y, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());
    printf("after a host write: y[5] = %.1f, launches = %d\n", y[5], launches);
    failures += y[5] != 105.0f || launches != 11;

    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaFree(x));
    cudaCheck(cudaFree(y));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
