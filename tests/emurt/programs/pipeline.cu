// tests/emurt/programs/pipeline.cu: chapter 07's chunked pipeline in small:
// each chunk's copy in, kernel and copy out on a non-blocking stream of its
// own, a memset on the legacy default stream after each chunk. Each chunk's
// copy in (but the first) overlaps the kernel before it on the modeled
// timeline; test_emurt.sh checks that the host's clocks cannot move it.
#include <cstdio>
#include <cuda_runtime.h>

#define CHUNKS 4
#define CHUNK (1 << 16)

__global__ void twice(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}

int main(void) {
    size_t bytes = CHUNK * sizeof(float);
    float *h_in[CHUNKS], *h_out[CHUNKS], *d_in[CHUNKS], *d_out[CHUNKS], *d_scratch;
    cudaStream_t s[CHUNKS];
    for (int c = 0; c < CHUNKS; c++) {
        cudaMallocHost(&h_in[c], bytes);
        cudaMallocHost(&h_out[c], bytes);
        cudaMalloc(&d_in[c], bytes);
        cudaMalloc(&d_out[c], bytes);
        for (int i = 0; i < CHUNK; i++) h_in[c][i] = (float)(i % 1024);
        cudaStreamCreateWithFlags(&s[c], cudaStreamNonBlocking);
    }
    cudaMalloc(&d_scratch, 4096);
    for (int c = 0; c < CHUNKS; c++) {
        cudaMemcpyAsync(d_in[c], h_in[c], bytes, cudaMemcpyHostToDevice, s[c]);
        twice<<<CHUNK / 256, 256, 0, s[c]>>>(d_in[c], d_out[c], CHUNK);
        cudaMemcpyAsync(h_out[c], d_out[c], bytes, cudaMemcpyDeviceToHost, s[c]);
        cudaMemset(d_scratch, 0, 4096);
    }
    cudaDeviceSynchronize();
    double sum = 0;
    for (int c = 0; c < CHUNKS; c++)
        for (int i = 0; i < CHUNK; i++) sum += h_out[c][i];
    printf("sum %.0f\n", sum);
    return 0;
}
