// tests/programs/errors_launch.cu: launch configuration errors and the
// last-error state. A bad <<<...>>> (0 blocks, 2048 threads, a block of
// 32x32x2, blockDim.z 65, gridDim.y 65536) launches nothing and sets
// cudaErrorInvalidValue (CUDA 13 on the H200; older runtimes said
// cudaErrorInvalidConfiguration); cudaPeekAtLastError reports it without
// clearing it, cudaGetLastError reports and clears it. These errors are not
// sticky: the next good launch runs and its results are right.
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

__global__ void set_ones(int *x, int n) {
    int i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y * blockDim.z +
            (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1;
}

static int failures = 0;

static void expect(const char *what, cudaError_t got, cudaError_t want) {
    printf("%-36s %s\n", what, cudaGetErrorName(got));
    if (got != want) failures++;
}

static int sum(const int *d_x, int n) {
    int h[1024], s = 0;
    cudaCheck(cudaMemcpy(h, d_x, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) s += h[i];
    return s;
}

int main(void) {
    const int n = 1024;
    int *d_x;
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));
    cudaCheck(cudaMemset(d_x, 0, n * sizeof(int)));

    expect("last error at start:", cudaGetLastError(), cudaSuccess);

    set_ones<<<0, 32>>>(d_x, n);
    expect("<<<0, 32>>> peek:", cudaPeekAtLastError(), cudaErrorInvalidValue);
    expect("peek again (not cleared):", cudaPeekAtLastError(), cudaErrorInvalidValue);
    expect("get:", cudaGetLastError(), cudaErrorInvalidValue);
    expect("get again (cleared):", cudaGetLastError(), cudaSuccess);

    set_ones<<<1, 2048>>>(d_x, n);
    expect("<<<1, 2048>>>:", cudaGetLastError(), cudaErrorInvalidValue);
    set_ones<<<1, dim3(32, 32, 2)>>>(d_x, n);
    expect("<<<1, (32,32,2)>>>:", cudaGetLastError(), cudaErrorInvalidValue);
    set_ones<<<1, dim3(1, 1, 65)>>>(d_x, n);
    expect("<<<1, (1,1,65)>>>:", cudaGetLastError(), cudaErrorInvalidValue);
    set_ones<<<dim3(1, 65536), 32>>>(d_x, n);
    expect("<<<(1,65536), 32>>>:", cudaGetLastError(), cudaErrorInvalidValue);
    expect("synchronize after bad launches:", cudaDeviceSynchronize(), cudaSuccess);
    printf("sum after the bad launches: %d\n", sum(d_x, n));
    if (sum(d_x, n) != 0) failures++;

    // the largest legal shapes still launch
    set_ones<<<1, 1024>>>(d_x, n);
    expect("<<<1, 1024>>>:", cudaGetLastError(), cudaSuccess);
    set_ones<<<dim3(2, 2), dim3(16, 8, 2)>>>(d_x, n);
    expect("<<<(2,2), (16,8,2)>>>:", cudaGetLastError(), cudaSuccess);
    expect("synchronize:", cudaDeviceSynchronize(), cudaSuccess);
    printf("sum after the good launches: %d\n", sum(d_x, n));
    if (sum(d_x, n) != n) failures++;

    // a bad launch between two good ones: only it is lost
    cudaCheck(cudaMemset(d_x, 0, n * sizeof(int)));
    set_ones<<<1, 512>>>(d_x, 512);
    set_ones<<<1, 4096>>>(d_x, n);
    cudaError_t mid = cudaGetLastError();
    set_ones<<<1, 256>>>(d_x + 512, 256);
    expect("bad launch between good ones:", mid, cudaErrorInvalidValue);
    expect("after the third launch:", cudaGetLastError(), cudaSuccess);
    printf("sum: %d\n", sum(d_x, n));
    if (sum(d_x, n) != 768) failures++;

    cudaCheck(cudaFree(d_x));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
