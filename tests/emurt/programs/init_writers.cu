// tests/emurt/programs/init_writers.cu: every way the runtime writes device
// memory for a program marks it written. Each buffer below is filled by one
// API (its parameter's name says which) and read by `read_all`, one line per
// buffer, so an uninit-global finding names the writer that forgot; `fresh`
// comes straight from cudaMalloc and is the one finding expected.
#include <cstdio>
#include <cuda_runtime.h>

#define N 256
#define BYTES (N * sizeof(int))

__global__ void read_all(const int *by_memcpy, const int *by_memcpy_d2d, const int *by_memcpy_default,
                         const int *by_memcpy_async, const int *by_memset, const int *by_memset_async,
                         const int *by_memcpy2d, const int *by_memset2d, const int *by_memset3d,
                         const int *by_memcpy_peer, const int *by_graph_memset, const int *by_graph_memcpy,
                         const int *fresh, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int s = by_memcpy[i];
    s += by_memcpy_d2d[i];
    s += by_memcpy_default[i];
    s += by_memcpy_async[i];
    s += by_memset[i];
    s += by_memset_async[i];
    s += by_memcpy2d[i];
    s += by_memset2d[i];
    s += by_memset3d[i];
    s += by_memcpy_peer[i];
    s += by_graph_memset[i];
    s += by_graph_memcpy[i];
    s += fresh[i];
    out[i] = s;
}

int main() {
    int h[N];
    for (int i = 0; i < N; i++) h[i] = i;
    enum { K = 14 };
    int *d[K];
    for (int k = 0; k < K; k++) cudaMalloc(&d[k], BYTES);
    cudaStream_t st;
    cudaStreamCreate(&st);
    cudaMemcpy(d[0], h, BYTES, cudaMemcpyHostToDevice);
    cudaMemcpy(d[1], d[0], BYTES, cudaMemcpyDeviceToDevice);
    cudaMemcpy(d[2], h, BYTES, cudaMemcpyDefault);
    cudaMemcpyAsync(d[3], h, BYTES, cudaMemcpyHostToDevice, st);
    cudaMemset(d[4], 1, BYTES);
    cudaMemsetAsync(d[5], 2, BYTES, st);
    cudaMemcpy2D(d[6], BYTES / 2, h, BYTES / 2, BYTES / 2, 2, cudaMemcpyHostToDevice);
    cudaMemset2D(d[7], BYTES / 2, 3, BYTES / 2, 2);
    cudaMemset3D(make_cudaPitchedPtr(d[8], BYTES / 4, BYTES / 4, 2), 4, make_cudaExtent(BYTES / 4, 2, 2));
    cudaMemcpyPeer(d[9], 0, d[0], 0, BYTES);
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    cudaMemsetParams mp = {};
    mp.dst = d[10];
    mp.value = 5;
    mp.elementSize = 4;
    mp.width = N;
    mp.height = 1;
    cudaGraphNode_t n1, n2;
    cudaGraphAddMemsetNode(&n1, g, nullptr, 0, &mp);
    cudaGraphAddMemcpyNode1D(&n2, g, nullptr, 0, d[11], h, BYTES, cudaMemcpyHostToDevice);
    cudaGraphExec_t ge;
    cudaGraphInstantiate(&ge, g, 0);
    cudaGraphLaunch(ge, st);
    cudaStreamSynchronize(st);
    // d[12] is fresh; d[13] is the output
    read_all<<<1, N>>>(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13]);
    printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    int out[N];
    cudaMemcpy(out, d[13], BYTES, cudaMemcpyDeviceToHost);
    // (fresh holds 0xff bytes: -1 per element)
    printf("out[1] = %d\n", out[1]);
    return 0;
}
