// tests/programs/graph_manual.cu: a CUDA graph built by hand. cudaGraphCreate,
// a memset node, two kernel nodes (cudaKernelNodeParams with void **args),
// a 1D memcpy node back to the host and a host node, their dependencies given
// at creation, cudaGraphGetNodes/GetRootNodes; instantiate, launch several
// times, change a kernel node's argument in the executable graph with
// cudaGraphExecKernelNodeSetParams, launch again.
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

__global__ void iota_times(int *x, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += i * k;
}

__global__ void block_sums(const int *x, int *sums) {
    __shared__ int s[128];
    s[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (int w = 64; w > 0; w /= 2) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = s[0];
}

struct HostLog {
    const int *sums;  // pinned, written by the memcpy node before the host node runs
    int calls;
    long last_total;
};

static void CUDART_CB host_node(void *p) {
    HostLog *l = (HostLog *)p;
    long t = 0;
    for (int b = 0; b < 8; b++) t += l->sums[b];
    l->calls++;
    l->last_total = t;
}

int main(void) {
    int failures = 0;
    const int n = 1024, blocks = 8;
    int *d_x, *d_sums, *h_sums;
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d_sums, blocks * sizeof(int)));
    cudaCheck(cudaMallocHost(&h_sums, blocks * sizeof(int)));
    HostLog log = {h_sums, 0, 0};

    cudaGraph_t g;
    cudaCheck(cudaGraphCreate(&g, 0));

    cudaMemsetParams ms = {};
    ms.dst = d_x;
    ms.value = 0;
    ms.elementSize = sizeof(int);
    ms.width = n;
    ms.height = 1;
    ms.pitch = 0;
    cudaGraphNode_t n_memset, n_iota, n_sums, n_copy, n_host;
    cudaCheck(cudaGraphAddMemsetNode(&n_memset, g, NULL, 0, &ms));

    int nn = n, k = 1;
    void *iota_args[] = {&d_x, &nn, &k};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)iota_times;
    kp.gridDim = dim3(n / 128);
    kp.blockDim = dim3(128);
    kp.sharedMemBytes = 0;
    kp.kernelParams = iota_args;
    kp.extra = NULL;
    cudaCheck(cudaGraphAddKernelNode(&n_iota, g, &n_memset, 1, &kp));

    void *sums_args[] = {&d_x, &d_sums};
    cudaKernelNodeParams sp = {};
    sp.func = (void *)block_sums;
    sp.gridDim = dim3(blocks);
    sp.blockDim = dim3(128);
    sp.kernelParams = sums_args;
    cudaCheck(cudaGraphAddKernelNode(&n_sums, g, &n_iota, 1, &sp));
    cudaCheck(cudaGraphAddMemcpyNode1D(&n_copy, g, &n_sums, 1, h_sums, d_sums, blocks * sizeof(int),
                                       cudaMemcpyDeviceToHost));
    cudaHostNodeParams hp = {host_node, &log};
    cudaCheck(cudaGraphAddHostNode(&n_host, g, &n_copy, 1, &hp));

    size_t num = 0, roots = 0;
    cudaCheck(cudaGraphGetNodes(g, NULL, &num));
    cudaCheck(cudaGraphGetRootNodes(g, NULL, &roots));
    printf("graph: %zu nodes, %zu root\n", num, roots);
    failures += num != 5 || roots != 1;

    cudaGraphExec_t exec;
    cudaCheck(cudaGraphInstantiate(&exec, g, 0));
    // k is read when the node was added: changing it now changes nothing
    k = 100;
    cudaStream_t s;
    cudaCheck(cudaStreamCreate(&s));
    for (int r = 1; r <= 3; r++) {
        cudaCheck(cudaGraphLaunch(exec, s));
        cudaCheck(cudaStreamSynchronize(s));
        printf("launch %d: sums[0] = %d, sums[7] = %d, host node calls %d, total %ld\n", r, h_sums[0], h_sums[7],
               log.calls, log.last_total);
        failures += log.calls != r || log.last_total != 523776;
    }

    // now change the argument in the executable graph
    k = 2;
    cudaCheck(cudaGraphExecKernelNodeSetParams(exec, n_iota, &kp));
    cudaCheck(cudaGraphLaunch(exec, s));
    cudaCheck(cudaStreamSynchronize(s));
    printf("after SetParams with k = 2: sums[0] = %d, total %ld\n", h_sums[0], log.last_total);
    failures += log.last_total != 2 * 523776;

    cudaCheck(cudaGraphExecDestroy(exec));
    cudaCheck(cudaGraphDestroy(g));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_sums));
    cudaCheck(cudaFreeHost(h_sums));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
