// graph-update.cu: a graph whose kernel takes a new parameter at every
// replay, without instantiating it again.
//
//   nvcc -O2 -lineinfo -DREPLAYS=8 graph-update.cu -o graph-update && ./graph-update
//
// Replay r adds (r + 1) * x to acc. The graph (one kernel node, captured)
// is instantiated once; before each replay the instantiated graph's kernel
// node gets its new `a` with cudaGraphExecKernelNodeSetParams, which costs
// about as much as a launch, where instantiating costs tens of them.
// (cudaGraphExecUpdate with a freshly captured graph of the same shape is
// the other way.)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// REPLAYS replays; cudojo sets it.
#ifndef REPLAYS
#define REPLAYS 8
#endif
#define N 4096

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// acc[i] += a * x[i]
__global__ void axpy(float *acc, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += a * x[i];
}

// a ramp 0, 1/1024, ..., 1023/1024, repeated: exact in float
static void make_input(float *x, int n)
{
    for (int i = 0; i < n; i++) x[i] = (float)(i % 1024) / 1024.0f;
}

// acc must be x * (1 + 2 + ... + REPLAYS).
static int validate(const float *x, const float *acc, int n)
{
    float k = (float)REPLAYS * (REPLAYS + 1) / 2;
    int wrong = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        if (acc[i] != k * x[i] && wrong++ == 0) printf("acc[%d] = %f, want %f\n", i, acc[i], k * x[i]);
        sum += acc[i];
    }
    printf("sum of acc: %.4f\n", sum);        // cudojo checks this sum
    return wrong;
}

int main(void)
{
    float h_x[N], h_acc[N];
    make_input(h_x, N);
    float *d_x, *d_acc;
    cudaCheck(cudaMalloc(&d_x, sizeof h_x));
    cudaCheck(cudaMalloc(&d_acc, sizeof h_acc));
    cudaCheck(cudaMemcpy(d_x, h_x, sizeof h_x, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemset(d_acc, 0, sizeof h_acc));
    cudaStream_t s;
    cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int n = N, block = 256, grid = N / 256;

    // capture the one launch, instantiate once
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaCheck(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    axpy<<<grid, block, 0, s>>>(d_acc, d_x, 1.0f, n);
    cudaCheck(cudaStreamEndCapture(s, &graph));
    cudaCheck(cudaGraphInstantiate(&exec, graph, 0));

    // the captured graph's kernel node: the handle that names it in exec too
    cudaGraphNode_t node;
    size_t count = 1;
    cudaCheck(cudaGraphGetNodes(graph, &node, &count));

    // the node's parameters point at `a`: change a, replay
    float a = 1.0f;
    void *args[] = {&d_acc, &d_x, &a, &n};
    cudaKernelNodeParams p = {};
    p.func = (void *)axpy;
    p.gridDim = dim3(grid);
    p.blockDim = dim3(block);
    p.kernelParams = args;
    cudaCheck(cudaGraphExecKernelNodeSetParams(exec, node, &p));
    for (int r = 0; r < REPLAYS; r++) {
        a = (float)(r + 1);
        cudaCheck(cudaGraphLaunch(exec, s));
    }
    cudaCheck(cudaStreamSynchronize(s));

    cudaCheck(cudaMemcpy(h_acc, d_acc, sizeof h_acc, cudaMemcpyDeviceToHost));
    int wrong = validate(h_x, h_acc, N);
    if (wrong) { printf("FAIL: %d of %d wrong\n", wrong, N); return EXIT_FAILURE; }
    printf("PASS\n");
    cudaCheck(cudaGraphExecDestroy(exec));
    cudaCheck(cudaGraphDestroy(graph));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_acc));
    return EXIT_SUCCESS;
}
