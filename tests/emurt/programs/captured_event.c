/* tests/emurt/programs/captured_event.c: what a program may do with an
 * event recorded inside a stream capture (built with cc, no nvcc needed;
 * the captured work is memsets). Querying or synchronizing with it is
 * cudaErrorCapturedEvent and invalidates the whole capture, even when the
 * event was recorded in a stream that joined the capture through an event
 * (the origin's cudaStreamEndCapture fails); a stream outside any capture
 * waiting on it joins the capture; a stream of another capture waiting on
 * it, the other capture's origin or a stream joined to it, would merge the
 * two: cudaErrorStreamCaptureMerge, and both captures are invalidated (as
 * on the H200, session 9). */
#include <cuda_runtime_api.h>
#include <stdio.h>

static void *g_buf;

static const char *end(cudaStream_t s) {
    cudaGraph_t g = NULL;
    cudaError_t rc = cudaStreamEndCapture(s, &g);
    if (g) cudaGraphDestroy(g);
    return cudaGetErrorName(rc);
}

static void begin(cudaStream_t s) {
    cudaError_t rc = cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    if (rc == cudaSuccess) rc = cudaMemsetAsync(g_buf, 0, 256, s);
    if (rc) printf("begin: %s\n", cudaGetErrorName(rc));
}

int main(void) {
    cudaStream_t a, b, c;
    cudaEvent_t e, back;
    /* b first: a runtime that spoils only the first stream it finds in the capture misses a */
    if (cudaMalloc(&g_buf, 256) || cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking) ||
        cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking) || cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking) ||
        cudaEventCreate(&e) || cudaEventCreate(&back)) {
        printf("setup failed\n");
        return 1;
    }

    begin(a);
    cudaEventRecord(e, a);
    printf("query: %s, ", cudaGetErrorName(cudaEventQuery(e)));
    printf("end: %s\n", end(a));

    begin(a);
    cudaEventRecord(e, a);
    printf("synchronize: %s, ", cudaGetErrorName(cudaEventSynchronize(e)));
    printf("end: %s\n", end(a));

    /* b joins a's capture; an event recorded in b is queried */
    begin(a);
    cudaEventRecord(e, a);
    printf("fork: %s, ", cudaGetErrorName(cudaStreamWaitEvent(b, e, 0)));
    cudaMemsetAsync(g_buf, 1, 256, b);
    cudaEventRecord(back, b);
    printf("query in the fork: %s, ", cudaGetErrorName(cudaEventQuery(back)));
    cudaStreamWaitEvent(a, back, 0);
    printf("end: %s\n", end(a));

    /* the same fork and join without the query is a graph */
    begin(a);
    cudaEventRecord(e, a);
    cudaStreamWaitEvent(b, e, 0);
    cudaMemsetAsync(g_buf, 1, 256, b);
    cudaEventRecord(back, b);
    cudaStreamWaitEvent(a, back, 0);
    printf("fork and join: %s\n", end(a));

    begin(a);
    begin(b);
    cudaEventRecord(e, a);
    printf("wait from another capture: %s, ", cudaGetErrorName(cudaStreamWaitEvent(b, e, 0)));
    printf("ends: %s ", end(b));
    printf("%s\n", end(a));

    /* b joins a's capture, then waits on an event of c's capture */
    begin(a);
    cudaEventRecord(e, a);
    cudaStreamWaitEvent(b, e, 0);
    begin(c);
    cudaEventRecord(back, c);
    printf("a joined stream waits on another capture: %s, ", cudaGetErrorName(cudaStreamWaitEvent(b, back, 0)));
    printf("ends: %s ", end(c));
    printf("%s\n", end(a));

    printf("after: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
