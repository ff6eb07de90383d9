// tests/programs/graph_edges.cu: a graph built the way NVIDIA's
// simpleCudaGraphs sample builds it, then edited. cudaGraphAddMemcpyNode with
// cudaMemcpy3DParms (pitched pointers) in and out, a memset node, kernel
// nodes, a host node and an empty node as a join; cudaGraphAddDependencies
// adding an edge against the order the nodes were added (the launch must
// follow the edge), cudaGraphRemoveDependencies; the queries (GetEdges,
// NodeGetDependencies/DependentNodes, GetRootNodes, NodeGetType, the
// memset/memcpy/host node GetParams); cudaGraphClone, NodeFindInClone,
// cudaGraphUpload, launching the original and the clone.
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

__global__ void scale(int *x, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= k;
}

__global__ void add_index(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += i;
}

struct Tally {
    const int *h_out;
    int n;
    long sum;
    int calls;
};

static void CUDART_CB tally(void *p) {
    Tally *t = (Tally *)p;
    long s = 0;
    for (int i = 0; i < t->n; i++) s += t->h_out[i];
    t->sum = s;
    t->calls++;
}

static cudaKernelNodeParams kernel_params(void *func, int n, void **args) {
    cudaKernelNodeParams kp = {};
    kp.func = func;
    kp.gridDim = dim3((n + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    return kp;
}

int main(void) {
    const int n = 1000;
    int *h_in, *h_out, *d_x;
    cudaCheck(cudaMallocHost(&h_in, n * sizeof(int)));
    cudaCheck(cudaMallocHost(&h_out, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));
    for (int i = 0; i < n; i++) h_in[i] = 1;
    cudaStream_t s;
    cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cudaGraph_t g;
    cudaCheck(cudaGraphCreate(&g, 0));
    // memset d_x to 0, then copy h_in over it (3D parameters, one row)
    cudaMemsetParams ms = {};
    ms.dst = d_x;
    ms.value = 0;
    ms.elementSize = sizeof(int);
    ms.width = n;
    ms.height = 1;
    cudaGraphNode_t n_set, n_in, n_add, n_scale, n_out, n_host, n_join;
    cudaCheck(cudaGraphAddMemsetNode(&n_set, g, NULL, 0, &ms));
    cudaMemcpy3DParms in = {};
    in.srcPtr = make_cudaPitchedPtr(h_in, n * sizeof(int), n, 1);
    in.dstPtr = make_cudaPitchedPtr(d_x, n * sizeof(int), n, 1);
    in.extent = make_cudaExtent(n * sizeof(int), 1, 1);
    in.kind = cudaMemcpyHostToDevice;
    cudaCheck(cudaGraphAddMemcpyNode(&n_in, g, &n_set, 1, &in));

    // n_scale is added before n_add but must run after it: x = (1 + i) * 3
    int nn = n, k = 3;
    void *scale_args[] = {&d_x, &nn, &k};
    void *add_args[] = {&d_x, &nn};
    cudaKernelNodeParams kp_scale = kernel_params((void *)scale, n, scale_args);
    cudaKernelNodeParams kp_add = kernel_params((void *)add_index, n, add_args);
    cudaCheck(cudaGraphAddKernelNode(&n_scale, g, NULL, 0, &kp_scale));
    cudaCheck(cudaGraphAddKernelNode(&n_add, g, &n_in, 1, &kp_add));
    cudaCheck(cudaGraphAddDependencies(g, &n_add, &n_scale, NULL, 1));

    cudaMemcpy3DParms out = {};
    out.srcPtr = make_cudaPitchedPtr(d_x, n * sizeof(int), n, 1);
    out.dstPtr = make_cudaPitchedPtr(h_out, n * sizeof(int), n, 1);
    out.extent = make_cudaExtent(n * sizeof(int), 1, 1);
    out.kind = cudaMemcpyDeviceToHost;
    cudaCheck(cudaGraphAddMemcpyNode(&n_out, g, &n_scale, 1, &out));
    Tally t = {h_out, n, 0, 0};
    cudaHostNodeParams hp = {tally, &t};
    cudaCheck(cudaGraphAddHostNode(&n_host, g, &n_out, 1, &hp));
    cudaGraphNode_t join_on[] = {n_host, n_scale};
    cudaCheck(cudaGraphAddEmptyNode(&n_join, g, join_on, 2));

    size_t nodes = 0, edges = 0, roots = 0, deps = 0, dependents = 0;
    cudaCheck(cudaGraphGetNodes(g, NULL, &nodes));
    cudaCheck(cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
    cudaCheck(cudaGraphGetRootNodes(g, NULL, &roots));
    cudaCheck(cudaGraphNodeGetDependencies(n_join, NULL, NULL, &deps));
    cudaCheck(cudaGraphNodeGetDependentNodes(n_scale, NULL, NULL, &dependents));
    printf("nodes %zu, edges %zu, roots %zu, join depends on %zu, scale has %zu dependents\n", nodes, edges, roots,
           deps, dependents);
    expect(nodes == 7 && edges == 7 && roots == 1 && deps == 2 && dependents == 2, "node and edge counts");

    cudaGraphNode_t from[8], to[8];
    size_t ne = 8;
    cudaCheck(cudaGraphGetEdges(g, from, to, NULL, &ne));
    bool found = false;
    for (size_t i = 0; i < ne; i++) found |= from[i] == n_add && to[i] == n_scale;
    expect(ne == 7 && found, "GetEdges lists the added edge add_index -> scale");
    cudaGraphNode_t dep_of_scale[4];
    size_t nd = 4;
    cudaCheck(cudaGraphNodeGetDependencies(n_scale, dep_of_scale, NULL, &nd));
    expect(nd == 1 && dep_of_scale[0] == n_add, "scale depends on add_index only");

    cudaGraphNodeType ty;
    cudaCheck(cudaGraphNodeGetType(n_join, &ty));
    expect(ty == cudaGraphNodeTypeEmpty, "the join is an empty node");
    cudaCheck(cudaGraphNodeGetType(n_in, &ty));
    expect(ty == cudaGraphNodeTypeMemcpy, "the 3D copy is a memcpy node");
    cudaMemsetParams ms2;
    cudaCheck(cudaGraphMemsetNodeGetParams(n_set, &ms2));
    expect(ms2.dst == d_x && ms2.elementSize == 4 && ms2.width == (size_t)n && ms2.height == 1,
           "memset node parameters read back");
    cudaMemcpy3DParms out2;
    cudaCheck(cudaGraphMemcpyNodeGetParams(n_out, &out2));
    expect(out2.srcPtr.ptr == d_x && out2.dstPtr.ptr == h_out && out2.extent.width == n * sizeof(int) &&
               out2.kind == cudaMemcpyDeviceToHost,
           "memcpy node parameters read back");
    cudaHostNodeParams hp2;
    cudaCheck(cudaGraphHostNodeGetParams(n_host, &hp2));
    expect(hp2.fn == tally && hp2.userData == &t, "host node parameters read back");

    // a dependency twice, or on a node of another graph, is refused
    cudaGraph_t other;
    cudaCheck(cudaGraphCreate(&other, 0));
    cudaGraphNode_t n_other;
    cudaCheck(cudaGraphAddEmptyNode(&n_other, other, NULL, 0));
    cudaGraphNode_t twice[] = {n_in, n_in};
    cudaGraphNode_t bad;
    expect(cudaGraphAddEmptyNode(&bad, g, twice, 2) == cudaErrorInvalidValue, "the same dependency twice: invalid value");
    expect(cudaGraphAddEmptyNode(&bad, g, &n_other, 1) == cudaErrorInvalidValue,
           "a dependency in another graph: invalid value");
    expect(cudaGraphAddDependencies(g, &n_add, &n_scale, NULL, 1) == cudaErrorInvalidValue,
           "adding an existing edge again: invalid value");
    cudaGetLastError();
    cudaCheck(cudaGraphDestroy(other));

    cudaGraphExec_t exec;
    cudaCheck(cudaGraphInstantiate(&exec, g, 0));
    cudaCheck(cudaGraphUpload(exec, s));
    long want = 0;
    for (int i = 0; i < n; i++) want += (1 + i) * 3;
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < n; i++) h_in[i] = r + 1;
        cudaCheck(cudaGraphLaunch(exec, s));
        cudaCheck(cudaStreamSynchronize(s));
        long w = 0;
        for (int i = 0; i < n; i++) w += (r + 1 + i) * 3;
        printf("launch %d: x[0] = %d, x[999] = %d, host node sum %ld\n", r, h_out[0], h_out[999], t.sum);
        expect(t.sum == w && h_out[999] == (r + 1 + 999) * 3, "add_index ran before scale, the host node after the copy");
    }

    // the clone: same nodes, its own handles; editing the original afterwards leaves it alone
    cudaGraph_t clone;
    cudaCheck(cudaGraphClone(&clone, g));
    cudaGraphNode_t c_scale;
    cudaCheck(cudaGraphNodeFindInClone(&c_scale, n_scale, clone));
    expect(c_scale != n_scale, "the clone's node is a node of its own");
    size_t c_nodes = 0;
    cudaCheck(cudaGraphGetNodes(clone, NULL, &c_nodes));
    expect(c_nodes == 7, "the clone has 7 nodes");
    cudaCheck(cudaGraphRemoveDependencies(g, &n_add, &n_scale, NULL, 1));
    cudaCheck(cudaGraphGetEdges(g, NULL, NULL, NULL, &edges));
    size_t c_edges = 0;
    cudaCheck(cudaGraphGetEdges(clone, NULL, NULL, NULL, &c_edges));
    cudaCheck(cudaGraphGetRootNodes(g, NULL, &roots));
    printf("after RemoveDependencies: edges %zu (clone %zu), roots %zu\n", edges, c_edges, roots);
    expect(edges == 6 && c_edges == 7 && roots == 2, "the edge is gone from the original only");
    cudaGraphExec_t cexec;
    cudaCheck(cudaGraphInstantiate(&cexec, clone, 0));
    for (int i = 0; i < n; i++) h_in[i] = 1;
    t.calls = 0;
    cudaCheck(cudaGraphLaunch(cexec, s));
    cudaCheck(cudaStreamSynchronize(s));
    expect(t.sum == want && t.calls == 1, "the clone computes the same");

    cudaCheck(cudaGraphExecDestroy(cexec));
    cudaCheck(cudaGraphExecDestroy(exec));
    cudaCheck(cudaGraphDestroy(clone));
    cudaCheck(cudaGraphDestroy(g));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFreeHost(h_in));
    cudaCheck(cudaFreeHost(h_out));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
