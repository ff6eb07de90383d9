// graph-replay.cu: one iteration of KERNELS small launches, captured once
// into a CUDA graph and replayed.
//
//   nvcc -O2 -lineinfo -DITERS=20 graph-replay.cu -o graph-replay && ./graph-replay
//
// Each iteration of a simulation-like loop launches KERNELS tiny kernels in
// a row. Launched one by one, the host pays for every launch and the GPU
// waits for each. Stream capture records the launches of one iteration into
// a graph instead of running them; instantiated once, the graph is replayed
// with a single cudaGraphLaunch per iteration.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// ITERS iterations per path; cudojo sets it.
#ifndef ITERS
#define ITERS 20
#endif
#define KERNELS 20   // launches per iteration
#define N 4096       // elements: 16 blocks, a tiny kernel

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// x[i] += v
__global__ void add(float *x, int n, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}

// One iteration: KERNELS launches on stream s, adding 1, 2, ..., KERNELS.
static void iteration(float *d_x, cudaStream_t s)
{
    for (int k = 0; k < KERNELS; k++) add<<<N / 256, 256, 0, s>>>(d_x, N, (float)(k + 1));
    cudaCheck(cudaGetLastError());
}

// x started at 0 and went through `iters` iterations.
static int validate(const float *x, int iters)
{
    float want = (float)iters * KERNELS * (KERNELS + 1) / 2;
    int wrong = 0;
    double sum = 0;
    for (int i = 0; i < N; i++) {
        if (x[i] != want && wrong++ == 0) printf("x[%d] = %f, want %f\n", i, x[i], want);
        sum += x[i];
    }
    printf("sum of x: %.1f\n", sum);          // cudojo checks this sum
    return wrong;
}

int main(void)
{
    float *d_x, h_x[N];
    cudaCheck(cudaMalloc(&d_x, sizeof h_x));
    cudaCheck(cudaMemset(d_x, 0, sizeof h_x));
    cudaStream_t s;
    cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    // warm-up, then ITERS iterations launched one kernel at a time
    iteration(d_x, s);
    cudaCheck(cudaStreamSynchronize(s));
    for (int it = 0; it < ITERS; it++) iteration(d_x, s);
    cudaCheck(cudaStreamSynchronize(s));

    // the same ITERS iterations as a graph: capture one, instantiate once, replay
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    for (int it = 0; it < ITERS; it++) {
        cudaCheck(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        iteration(d_x, s);                     // recorded, not run
        cudaCheck(cudaStreamEndCapture(s, &graph));
        cudaCheck(cudaGraphInstantiate(&exec, graph, 0));
        cudaCheck(cudaGraphLaunch(exec, s));
        if (it < ITERS - 1) {
            cudaCheck(cudaGraphExecDestroy(exec));
            cudaCheck(cudaGraphDestroy(graph));
        }
    }
    cudaCheck(cudaStreamSynchronize(s));

    cudaCheck(cudaMemcpy(h_x, d_x, sizeof h_x, cudaMemcpyDeviceToHost));
    int wrong = validate(h_x, 1 + 2 * ITERS);
    if (wrong) { printf("FAIL: %d of %d wrong\n", wrong, N); return EXIT_FAILURE; }
    printf("PASS\n");
    cudaCheck(cudaGraphExecDestroy(exec));
    cudaCheck(cudaGraphDestroy(graph));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaFree(d_x));
    return EXIT_SUCCESS;
}
