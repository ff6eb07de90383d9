// mps-share.cu: one rank of a job that several processes share.
//
//   nvcc -O2 -lineinfo -DN=16777216 mps-share.cu -o mps-share
//   ./mps-share 0 4 & ./mps-share 1 4 & ./mps-share 2 4 & ./mps-share 3 4 & wait
//
// Like the ranks of an MPI job, NRANKS copies of this program run at the
// same time, each told its rank (argv[1]) and the number of ranks
// (argv[2]); together they compute y = f(x) over N floats, each rank its
// own share, REPS times (a solver's iterations). All of them use the same
// GPU. Without MPS the GPU time-slices between the processes: only one
// process's kernels run at a time, however few SMs they use. With MPS
// (nvidia-cuda-mps-control) their kernels run side by side, as long as
// they fit on the GPU together: a rank whose kernel is sized for its share
// leaves the rest of the GPU to the others.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#ifndef N
#define N 262150
#endif
#ifndef ITERS
#define ITERS 8
#endif
#ifndef REPS
#define REPS 3
#endif

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// ITERS steps that leave y = 2 * x exactly
__global__ void work(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i], acc = v;
        for (int k = 0; k < ITERS; k++) acc = acc * 0.5f + v * 0.5f;
        y[i] = 2.0f * acc;
    }
}

// the global ramp 0, 1/1024, ..., 1023/1024, repeated, from element `first` on
static void make_input(float *x, int first, int n)
{
    for (int i = 0; i < n; i++) x[i] = (float)((first + i) % 1024) / 1024.0f;
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

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s RANK NRANKS\n", argv[0]);
        return 2;
    }
    int rank = atoi(argv[1]), nranks = atoi(argv[2]);
    if (nranks < 1 || rank < 0 || rank >= nranks) {
        fprintf(stderr, "rank %d of %d?\n", rank, nranks);
        return 2;
    }
    // this rank's share: [first, first + n)
    int first = (int)((long long)N * rank / nranks);
    int n = (int)((long long)N * (rank + 1) / nranks) - first;
    size_t bytes = (size_t)n * sizeof(float);
    printf("rank %d of %d: elements %d..%d\n", rank, nranks, first, first + n - 1);

    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes), *d_x, *d_y;
    make_input(h_x, first, n);
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_y, bytes));
    cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    for (int rep = 0; rep < REPS; rep++) {
        work<<<(n + 255) / 256, 256>>>(d_x, d_y, n);   // sized for the share: room for the others
        cudaCheck(cudaGetLastError());
    }
    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));

    double sum = 0;
    int wrong = validate(h_x, h_y, n, &sum);
    printf("sum of y: %.4f\n", sum);
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_y);
    if (wrong) {
        printf("FAIL: %d wrong\n", wrong);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
