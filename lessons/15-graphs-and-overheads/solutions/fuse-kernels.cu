// fuse-kernels.cu: six small kernels against one fused kernel.
//
//   nvcc -O2 -lineinfo -DN=4194304 fuse-kernels.cu -o fuse-kernels && ./fuse-kernels
//
// y = ((((2x + 1) / 2 - 1/4) * 4) + 3), one step per kernel: six launches,
// and six times the whole array read from and written back to memory. One
// kernel that does the six steps on a value held in a register launches
// once and moves the array once.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// N elements; cudojo sets it (small on the emulator, 2^22 on a GPU).
#ifndef N
#define N 16384
#endif

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// ---------------------------------------------------------------------------
// the six steps, one kernel each

// y[i] = x[i] * a (the first step reads x, the others work on y in place)
__global__ void scale_from(const float *x, float *y, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * a;
}

__global__ void scale(float *y, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= a;
}

__global__ void shift(float *y, int n, float b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += b;
}

static void run_separate(const float *d_x, float *d_y, int n)
{
    int block = 256, grid = (n + block - 1) / block;
    scale_from<<<grid, block>>>(d_x, d_y, n, 2.0f);
    shift<<<grid, block>>>(d_y, n, 1.0f);
    scale<<<grid, block>>>(d_y, n, 0.5f);
    shift<<<grid, block>>>(d_y, n, -0.25f);
    scale<<<grid, block>>>(d_y, n, 4.0f);
    shift<<<grid, block>>>(d_y, n, 3.0f);
    cudaCheck(cudaGetLastError());
}

// ---------------------------------------------------------------------------
// the same six steps in one kernel: one read of x, one write of y

__global__ void fused(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i] * 2.0f;
    v += 1.0f;
    v *= 0.5f;
    v += -0.25f;
    v *= 4.0f;
    v += 3.0f;
    y[i] = v;
}

static void run_fused(const float *d_x, float *d_y, int n)
{
    int block = 256, grid = (n + block - 1) / block;
    fused<<<grid, block>>>(d_x, d_y, n);
    cudaCheck(cudaGetLastError());
}

// ---------------------------------------------------------------------------
// the input and the CPU reference

// a ramp 0, 1/1024, ..., 1023/1024, repeated: every step is exact in float
static void make_input(float *x, int n)
{
    for (int i = 0; i < n; i++) x[i] = (float)(i % 1024) / 1024.0f;
}

// Compares y with the six steps done on the CPU, prints the sum of y
// (cudojo checks it too). Returns the number of wrong elements.
static int validate(const char *name, const float *x, const float *y, int n)
{
    int wrong = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        float want = (((x[i] * 2.0f + 1.0f) * 0.5f - 0.25f) * 4.0f) + 3.0f;
        if (y[i] != want && wrong++ == 0) printf("%s[%d] = %f, want %f\n", name, i, y[i], want);
        sum += y[i];
    }
    printf("sum of %s: %.4f\n", name, sum);
    return wrong;
}

int main(void)
{
    size_t bytes = (size_t)N * sizeof(float);
    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes);
    if (!h_x || !h_y) { fprintf(stderr, "out of host memory\n"); return EXIT_FAILURE; }
    make_input(h_x, N);
    float *d_x, *d_y;
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));

    // each path twice: the first run loads the kernels, the second is the one to compare
    int wrong = 0;
    for (int rep = 0; rep < 2; rep++) run_separate(d_x, d_y, N);
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    wrong += validate("separate", h_x, h_y, N);

    cudaCheck(cudaMemset(d_y, 0, bytes));
    for (int rep = 0; rep < 2; rep++) run_fused(d_x, d_y, N);
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    wrong += validate("fused", h_x, h_y, N);

    if (wrong) { printf("FAIL: %d wrong\n", wrong); return EXIT_FAILURE; }
    printf("PASS\n");
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_y);
    return EXIT_SUCCESS;
}
