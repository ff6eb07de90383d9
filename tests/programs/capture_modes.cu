// tests/programs/capture_modes.cu: what a program may call while a stream
// captures, per cudaStreamCaptureMode (the CUDA runtime API documentation).
// Global mode: cudaMalloc, cudaStreamSynchronize and cudaDeviceSynchronize
// of other work, cudaEventQuery fail with cudaErrorStreamCaptureUnsupported
// and invalidate the capture (cudaStreamEndCapture:
// cudaErrorStreamCaptureInvalidated, no graph). A synchronous cudaMemcpy is
// not one of those "potentially unsafe" calls (H200, session 8): it is work
// on the legacy stream, which a non-blocking stream's capture does not
// involve, so it runs and the capture survives.
// Relaxed mode: cudaMalloc and a query of an event outside the capture are
// allowed, the capture survives. An event recorded inside a capture stands
// for no work that will run: querying it is cudaErrorCapturedEvent and
// invalidates the capture, and so is synchronizing with it (H200, session
// 9, relaxed mode; the emulator does the same in every mode). A stream of
// another capture waiting on it would merge two capture sequences:
// cudaErrorStreamCaptureMerge, and both captures are invalidated (H200,
// session 9).
// Another thread: its global capture forbids the main
// thread's cudaMalloc (and is invalidated by it), its thread-local capture
// does not. cudaThreadExchangeStreamCaptureMode(relaxed) lets the thread make
// the call under a global capture. Legacy-stream work while a blocking
// stream captures (a launch on stream 0, a synchronous cudaMemcpy or
// cudaMemset): cudaErrorStreamCaptureImplicit, the capture invalidated.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void inc(int *x) { x[threadIdx.x] += 1; }

static int *g_d;

// Begins a capture of s in `mode` with one kernel in it.
static void begin(cudaStream_t s, cudaStreamCaptureMode mode) {
    cudaCheck(cudaStreamBeginCapture(s, mode));
    inc<<<1, 32, 0, s>>>(g_d);
    cudaCheck(cudaGetLastError());
}

// Ends the capture of s: prints the result and drops the graph.
static void end(cudaStream_t s, const char *what) {
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture(s, &g);
    printf("  end capture after %s: %s%s\n", what, cudaGetErrorName(e), g ? " (graph)" : "");
    if (g) cudaCheck(cudaGraphDestroy(g));
    cudaGetLastError();
}

static void show(const char *call, cudaError_t e) {
    printf("  %-34s %s\n", call, cudaGetErrorName(e));
    cudaGetLastError();
}

