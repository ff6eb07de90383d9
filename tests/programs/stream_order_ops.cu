// tests/programs/stream_order_ops.cu: every kind of stream operation keeps
// stream order behind a stream held by a host function (cudaLaunchHostFunc
// waiting on a gate the main thread opens later) and behind an event wait:
// cudaMemset2DAsync, cudaMemcpy2DAsync, cudaMemset3DAsync, cudaMemcpy3DAsync,
// cudaMemcpyPeerAsync, cudaMemPrefetchAsync, cudaFreeAsync of memory a queued
// kernel still writes, and the synchronous-looking cudaMemset2D on the legacy
// stream behind a held blocking stream. Nothing may run while the gate is
// shut (the pinned results keep their markers); once it opens, each result
// shows the operations ran in the order issued.
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
    cudaCheck(cudaLaunchHostFunc(s, wait_gate, NULL));
    cudaCheck(cudaEventRecord(gated, s));
    fill_rows<<<dim3(1, H), W, 0, s>>>(a2, pa, W, H, 7);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemset2DAsync(a2 + 1 * pa + 8, pa, 0x11, 16, 2, s));  // rows 1-2, bytes 8..23
    cudaCheck(cudaMemcpy2DAsync(c2, pc, a2, pa, W, H, cudaMemcpyDeviceToDevice, s));
    cudaCheck(cudaMemcpy2DAsync(h2, W, c2, pc, W, H, cudaMemcpyDeviceToHost, s));
    fill_ints<<<1, 256, 0, s>>>(peer_src, 256, 42);
    cudaCheck(cudaMemcpyPeerAsync(peer_dst, 0, peer_src, 0, 256 * sizeof(int), s));
    cudaCheck(cudaMemcpyAsync(hpeer, peer_dst, 256 * sizeof(int), cudaMemcpyDeviceToHost, s));
    cudaCheck(cudaMallocAsync(&tmp, 256 * sizeof(int), s));
    fill_ints<<<1, 256, 0, s>>>(tmp, 256, 5);
    cudaCheck(cudaMemcpyAsync(htmp, tmp, 256 * sizeof(int), cudaMemcpyDeviceToHost, s));
    cudaCheck(cudaFreeAsync(tmp, s)); // the kernel and the copy before it still use tmp
    cudaMemLocation dev0 = {};
    dev0.type = cudaMemLocationTypeDevice;
    dev0.id = 0;
    cudaCheck(cudaMemPrefetchAsync(managed, 256 * sizeof(int), dev0, 0, s));
    add_ints<<<1, 256, 0, s>>>(managed, 256, 10);
    cudaCheck(cudaGetLastError());

    // ---- stream t waits for the event recorded behind the gate ----
    cudaCheck(cudaStreamWaitEvent(t, gated, 0));
    cudaCheck(cudaMemset3DAsync(v3, 0x22, make_cudaExtent(W, H, D), t));
    cudaMemcpy3DParms p = {};
    p.srcPtr = v3;
    p.dstPtr = make_cudaPitchedPtr(h3, W, W, H);
    p.extent = make_cudaExtent(W, H, D);
    p.kind = cudaMemcpyDeviceToHost;
    cudaCheck(cudaMemcpy3DAsync(&p, t));

    // ---- the legacy stream behind a held blocking stream ----
    cudaCheck(cudaLaunchHostFunc(b, wait_gate, NULL));
    fill_rows<<<dim3(1, H), W, 0, b>>>(x2, px, W, H, 5);
    cudaCheck(cudaMemset2D(x2, px, 0x33, 4, H)); // legacy stream: after b's kernel
    cudaCheck(cudaMemcpy2DAsync(hx, W, x2, px, W, H, cudaMemcpyDeviceToHost, cudaStreamLegacy));

    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    bool untouched = h2[0] == 0xee && h3[0] == 0xee && hx[0] == 0xee && hpeer[0] == -7 && htmp[0] == -7;
    printf("s, t and the legacy stream query while the gate is shut: %s %s %s\n",
           cudaGetErrorName(cudaStreamQuery(s)), cudaGetErrorName(cudaStreamQuery(t)),
           cudaGetErrorName(cudaStreamQuery(cudaStreamLegacy)));
    expect(untouched, "nothing behind the gate ran before it opened");
    g_gate = 1;
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
    expect(okx, "cudaMemset2D on the legacy stream ran after the blocking stream's kernel");

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
