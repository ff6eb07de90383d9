// tests/programs/pitched_async.cu: the asynchronous forms of the pitched
// calls, on a stream of their own: cudaMemset2DAsync of a sub-rectangle,
// cudaMemset3DAsync of a box, cudaMemcpy2DAsync device to device between
// different pitches, cudaMemcpy3DAsync back to the host, and the same
// 2D memset and copy recorded by stream capture into a graph (launched
// twice). Every byte is checked against a host model.
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

__global__ void bump(unsigned char *p, size_t pitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) p[y * pitch + x] += 1;
}

int main(void) {
    const int W = 100, H = 6;  // bytes per row, rows
    cudaStream_t s;
    cudaCheck(cudaStreamCreate(&s));
    unsigned char *d_a, *d_b;
    size_t pa, pb;
    cudaCheck(cudaMallocPitch(&d_a, &pa, W, H));
    cudaCheck(cudaMallocPitch(&d_b, &pb, W + 300, H));
    expect(pa >= W && pb >= W + 300, "pitches at least the widths");

    // the whole of a to 7, then rows 1..4, bytes 10..59 to 9; the kernel adds 1 everywhere
    cudaCheck(cudaMemset2DAsync(d_a, pa, 7, W, H, s));
    cudaCheck(cudaMemset2DAsync(d_a + pa + 10, pa, 9, 50, 4, s));
    bump<<<dim3(1, H), 128, 0, s>>>(d_a, pa, W, H);
    cudaCheck(cudaGetLastError());
    // a to b (different pitch), then b's rows 2..3 in part to a host array of pitch 120
    cudaCheck(cudaMemset2DAsync(d_b, pb, 0, W + 300, H, s));
    cudaCheck(cudaMemcpy2DAsync(d_b + 5, pb, d_a, pa, W, H, cudaMemcpyDeviceToDevice, s));
    unsigned char h[H][120];
    memset(h, 0xee, sizeof h);
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(d_b, pb, W + 300, H);
    p.dstPtr = make_cudaPitchedPtr(h, 120, 120, H);
    p.extent = make_cudaExtent(W + 5, H, 1);
    p.kind = cudaMemcpyDeviceToHost;
    cudaCheck(cudaMemcpy3DAsync(&p, s));
    cudaCheck(cudaStreamSynchronize(s));
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < 120; x++) {
            int want = x >= W + 5 ? 0xee : x < 5 ? 0 : (y >= 1 && y <= 4 && x - 5 >= 10 && x - 5 < 60) ? 10 : 8;
            bad += h[y][x] != want;
        }
    printf("row 2: [4] = %d, [5] = %d, [15] = %d, [64] = %d, [65] = %d, [104] = %d, [105] = 0x%x\n", h[2][4],
           h[2][5], h[2][15], h[2][64], h[2][65], h[2][104], h[2][105]);
    expect(bad == 0, "2D memsets, kernel, 2D device copy and 3D copy to the host agree with the host model");

    // a box: 3 slices of a 3D allocation, bytes 4..19 of rows 1..2 of slices 1..2 set to 5
    cudaPitchedPtr v;
    cudaExtent ext = make_cudaExtent(32, 4, 3);
    cudaCheck(cudaMalloc3D(&v, ext));
    cudaCheck(cudaMemset3DAsync(v, 1, ext, s));
    cudaPitchedPtr inner = v;
    inner.ptr = (char *)v.ptr + v.pitch * 4 + v.pitch + 4;  // slice 1, row 1, byte 4
    cudaCheck(cudaMemset3DAsync(inner, 5, make_cudaExtent(16, 2, 2), s));
    unsigned char box[3][4][32];
    cudaMemcpy3DParms q = {};
    q.srcPtr = v;
    q.dstPtr = make_cudaPitchedPtr(box, 32, 32, 4);
    q.extent = ext;
    q.kind = cudaMemcpyDeviceToHost;
    cudaCheck(cudaMemcpy3DAsync(&q, s));
    cudaCheck(cudaStreamSynchronize(s));
    int fives = 0, ones = 0;
    for (int z = 0; z < 3; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 32; x++) {
                bool in = z >= 1 && y >= 1 && y <= 2 && x >= 4 && x < 20;
                fives += in && box[z][y][x] == 5;
                ones += !in && box[z][y][x] == 1;
            }
    printf("3D memset: %d bytes of 5, %d bytes of 1\n", fives, ones);
    expect(fives == 64 && ones == 384 - 64, "cudaMemset3DAsync of the whole box and of an inner box");

    // the same calls captured: memset2D + copy2D (to pinned memory) become graph nodes, run at each launch only
    unsigned char (*hp)[120];
    cudaCheck(cudaMallocHost(&hp, sizeof h));
    memset(hp, 0, sizeof h);
    cudaGraph_t g;
    cudaCheck(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaCheck(cudaMemset2DAsync(d_a, pa, 3, W, H, s));
    cudaCheck(cudaMemcpy2DAsync(hp, 120, d_a, pa, W, H, cudaMemcpyDeviceToHost, s));
    cudaCheck(cudaStreamEndCapture(s, &g));
    size_t nodes = 0;
    cudaCheck(cudaGraphGetNodes(g, NULL, &nodes));
    printf("captured nodes: %zu\n", nodes);
    expect(nodes == 2, "a captured 2D memset and 2D copy are two nodes");
    expect(hp[0][0] == 0, "nothing ran during capture");
    cudaGraphExec_t x;
    cudaCheck(cudaGraphInstantiate(&x, g, 0));
    cudaCheck(cudaGraphLaunch(x, s));
    cudaCheck(cudaStreamSynchronize(s));
    int threes = 0;
    for (int y = 0; y < H; y++)
        for (int c = 0; c < W; c++) threes += hp[y][c] == 3;
    expect(threes == W * H && hp[0][W] == 0, "the graph's 2D memset and copy ran at launch");

    cudaCheck(cudaGraphExecDestroy(x));
    cudaCheck(cudaGraphDestroy(g));
    cudaCheck(cudaFreeHost(hp));
    cudaCheck(cudaFree(v.ptr));
    cudaCheck(cudaFree(d_a));
    cudaCheck(cudaFree(d_b));
    cudaCheck(cudaStreamDestroy(s));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
