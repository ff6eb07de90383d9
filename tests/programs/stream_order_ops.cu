// tests/programs/stream_order_ops.cu: every kind of stream operation keeps
// stream order behind a stream held by a host function (cudaLaunchHostFunc
// waiting on a gate the main thread opens later) and behind an event wait:
// cudaMemset2DAsync, cudaMemcpy2DAsync, cudaMemset3DAsync, cudaMemcpy3DAsync,
// cudaMemcpyPeerAsync, cudaMemPrefetchAsync, cudaFreeAsync of memory a queued
// kernel still writes, and cudaMemset2DAsync on the legacy stream behind a
// held blocking stream. Nothing may run while the gate is shut (the pinned
// results keep their markers); once it opens, each result shows the
// operations ran in the order issued. Every kernel is launched once before
// the gate shuts: CUDA loads a kernel at its first launch and the load waits
// for the work in flight (on the H200, session 8, the first launch of
// fill_rows behind the gate hung the program). A watchdog thread opens the
// gate after 5 s and names the call the host was blocked in, so a call that
// blocks is reported, not a hang. Last, the synchronous cudaMemset2D of
// device memory behind a held blocking stream: asynchronous to the host, as
// CUDA's "API synchronization behavior" says.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
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
    while (!g_gate.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// The call the main thread is in while the gate is shut, and the one the
// watchdog found it blocked in (NULL: none).
static std::atomic<const char *> g_step("");
static std::atomic<const char *> g_blocked(nullptr);
static void watchdog() {
    for (int i = 0; i < 5000 && !g_gate.load(); i++) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!g_gate.load()) {
        g_blocked = g_step.load();
        g_gate = 1;
    }
}
#define STEP(call) (g_step = #call, (call))

// every byte of rows `pitch` apart set to v (a kernel, so it is ordered like any other work)
__global__ void fill_rows(unsigned char *p, size_t pitch, int width, int height, unsigned char v) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < width && y < height) p[y * pitch + x] = v;
}

__global__ void fill_ints(int *p, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}

__global__ void add_ints(int *p, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += v;
}

