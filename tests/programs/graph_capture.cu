// tests/programs/graph_capture.cu: CUDA graphs by stream capture. Work
// queued on a capturing stream is recorded, not run: a memset, three kernels
// and a copy back become a five-node graph; a fork into a second stream and
// the join back (events) are captured too. The graph is instantiated once and
// launched several times; it runs only when launched. A synchronizing query
// of a capturing stream is refused and invalidates the capture.
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

__global__ void add(int *acc, const int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += x[i];
}

__global__ void scale(int *x, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= k;
}

static size_t count_nodes(cudaGraph_t g) {
    size_t num = 0;
    cudaCheck(cudaGraphGetNodes(g, NULL, &num));
    return num;
}

int main(void) {
    int failures = 0;
    const int n = 1024;
    int *d_x, *d_acc, *d_tmp, *h;
    cudaCheck(cudaMalloc(&d_x, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d_acc, n * sizeof(int)));
    cudaCheck(cudaMalloc(&d_tmp, n * sizeof(int)));
    cudaCheck(cudaMallocHost(&h, n * sizeof(int)));
    for (int i = 0; i < n; i++) h[i] = i;
    cudaCheck(cudaMemcpy(d_x, h, n * sizeof(int), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemset(d_acc, 0, n * sizeof(int)));
    for (int i = 0; i < n; i++) h[i] = -1;

    cudaStream_t s, s2;
    cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaCheck(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

    // capture: tmp = 0; tmp += x; tmp *= 3; acc += tmp; h = acc
    cudaStreamCaptureStatus st;
    cudaCheck(cudaStreamIsCapturing(s, &st));
    printf("capturing before begin: %s\n", st == cudaStreamCaptureStatusNone ? "none" : "active");
    cudaCheck(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaCheck(cudaStreamIsCapturing(s, &st));
    printf("capturing after begin: %s\n", st == cudaStreamCaptureStatusActive ? "active" : "none");
    cudaCheck(cudaMemsetAsync(d_tmp, 0, n * sizeof(int), s));
    add<<<n / 256, 256, 0, s>>>(d_tmp, d_x, n);
    scale<<<n / 256, 256, 0, s>>>(d_tmp, n, 3);
    add<<<n / 256, 256, 0, s>>>(d_acc, d_tmp, n);
    cudaCheck(cudaMemcpyAsync(h, d_acc, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    cudaGraph_t graph;
    cudaCheck(cudaStreamEndCapture(s, &graph));
    cudaCheck(cudaStreamIsCapturing(s, &st));
    printf("capturing after end: %s\n", st == cudaStreamCaptureStatusNone ? "none" : "active");
    printf("captured nodes: %zu\n", count_nodes(graph));
    cudaCheck(cudaStreamSynchronize(s));
    printf("nothing ran during capture: h[1] = %d\n", h[1]);
    failures += count_nodes(graph) != 5 || h[1] != -1;

    cudaGraphExec_t exec;
    cudaCheck(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 1; r <= 4; r++) {
        cudaCheck(cudaGraphLaunch(exec, s));
        cudaCheck(cudaStreamSynchronize(s));
        printf("after launch %d: h[1] = %d, h[1023] = %d\n", r, h[1], h[n - 1]);
        failures += h[1] != 3 * r || h[n - 1] != 3 * r * (n - 1);
    }

    // fork/join: s forks to s2 through an event and joins back
    cudaEvent_t fork, join;
    cudaCheck(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    cudaCheck(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    cudaCheck(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaCheck(cudaEventRecord(fork, s));
    cudaCheck(cudaStreamWaitEvent(s2, fork, 0));
    scale<<<n / 256, 256, 0, s>>>(d_acc, n, 2);   // branch 1
    scale<<<n / 256, 256, 0, s2>>>(d_x, n, 5);    // branch 2
    cudaCheck(cudaEventRecord(join, s2));
    cudaCheck(cudaStreamWaitEvent(s, join, 0));
    add<<<n / 256, 256, 0, s>>>(d_acc, d_x, n);   // after both
    cudaGraph_t g2;
    cudaCheck(cudaStreamEndCapture(s, &g2));
    printf("fork/join graph nodes: %zu\n", count_nodes(g2));
    cudaGraphExec_t e2;
    cudaCheck(cudaGraphInstantiate(&e2, g2, 0));
    cudaCheck(cudaGraphLaunch(e2, s));
    cudaCheck(cudaStreamSynchronize(s));
    cudaCheck(cudaMemcpy(h, d_acc, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("after the fork/join graph: acc[1] = %d, acc[1023] = %d\n", h[1], h[n - 1]);
    failures += count_nodes(g2) != 3 || h[1] != 2 * 12 + 5 || h[n - 1] != (2 * 12 + 5) * (n - 1);

    // a query of a capturing stream is not allowed and ends the capture's usefulness
    cudaCheck(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    scale<<<n / 256, 256, 0, s>>>(d_acc, n, 7);
    cudaError_t q = cudaStreamQuery(s);
    cudaGraph_t g3 = NULL;
    cudaError_t end = cudaStreamEndCapture(s, &g3);
    printf("cudaStreamQuery while capturing: %s\n", cudaGetErrorName(q));
    printf("cudaStreamEndCapture after it: %s, graph %s\n", cudaGetErrorName(end), g3 ? "returned" : "NULL");
    failures += q != cudaErrorStreamCaptureUnsupported || end != cudaErrorStreamCaptureInvalidated || g3 != NULL;
    cudaGetLastError();
    cudaCheck(cudaMemcpy(h, d_acc, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("the refused capture ran nothing: acc[1] = %d\n", h[1]);
    failures += h[1] != 29;

    cudaCheck(cudaGraphExecDestroy(exec));
    cudaCheck(cudaGraphExecDestroy(e2));
    cudaCheck(cudaGraphDestroy(graph));
    cudaCheck(cudaGraphDestroy(g2));
    cudaCheck(cudaEventDestroy(fork));
    cudaCheck(cudaEventDestroy(join));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaStreamDestroy(s2));
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_acc));
    cudaCheck(cudaFree(d_tmp));
    cudaCheck(cudaFreeHost(h));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
