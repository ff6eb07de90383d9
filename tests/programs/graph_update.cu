// tests/programs/graph_update.cu: changing an instantiated graph. A captured
// one-kernel graph is instantiated once; cudaGraphExecKernelNodeSetParams
// gives the instance a new argument (copied at the call: changing the host
// variable afterwards changes nothing); setting the captured graph's node
// leaves the instance as it was; cudaGraphExecUpdate takes a new capture of
// the same shape and is refused one of another shape
// (cudaErrorGraphExecUpdateFailure, topology changed).
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

__global__ void add(int *x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}

static int value(const int *d_x) {
    int h;
    cudaCheck(cudaMemcpy(&h, d_x + 100, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

static cudaGraph_t capture(cudaStream_t s, int *d_x, int n, int v, int kernels) {
    cudaGraph_t g;
    cudaCheck(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < kernels; k++) add<<<n / 256, 256, 0, s>>>(d_x, n, v);
    cudaCheck(cudaStreamEndCapture(s, &g));
    return g;
}

int main(void) {
    int failures = 0, n = 1024;
    int *d_x;
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));
    cudaCheck(cudaMemset(d_x, 0, n * sizeof(int)));
    cudaStream_t s;
    cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cudaGraph_t g = capture(s, d_x, n, 1, 1);
    cudaGraphExec_t exec;
    cudaCheck(cudaGraphInstantiate(&exec, g, 0));
    cudaGraphNode_t node;
    size_t count = 1;
    cudaCheck(cudaGraphGetNodes(g, &node, &count));
    cudaCheck(cudaGraphLaunch(exec, s));
    cudaCheck(cudaStreamSynchronize(s));
    printf("as captured (v = 1): x = %d\n", value(d_x));
    failures += value(d_x) != 1;

    // the instance's node: copied at the call
    int v = 10;
    void *args[] = {&d_x, &n, &v};
    cudaKernelNodeParams p = {};
    p.func = (void *)add;
    p.gridDim = dim3(n / 256);
    p.blockDim = dim3(256);
    p.kernelParams = args;
    cudaCheck(cudaGraphExecKernelNodeSetParams(exec, node, &p));
    v = 1000;   // too late: the instance has 10
    cudaCheck(cudaGraphLaunch(exec, s));
    cudaCheck(cudaStreamSynchronize(s));
    printf("after cudaGraphExecKernelNodeSetParams (v = 10): x = %d\n", value(d_x));
    failures += value(d_x) != 11;

    // the captured graph's node: the instance does not see it
    v = 500;
    cudaCheck(cudaGraphKernelNodeSetParams(node, &p));
    cudaCheck(cudaGraphLaunch(exec, s));
    cudaCheck(cudaStreamSynchronize(s));
    printf("after cudaGraphKernelNodeSetParams on the graph (v = 500): x = %d\n", value(d_x));
    failures += value(d_x) != 21;

    // a new capture of the same shape updates the instance
    cudaGraph_t g2 = capture(s, d_x, n, 100, 1);
    cudaGraphExecUpdateResultInfo info;
    cudaError_t rc = cudaGraphExecUpdate(exec, g2, &info);
    printf("cudaGraphExecUpdate, same shape: %s, result %d\n", cudaGetErrorName(rc), (int)info.result);
    cudaCheck(cudaGraphLaunch(exec, s));
    cudaCheck(cudaStreamSynchronize(s));
    printf("after the update (v = 100): x = %d\n", value(d_x));
    failures += rc != cudaSuccess || value(d_x) != 121;

    // one of another shape is refused, and the instance stays as it was
    cudaGraph_t g3 = capture(s, d_x, n, 7, 2);
    rc = cudaGraphExecUpdate(exec, g3, &info);
    printf("cudaGraphExecUpdate, two nodes for one: %s, topology changed: %s\n", cudaGetErrorName(rc),
           info.result == cudaGraphExecUpdateErrorTopologyChanged ? "yes" : "no");
    (void)cudaGetLastError();
    cudaCheck(cudaGraphLaunch(exec, s));
    cudaCheck(cudaStreamSynchronize(s));
    printf("after the refused update: x = %d\n", value(d_x));
    failures += rc != cudaErrorGraphExecUpdateFailure || value(d_x) != 221;

    cudaCheck(cudaGraphExecDestroy(exec));
    cudaCheck(cudaGraphDestroy(g));
    cudaCheck(cudaGraphDestroy(g2));
    cudaCheck(cudaGraphDestroy(g3));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaFree(d_x));
    printf("%s\n", failures ? "FAIL" : "PASS");
    return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
