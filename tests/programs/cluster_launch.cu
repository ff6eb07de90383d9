// tests/programs/cluster_launch.cu: thread-block clusters (sm_90) through
// cudaLaunchKernelEx's cudaLaunchAttributeClusterDimension. A 1x1x1 cluster
// is an ordinary launch; cluster dimensions that do not divide the grid, and
// more than the portable 8 blocks without
// cudaFuncAttributeNonPortableClusterSizeAllowed, are refused; a 2x1x1
// cluster runs every block. The emulator runs no clusters: there the 2x1x1 launch must fail, naming it.
// cudojo: emu-fails=does not implement thread-block clusters
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

static int failures = 0;
static void expect(bool ok, const char *what) {
    printf("%s - %s\n", ok ? "ok" : "FAIL", what);
    failures += !ok;
}

__global__ void mark(int *out) {
    if (threadIdx.x == 0) out[blockIdx.x] = blockIdx.x + 1;
}

static cudaError_t launch(int *d, unsigned grid, unsigned cx) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(32);
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cx;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    cudaError_t e = cudaLaunchKernelEx(&cfg, mark, d);
    cudaGetLastError();
    return e;
}

int main(void) {
    const int n = 32;
    int *d, h[n];
    cudaCheck(cudaMalloc(&d, n * sizeof(int)));
    cudaCheck(cudaMemset(d, 0, n * sizeof(int)));
    cudaError_t e = launch(d, 8, 1);
    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("cluster 1x1x1, grid 8: %s\n", cudaGetErrorName(e));
    expect(e == cudaSuccess && h[7] == 8, "a 1x1x1 cluster is an ordinary launch");
    e = launch(d, 8, 3);
    printf("cluster 3x1x1, grid 8: %s\n", cudaGetErrorName(e));
    expect(e != cudaSuccess, "cluster dimensions must divide the grid");
    e = launch(d, 32, 16);
    printf("cluster 16x1x1 without the non-portable opt-in: %s\n", cudaGetErrorName(e));
    expect(e != cudaSuccess, "more than 8 blocks a cluster needs the opt-in");
    cudaCheck(cudaMemset(d, 0, n * sizeof(int)));
    cudaCheck(launch(d, 8, 2));
    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    bool all = true;
    for (int i = 0; i < 8; i++) all = all && h[i] == i + 1;
    expect(all, "a 2x1x1 cluster launch runs every block");
    cudaCheck(cudaFree(d));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
