// tests/programs/launch_kernel.cu: launching without <<<...>>>.
// cudaLaunchKernel with an array of argument pointers (void **args), its C++
// template overload, cudaLaunchKernelEx with a cudaLaunchConfig_t (grid,
// block, dynamic shared memory, stream, no attributes), and a bad
// configuration through cudaLaunchKernel, which returns the error directly.
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

// y[i] = a * x[i] + b, with a char and a double in the argument list to test packing
__global__ void affine(const float *x, float *y, int n, char tag, double a, float b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (float)(a * x[i]) + b + (tag == 'z' ? 1000.0f : 0.0f);
}

// reverses each block's chunk through dynamic shared memory
__global__ void reverse_blocks(const int *in, int *out) {
    extern __shared__ int s[];
    int base = blockIdx.x * blockDim.x;
    s[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

int main(void) {
    const int n = 1000;
    float hx[n], hy[n];
    for (int i = 0; i < n; i++) hx[i] = (float)i;
    float *x, *y;
    cudaCheck(cudaMalloc(&x, sizeof hx));
    cudaCheck(cudaMalloc(&y, sizeof hy));
    cudaCheck(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    int failures = 0;

    // 1. the C API: one pointer per argument
    int nn = n;
    char tag = 'a';
    double a = 2.0;
    float b = 0.5f;
    void *args[] = {&x, &y, &nn, &tag, &a, &b};
    cudaCheck(cudaLaunchKernel((const void *)affine, dim3((n + 127) / 128), dim3(128), args, 0, 0));
    cudaCheck(cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost));
    printf("cudaLaunchKernel: y[0] = %.1f, y[999] = %.1f\n", hy[0], hy[999]);
    failures += hy[0] != 0.5f || hy[999] != 1998.5f;

    // 2. the same through the template overload, other values
    tag = 'z';
    a = -1.0;
    cudaCheck(cudaLaunchKernel(affine, dim3((n + 255) / 256), dim3(256), args, 0, 0));
    cudaCheck(cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost));
    printf("template cudaLaunchKernel: y[0] = %.1f, y[999] = %.1f\n", hy[0], hy[999]);
    failures += hy[0] != 1000.5f || hy[999] != 1.5f;

    // 3. cudaLaunchKernelEx with a config, dynamic shared memory and a stream
    const int blocks = 8, threads = 128;
    int hin[blocks * threads], hout[blocks * threads];
    for (int i = 0; i < blocks * threads; i++) hin[i] = i;
    int *in, *out;
    cudaCheck(cudaMalloc(&in, sizeof hin));
    cudaCheck(cudaMalloc(&out, sizeof hout));
    cudaCheck(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
    cudaStream_t s;
    cudaCheck(cudaStreamCreate(&s));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = threads * sizeof(int);
    cfg.stream = s;
    cfg.attrs = NULL;
    cfg.numAttrs = 0;
    cudaCheck(cudaLaunchKernelEx(&cfg, reverse_blocks, (const int *)in, out));
    cudaCheck(cudaMemcpyAsync(hout, out, sizeof hout, cudaMemcpyDeviceToHost, s));
    cudaCheck(cudaStreamSynchronize(s));
    printf("cudaLaunchKernelEx: out[0] = %d, out[127] = %d, out[128] = %d\n", hout[0], hout[127], hout[128]);
    failures += hout[0] != 127 || hout[127] != 0 || hout[128] != 255;

    // 4. a bad configuration is returned by the call itself
    cudaError_t e = cudaLaunchKernel((const void *)affine, dim3(1), dim3(4096), args, 0, 0);
    printf("cudaLaunchKernel with 4096 threads: %s\n", cudaGetErrorName(e));
    printf("  and cudaGetLastError: %s\n", cudaGetErrorName(cudaGetLastError()));
    failures += e != cudaErrorInvalidValue;

    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaFree(x));
    cudaCheck(cudaFree(y));
    cudaCheck(cudaFree(in));
    cudaCheck(cudaFree(out));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