int main(void) {
    const int W = 64, H = 8, D = 3;
    cudaStream_t s, t, b;
    cudaCheck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaCheck(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    cudaCheck(cudaStreamCreate(&b)); // blocking: the legacy stream waits for it
    cudaEvent_t gated;
    cudaCheck(cudaEventCreateWithFlags(&gated, cudaEventDisableTiming));

    unsigned char *a2, *c2, *x2;
    size_t pa, pc, px;
    cudaCheck(cudaMallocPitch((void **)&a2, &pa, W, H));
    cudaCheck(cudaMallocPitch((void **)&c2, &pc, W, H));
    cudaCheck(cudaMallocPitch((void **)&x2, &px, W, H));
    cudaPitchedPtr v3;
    cudaCheck(cudaMalloc3D(&v3, make_cudaExtent(W, H, D)));
    int *peer_src, *peer_dst, *tmp;
    cudaCheck(cudaMalloc(&peer_src, 256 * sizeof(int)));
    cudaCheck(cudaMalloc(&peer_dst, 256 * sizeof(int)));
    int *managed;
    cudaCheck(cudaMallocManaged(&managed, 256 * sizeof(int)));
    for (int i = 0; i < 256; i++) managed[i] = 1;
    cudaCheck(cudaMemset(peer_src, 0, 256 * sizeof(int)));
    cudaCheck(cudaMemset(peer_dst, 0, 256 * sizeof(int)));
    cudaCheck(cudaMemset2D(x2, px, 0, W, H));
    fill_rows<<<1, 1>>>(x2, px, 0, 0, 0); // loaded now, not behind the gate
    fill_ints<<<1, 1>>>(peer_src, 0, 0);
    add_ints<<<1, 1>>>(peer_src, 0, 0);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());

    unsigned char *h2, *h3, *hx;
    int *hpeer, *htmp;
    cudaCheck(cudaMallocHost(&h2, W * H));
    cudaCheck(cudaMallocHost(&h3, W * H * D));
    cudaCheck(cudaMallocHost(&hx, W * H));
    cudaCheck(cudaMallocHost(&hpeer, 256 * sizeof(int)));
    cudaCheck(cudaMallocHost(&htmp, 256 * sizeof(int)));
    memset(h2, 0xee, W * H);
    memset(h3, 0xee, W * H * D);
    memset(hx, 0xee, W * H);
    for (int i = 0; i < 256; i++) hpeer[i] = htmp[i] = -7;

    // ---- stream s, held by the gate ----
    std::thread dog(watchdog);
    cudaCheck(STEP(cudaLaunchHostFunc(s, wait_gate, NULL)));
    cudaCheck(STEP(cudaEventRecord(gated, s)));
    g_step = "fill_rows<<<>>>";
    fill_rows<<<dim3(1, H), W, 0, s>>>(a2, pa, W, H, 7);
    cudaCheck(STEP(cudaGetLastError()));
    cudaCheck(STEP(cudaMemset2DAsync(a2 + 1 * pa + 8, pa, 0x11, 16, 2, s)));  // rows 1-2, bytes 8..23
    cudaCheck(STEP(cudaMemcpy2DAsync(c2, pc, a2, pa, W, H, cudaMemcpyDeviceToDevice, s)));
    cudaCheck(STEP(cudaMemcpy2DAsync(h2, W, c2, pc, W, H, cudaMemcpyDeviceToHost, s)));
    g_step = "fill_ints<<<>>>";
    fill_ints<<<1, 256, 0, s>>>(peer_src, 256, 42);
    cudaCheck(STEP(cudaMemcpyPeerAsync(peer_dst, 0, peer_src, 0, 256 * sizeof(int), s)));
    cudaCheck(STEP(cudaMemcpyAsync(hpeer, peer_dst, 256 * sizeof(int), cudaMemcpyDeviceToHost, s)));
    cudaCheck(STEP(cudaMallocAsync(&tmp, 256 * sizeof(int), s)));
    g_step = "fill_ints<<<>>>";
    fill_ints<<<1, 256, 0, s>>>(tmp, 256, 5);
    cudaCheck(STEP(cudaMemcpyAsync(htmp, tmp, 256 * sizeof(int), cudaMemcpyDeviceToHost, s)));
    cudaCheck(STEP(cudaFreeAsync(tmp, s))); // the kernel and the copy before it still use tmp
    cudaMemLocation dev0 = {};
    dev0.type = cudaMemLocationTypeDevice;
    dev0.id = 0;
    cudaCheck(STEP(cudaMemPrefetchAsync(managed, 256 * sizeof(int), dev0, 0, s)));
    g_step = "add_ints<<<>>>";
    add_ints<<<1, 256, 0, s>>>(managed, 256, 10);
    cudaCheck(STEP(cudaGetLastError()));

    // ---- stream t waits for the event recorded behind the gate ----
    cudaCheck(STEP(cudaStreamWaitEvent(t, gated, 0)));
    cudaCheck(STEP(cudaMemset3DAsync(v3, 0x22, make_cudaExtent(W, H, D), t)));
    cudaMemcpy3DParms p = {};
    p.srcPtr = v3;
    p.dstPtr = make_cudaPitchedPtr(h3, W, W, H);
    p.extent = make_cudaExtent(W, H, D);
    p.kind = cudaMemcpyDeviceToHost;
    cudaCheck(STEP(cudaMemcpy3DAsync(&p, t)));

    // ---- the legacy stream behind a held blocking stream ----
    cudaCheck(STEP(cudaLaunchHostFunc(b, wait_gate, NULL)));
    g_step = "fill_rows<<<>>>";
    fill_rows<<<dim3(1, H), W, 0, b>>>(x2, px, W, H, 5);
    cudaCheck(STEP(cudaMemset2DAsync(x2, px, 0x33, 4, H, cudaStreamLegacy))); // after b's kernel
    cudaCheck(STEP(cudaMemcpy2DAsync(hx, W, x2, px, W, H, cudaMemcpyDeviceToHost, cudaStreamLegacy)));

    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    bool untouched = h2[0] == 0xee && h3[0] == 0xee && hx[0] == 0xee && hpeer[0] == -7 && htmp[0] == -7;
    printf("s, t and the legacy stream query while the gate is shut: %s %s %s\n",
           cudaGetErrorName(cudaStreamQuery(s)), cudaGetErrorName(cudaStreamQuery(t)),
           cudaGetErrorName(cudaStreamQuery(cudaStreamLegacy)));
    expect(untouched, "nothing behind the gate ran before it opened");
    g_gate = 1;
    dog.join();
    printf("a call that blocked the host while the gate was shut: %s\n", g_blocked ? g_blocked.load() : "none");
    cudaCheck(cudaDeviceSynchronize());

    bool ok2 = true;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            unsigned char want = (y == 1 || y == 2) && x >= 8 && x < 24 ? 0x11 : 7;
            ok2 &= h2[y * W + x] == want;
        }
    printf("2D: row 0 byte 8 = %d, row 1 byte 8 = %d, row 2 byte 23 = %d, row 3 byte 8 = %d\n", h2[8], h2[W + 8],
           h2[2 * W + 23], h2[3 * W + 8]);
    expect(ok2, "kernel, then cudaMemset2DAsync, then cudaMemcpy2DAsync twice, in stream order");
    bool ok3 = true;
    for (int i = 0; i < W * H * D; i++) ok3 &= h3[i] == 0x22;
    expect(ok3, "cudaMemset3DAsync and cudaMemcpy3DAsync waited for the event recorded behind the gate");
    printf("peer copy: %d, freed buffer's copy: %d\n", hpeer[255], htmp[255]);
    expect(hpeer[0] == 42 && hpeer[255] == 42, "cudaMemcpyPeerAsync copied what the kernel before it wrote");
    expect(htmp[0] == 5 && htmp[255] == 5, "cudaFreeAsync waited for the kernel and the copy before it");
    expect(managed[0] == 11 && managed[255] == 11, "prefetch and kernel ran after the host wrote the managed memory");
    bool okx = true;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) okx &= hx[y * W + x] == (x < 4 ? 0x33 : 5);
    printf("legacy: byte 0 = %d, byte 4 = %d\n", hx[0], hx[4]);
    expect(okx, "cudaMemset2DAsync on the legacy stream ran after the blocking stream's kernel");

    // the synchronous cudaMemset2D of device memory behind the held blocking stream
    g_gate = 0;
    g_blocked = nullptr;
    std::thread dog2(watchdog);
    cudaCheck(STEP(cudaLaunchHostFunc(b, wait_gate, NULL)));
    fill_rows<<<dim3(1, H), W, 0, b>>>(x2, px, W, H, 9);
    cudaCheck(STEP(cudaMemset2D(x2, px, 0x44, 4, H)));
    bool returned_shut = !g_gate.load();
    g_gate = 1;
    dog2.join();
    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaMemcpy2D(hx, W, x2, px, W, H, cudaMemcpyDeviceToHost));
    printf("cudaMemset2D behind a held blocking stream returned before the gate opened: %s; byte 0 = %d, byte 4 = %d\n",
           returned_shut ? "yes" : "no", hx[0], hx[4]);

    cudaCheck(cudaFreeHost(h2));
    cudaCheck(cudaFreeHost(h3));
    cudaCheck(cudaFreeHost(hx));
    cudaCheck(cudaFreeHost(hpeer));
    cudaCheck(cudaFreeHost(htmp));
    cudaCheck(cudaFree(a2));
    cudaCheck(cudaFree(c2));
    cudaCheck(cudaFree(x2));
    cudaCheck(cudaFree(v3.ptr));
    cudaCheck(cudaFree(peer_src));
    cudaCheck(cudaFree(peer_dst));
    cudaCheck(cudaFree(managed));
    cudaCheck(cudaEventDestroy(gated));
    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaStreamDestroy(t));
    cudaCheck(cudaStreamDestroy(b));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
