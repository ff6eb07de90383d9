// hot-spot.cu: three kernels, one of them slow. Find it, predict, fix it.
//
//   nvcc -O2 -lineinfo -DW=4096 hot-spot.cu -o hot-spot && ./hot-spot
//
// A W x W matrix goes through three passes: offset_rows adds its row index
// to each element, scale_cols doubles it, clamp_all caps it. The program is
// slower than it should be.
//
// TODO: find the hot spot from the profile (the timeline's kernel times;
// on the emulator also the memory sectors per request of each kernel),
// write its name into PREDICT_HOT, and fix that kernel. The program first
// runs a copy of it as it is now (scale_cols_orig: leave that one as it
// is, it is the baseline cudojo compares your fix with).
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// Your prediction: which kernel is the hot spot?
#define PREDICT_HOT "?"

#ifndef W
#define W 256
#endif

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// m[r][c] += r: thread x walks along a row (coalesced)
__global__ void offset_rows(float *m, int w)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    if (c < w) m[(size_t)r * w + c] += (float)r;
}

// the baseline, as it was: thread x walks down a column (stride w)
__global__ void scale_cols_orig(float *m, int w)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
    if (r < w) m[(size_t)r * w + c] *= 2.0f;
}

// m[r][c] *= 2, thread x walks down a column
__global__ void scale_cols(float *m, int w)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
    if (r < w) m[(size_t)r * w + c] *= 2.0f;
}

// m[r][c] = min(m[r][c], 4096)
__global__ void clamp_all(float *m, int w)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    if (c < w) m[(size_t)r * w + c] = fminf(m[(size_t)r * w + c], 4096.0f);
}

int main(void)
{
    size_t count = (size_t)W * W, bytes = count * sizeof(float);
    float *h = (float *)malloc(bytes);
    if (!h) return EXIT_FAILURE;
    for (size_t i = 0; i < count; i++) h[i] = (float)(i % 1024) / 1024.0f;
    float *d_m, *d_tmp;
    cudaCheck(cudaMalloc(&d_m, bytes));
    cudaCheck(cudaMalloc(&d_tmp, bytes));
    cudaCheck(cudaMemcpy(d_m, h, bytes, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_tmp, h, bytes, cudaMemcpyHostToDevice));
    dim3 block(256), grid((W + 255) / 256, W);

    scale_cols_orig<<<grid, block>>>(d_tmp, W);    // the baseline (on a scratch copy)
    offset_rows<<<grid, block>>>(d_m, W);
    scale_cols<<<grid, block>>>(d_m, W);
    clamp_all<<<grid, block>>>(d_m, W);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h, d_m, bytes, cudaMemcpyDeviceToHost));

    int wrong = 0;
    double sum = 0;
    for (size_t i = 0; i < count; i++) {
        float x = (float)(i % 1024) / 1024.0f, r = (float)(i / W);
        float want = fminf((x + r) * 2.0f, 4096.0f);
        if (h[i] != want && wrong++ == 0) printf("m[%zu] = %f, want %f\n", i, h[i], want);
        sum += h[i];
    }
    printf("sum of m: %.4f\n", sum);
    printf("PREDICT: hot=%s\n", PREDICT_HOT);
    if (wrong) { printf("FAIL: %d wrong\n", wrong); return EXIT_FAILURE; }
    printf("PASS\n");
    cudaCheck(cudaFree(d_m));
    cudaCheck(cudaFree(d_tmp));
    free(h);
    return EXIT_SUCCESS;
}