int main(void) {
    cudaCheck(cudaMalloc(&g_d, 32 * sizeof(int)));
    cudaCheck(cudaMemset(g_d, 0, 32 * sizeof(int)));
    int h[32];
    cudaStream_t s, other;
    cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaCheck(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    cudaEvent_t outside, inside;
    cudaCheck(cudaEventCreate(&outside));
    cudaCheck(cudaEventCreate(&inside));
    cudaCheck(cudaEventRecord(outside, other));
    cudaCheck(cudaDeviceSynchronize());
    void *p = NULL;

    printf("global mode:\n");
    begin(s, cudaStreamCaptureModeGlobal);
    show("cudaMalloc", cudaMalloc(&p, 1024));
    end(s, "cudaMalloc");
    begin(s, cudaStreamCaptureModeGlobal);
    show("cudaMemcpy", cudaMemcpy(h, g_d, sizeof h, cudaMemcpyDeviceToHost));
    end(s, "cudaMemcpy");
    begin(s, cudaStreamCaptureModeGlobal);
    show("cudaStreamSynchronize(other)", cudaStreamSynchronize(other));
    end(s, "cudaStreamSynchronize");
    begin(s, cudaStreamCaptureModeGlobal);
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    end(s, "cudaDeviceSynchronize");
    begin(s, cudaStreamCaptureModeGlobal);
    show("cudaEventQuery(outside)", cudaEventQuery(outside));
    end(s, "cudaEventQuery");
    begin(s, cudaStreamCaptureModeGlobal);
    end(s, "nothing unsafe");

    printf("relaxed mode:\n");
    begin(s, cudaStreamCaptureModeRelaxed);
    cudaError_t e = cudaMalloc(&p, 1024);
    show("cudaMalloc", e);
    if (e == cudaSuccess) cudaCheck(cudaFree(p));
    show("cudaEventQuery(outside)", cudaEventQuery(outside));
    end(s, "cudaMalloc, cudaFree, cudaEventQuery");
    begin(s, cudaStreamCaptureModeRelaxed);
    cudaCheck(cudaEventRecord(inside, s));
    show("cudaEventQuery(recorded inside)", cudaEventQuery(inside));
    end(s, "querying an event recorded inside");
    begin(s, cudaStreamCaptureModeRelaxed);
    cudaCheck(cudaEventRecord(inside, s));
    show("cudaEventSynchronize(inside)", cudaEventSynchronize(inside));
    end(s, "synchronizing with an event recorded inside");
    begin(s, cudaStreamCaptureModeRelaxed);
    begin(other, cudaStreamCaptureModeRelaxed);
    cudaCheck(cudaEventRecord(inside, s));
    show("cudaStreamWaitEvent(2nd capture)", cudaStreamWaitEvent(other, inside, 0));
    end(other, "waiting on another capture's event");
    end(s, "another capture waited on its event");

    printf("the thread's own mode relaxed under a global capture:\n");
    begin(s, cudaStreamCaptureModeGlobal);
    cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
    cudaCheck(cudaThreadExchangeStreamCaptureMode(&m));
    e = cudaMalloc(&p, 1024);
    show("cudaMalloc", e);
    if (e == cudaSuccess) cudaCheck(cudaFree(p));
    cudaCheck(cudaThreadExchangeStreamCaptureMode(&m));
    printf("  mode given back: %s\n", m == cudaStreamCaptureModeRelaxed ? "relaxed" : "other");
    end(s, "cudaMalloc");

    printf("another thread captures:\n");
    const cudaStreamCaptureMode modes[2] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal};
    const char *names[2] = {"global", "thread-local"};
    for (int k = 0; k < 2; k++) {
        std::atomic<int> stage(0);
        std::thread t([&] {
            begin(s, modes[k]);
            stage = 1;
            while (stage.load() != 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            end(s, "the main thread's cudaMalloc");
        });
        while (stage.load() != 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        e = cudaMalloc(&p, 1024);
        printf("  main thread's cudaMalloc under a %s capture: %s\n", names[k], cudaGetErrorName(e));
        if (e == cudaSuccess) cudaCheck(cudaFree(p));
        cudaGetLastError();
        stage = 2;
        t.join();
    }

    printf("the legacy stream while a blocking stream captures (relaxed):\n");
    cudaStream_t blocking;
    cudaCheck(cudaStreamCreate(&blocking));
    begin(blocking, cudaStreamCaptureModeRelaxed);
    inc<<<1, 32>>>(g_d);
    show("a launch on stream 0", cudaGetLastError());
    end(blocking, "the launch on stream 0");
    begin(blocking, cudaStreamCaptureModeRelaxed);
    show("cudaMemcpy", cudaMemcpy(h, g_d, sizeof h, cudaMemcpyDeviceToHost));
    end(blocking, "cudaMemcpy");
    begin(blocking, cudaStreamCaptureModeRelaxed);
    show("cudaMemset", cudaMemset(g_d, 0, sizeof h));
    end(blocking, "cudaMemset");

    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaMemcpy(h, g_d, sizeof h, cudaMemcpyDeviceToHost));
    printf("nothing captured ran: x[0] = %d\n", h[0]);
    cudaCheck(cudaEventDestroy(outside));
    cudaCheck(cudaEventDestroy(inside));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaStreamDestroy(other));
    cudaCheck(cudaStreamDestroy(blocking));
    cudaCheck(cudaFree(g_d));
    printf("PASS\n");
    return 0;
}
