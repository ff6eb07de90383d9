// tests/programs/graph_nodes.cu: the graph nodes and edits beyond kernels and
// copies, as CUDA samples use them. A child graph node (cudaGraphAddChildGraphNode)
// runs a copy of its graph as one node with the child's own edges, later edits
// of the original not reaching it; cudaGraphChildGraphNodeGetGraph,
// cudaGraphNodeGetType, GetNodes/GetRootNodes. cudaGraphDestroyNode takes the
// node's edges with it. Event record and wait nodes order two graphs launched
// on two streams (the second held until the first's gate opens). Stream
// capture of a fork/join over two streams gives CUDA's diamond (independent
// branches, two edges into the join), cudaStreamGetCaptureInfo's dependency
// set, cudaEventRecordExternal as an event record node, and a fork never
// joined back fails with cudaErrorStreamCaptureUnjoined.
#include <atomic>
#include <chrono>
#include <thread>
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

static std::atomic<int> g_gate(0);
static void CUDART_CB wait_gate(void *) {
    for (int i = 0; i < 5000 && !g_gate.load(); i++) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

__global__ void fill(int *a, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = v;
}
__global__ void add_to(int *a, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += v;
}
__global__ void times(int *a, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= k;
}
__global__ void sum2(const int *a, const int *b, int *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

static const int N = 512, T = 128, B = N / T;

static cudaKernelNodeParams kp(void *func, void **args) {
    cudaKernelNodeParams p = {};
    p.func = func;
    p.gridDim = dim3(B);
    p.blockDim = dim3(T);
    p.kernelParams = args;
    return p;
}

static size_t count(cudaError_t (*f)(cudaGraph_t, cudaGraphNode_t *, size_t *), cudaGraph_t g) {
    size_t n = 0;
    cudaCheck(f(g, NULL, &n));
    return n;
}

static size_t edges(cudaGraph_t g) {
    size_t n = 0;
    cudaCheck(cudaGraphGetEdges(g, NULL, NULL, NULL, &n));
    return n;
}

static size_t deps_of(cudaGraphNode_t node) {
    size_t n = 0;
    cudaCheck(cudaGraphNodeGetDependencies(node, NULL, NULL, &n));
    return n;
}

static int first(const int *d) {
    int h = 0;
    cudaCheck(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

static int count_type(cudaGraph_t g, cudaGraphNodeType want) {
    cudaGraphNode_t nodes[16];
    size_t n = 16;
    cudaCheck(cudaGraphGetNodes(g, nodes, &n));
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        cudaGraphNodeType t;
        cudaCheck(cudaGraphNodeGetType(nodes[i], &t));
        k += t == want;
    }
    return k;
}

int main(void) {
    int *a, *b, *c;
    cudaCheck(cudaMalloc(&a, N * sizeof(int)));
    cudaCheck(cudaMalloc(&b, N * sizeof(int)));
    cudaCheck(cudaMalloc(&c, N * sizeof(int)));
    int n = N, three = 3, ten = 10, two = 2, seven = 7;
    cudaStream_t s, s2;
    cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaCheck(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

    // ---- a child graph: a = 3; a += 10 (two nodes, one edge), run as one node
    cudaGraph_t child, parent;
    cudaCheck(cudaGraphCreate(&child, 0));
    cudaGraphNode_t cf, ca;
    void *fill_a[] = {&a, &n, &three}, *add_a[] = {&a, &n, &ten};
    cudaKernelNodeParams p1 = kp((void *)fill, fill_a), p2 = kp((void *)add_to, add_a);
    cudaCheck(cudaGraphAddKernelNode(&cf, child, NULL, 0, &p1));
    cudaCheck(cudaGraphAddKernelNode(&ca, child, &cf, 1, &p2));
    cudaCheck(cudaGraphCreate(&parent, 0));
    cudaGraphNode_t fb, ch, sum;
    void *fill_b[] = {&b, &n, &seven}, *sum_abc[] = {&a, &b, &c, &n};
    cudaKernelNodeParams p3 = kp((void *)fill, fill_b), p4 = kp((void *)sum2, sum_abc);
    cudaCheck(cudaGraphAddKernelNode(&fb, parent, NULL, 0, &p3));
    cudaCheck(cudaGraphAddChildGraphNode(&ch, parent, NULL, 0, child));
    cudaGraphNode_t both[] = {fb, ch};
    cudaCheck(cudaGraphAddKernelNode(&sum, parent, both, 2, &p4));
    // the original child changes after it was added: the node keeps its copy
    cudaGraphNode_t extra;
    void *times_a[] = {&a, &n, &two};
    cudaKernelNodeParams p5 = kp((void *)times, times_a);
    cudaCheck(cudaGraphAddKernelNode(&extra, child, &ca, 1, &p5));

    cudaGraphNodeType t;
    cudaCheck(cudaGraphNodeGetType(ch, &t));
    expect(t == cudaGraphNodeTypeGraph, "a child graph node's type is cudaGraphNodeTypeGraph");
    cudaGraph_t embedded;
    cudaCheck(cudaGraphChildGraphNodeGetGraph(ch, &embedded));
    printf("embedded graph: %zu nodes, %zu root, %zu edge\n", count(cudaGraphGetNodes, embedded),
           count(cudaGraphGetRootNodes, embedded), edges(embedded));
    expect(count(cudaGraphGetNodes, embedded) == 2 && edges(embedded) == 1,
           "the node's graph is the child as it was added (2 nodes, its edge kept)");
    expect(count(cudaGraphGetNodes, child) == 3, "the original child has the node added later");
    printf("parent: %zu nodes, %zu roots, %zu edges\n", count(cudaGraphGetNodes, parent),
           count(cudaGraphGetRootNodes, parent), edges(parent));
    cudaGraphExec_t exec;
    cudaCheck(cudaGraphInstantiate(&exec, parent, 0));
    cudaCheck(cudaGraphLaunch(exec, s));
    cudaCheck(cudaStreamSynchronize(s));
    printf("c = 7 + (3 + 10) = %d\n", first(c));
    expect(first(c) == 20 && first(a) == 13, "the child ran as one node before the sum (a = 13, c = 20)");
    cudaCheck(cudaGraphExecDestroy(exec));

    // ---- cudaGraphDestroyNode: the node and its edges go, the others stay
    cudaCheck(cudaGraphDestroyNode(ch));
    printf("after destroying the child node: %zu nodes, %zu roots, %zu edges, the sum depends on %zu\n",
           count(cudaGraphGetNodes, parent), count(cudaGraphGetRootNodes, parent), edges(parent), deps_of(sum));
    expect(count(cudaGraphGetNodes, parent) == 2 && edges(parent) == 1 && deps_of(sum) == 1,
           "destroying a node removes its edges");
    cudaCheck(cudaMemset(a, 0, N * sizeof(int)));
    cudaCheck(cudaGraphInstantiate(&exec, parent, 0));
    cudaCheck(cudaGraphLaunch(exec, s));
    cudaCheck(cudaStreamSynchronize(s));
    expect(first(c) == 7, "the graph without the node runs the rest (c = 0 + 7)");
    cudaCheck(cudaGraphExecDestroy(exec));
    cudaCheck(cudaGraphDestroy(parent));
    cudaCheck(cudaGraphDestroy(child));

    // ---- event record and wait nodes: g1 (on s, held by a gate) fills a and
    // records ev; g2 (on s2) waits for ev and then copies a into c
    cudaEvent_t ev;
    cudaCheck(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    cudaGraph_t g1, g2;
    cudaCheck(cudaGraphCreate(&g1, 0));
    cudaCheck(cudaGraphCreate(&g2, 0));
    cudaGraphNode_t k1, rec, wait, k2;
    void *fill_a5[] = {&a, &n, &seven};
    cudaKernelNodeParams p6 = kp((void *)fill, fill_a5);
    cudaCheck(cudaGraphAddKernelNode(&k1, g1, NULL, 0, &p6));
    cudaCheck(cudaGraphAddEventRecordNode(&rec, g1, &k1, 1, ev));
    cudaCheck(cudaGraphAddEventWaitNode(&wait, g2, NULL, 0, ev));
    cudaCheck(cudaGraphAddMemcpyNode1D(&k2, g2, &wait, 1, c, a, N * sizeof(int), cudaMemcpyDeviceToDevice));
    cudaEvent_t got = NULL;
    cudaCheck(cudaGraphEventRecordNodeGetEvent(rec, &got));
    cudaGraphNodeType tr, tw;
    cudaCheck(cudaGraphNodeGetType(rec, &tr));
    cudaCheck(cudaGraphNodeGetType(wait, &tw));
    expect(got == ev && tr == cudaGraphNodeTypeEventRecord && tw == cudaGraphNodeTypeWaitEvent,
           "event nodes: their event and types");
    cudaGraphExec_t e1, e2;
    cudaCheck(cudaGraphInstantiate(&e1, g1, 0));
    cudaCheck(cudaGraphInstantiate(&e2, g2, 0));
    cudaCheck(cudaMemset(a, 0, N * sizeof(int)));
    cudaCheck(cudaMemset(c, 0, N * sizeof(int)));
    cudaCheck(cudaLaunchHostFunc(s, wait_gate, NULL));
    cudaCheck(cudaGraphLaunch(e1, s));
    cudaCheck(cudaGraphLaunch(e2, s2));
    cudaError_t held = cudaStreamQuery(s2);
    printf("the waiting graph's stream while the gate is shut: %s\n", cudaGetErrorName(held));
    expect(held == cudaErrorNotReady, "the event wait node holds the second graph");
    g_gate.store(1);
    cudaCheck(cudaStreamSynchronize(s2));
    expect(first(c) == 7, "the copy after the wait saw the first graph's fill (c = 7)");
    cudaCheck(cudaStreamSynchronize(s));
    cudaCheck(cudaGraphExecDestroy(e1));
    cudaCheck(cudaGraphExecDestroy(e2));
    cudaCheck(cudaGraphDestroy(g1));
    cudaCheck(cudaGraphDestroy(g2));

    // ---- fork/join capture over two streams: a diamond
    cudaEvent_t fork, join;
    cudaCheck(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    cudaCheck(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    cudaCheck(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    fill<<<B, T, 0, s>>>(a, N, 1);                    // root
    cudaCheck(cudaEventRecord(fork, s));
    cudaCheck(cudaStreamWaitEvent(s2, fork, 0));
    add_to<<<B, T, 0, s>>>(a, N, 4);                  // branch on s
    fill<<<B, T, 0, s2>>>(b, N, 20);                  // branch on s2
    cudaCheck(cudaEventRecord(join, s2));
    cudaCheck(cudaStreamWaitEvent(s, join, 0));
    cudaStreamCaptureStatus st;
    const cudaGraphNode_t *dset = NULL;
    size_t ndeps = 0;
    cudaCheck(cudaStreamGetCaptureInfo(s, &st, NULL, NULL, &dset, NULL, &ndeps));
    printf("capture dependencies of the origin stream after the join: %zu\n", ndeps);
    expect(ndeps == 2, "after the join the next node depends on both branches");
    sum2<<<B, T, 0, s>>>(a, b, c, N);                 // join
    cudaGraph_t diamond;
    cudaCheck(cudaStreamEndCapture(s, &diamond));
    cudaGraphNode_t roots[4];
    size_t nroots = 4;
    cudaCheck(cudaGraphGetRootNodes(diamond, roots, &nroots));
    size_t after_root = 0;
    if (nroots == 1) cudaCheck(cudaGraphNodeGetDependentNodes(roots[0], NULL, NULL, &after_root));
    printf("diamond: %zu nodes, %zu edges, %zu root with %zu dependents\n", count(cudaGraphGetNodes, diamond),
           edges(diamond), nroots, after_root);
    expect(count(cudaGraphGetNodes, diamond) == 4 && edges(diamond) == 4 && nroots == 1 && after_root == 2,
           "the captured fork/join is CUDA's diamond");
    cudaCheck(cudaGraphInstantiate(&exec, diamond, 0));
    cudaCheck(cudaGraphLaunch(exec, s));
    cudaCheck(cudaStreamSynchronize(s));
    expect(first(c) == 25, "the diamond computes (1 + 4) + 20");
    cudaCheck(cudaGraphExecDestroy(exec));
    cudaCheck(cudaGraphDestroy(diamond));

    // ---- cudaEventRecordExternal in a capture is an event record node
    cudaCheck(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    fill<<<B, T, 0, s>>>(a, N, 2);
    cudaCheck(cudaEventRecordWithFlags(ev, s, cudaEventRecordExternal));
    cudaGraph_t ext;
    cudaCheck(cudaStreamEndCapture(s, &ext));
    printf("external record capture: %zu nodes, %d event record node\n", count(cudaGraphGetNodes, ext),
           count_type(ext, cudaGraphNodeTypeEventRecord));
    expect(count(cudaGraphGetNodes, ext) == 2 && count_type(ext, cudaGraphNodeTypeEventRecord) == 1,
           "cudaEventRecordExternal is captured as a node");
    cudaCheck(cudaGraphDestroy(ext));

    // ---- a fork never joined back
    cudaStream_t s3;
    cudaCheck(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
    cudaCheck(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    fill<<<B, T, 0, s>>>(a, N, 1);
    cudaCheck(cudaEventRecord(fork, s));
    cudaCheck(cudaStreamWaitEvent(s3, fork, 0));
    fill<<<B, T, 0, s3>>>(b, N, 2);
    cudaGraph_t unjoined = NULL;
    cudaError_t end = cudaStreamEndCapture(s, &unjoined);
    printf("cudaStreamEndCapture with an unjoined fork: %s, graph %s\n", cudaGetErrorName(end),
           unjoined ? "returned" : "NULL");
    expect(end == cudaErrorStreamCaptureUnjoined && !unjoined, "an unjoined fork fails the capture");
    cudaGetLastError();

    cudaCheck(cudaEventDestroy(ev));
    cudaCheck(cudaEventDestroy(fork));
    cudaCheck(cudaEventDestroy(join));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaStreamDestroy(s2));
    cudaCheck(cudaFree(a));
    cudaCheck(cudaFree(b));
    cudaCheck(cudaFree(c));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
