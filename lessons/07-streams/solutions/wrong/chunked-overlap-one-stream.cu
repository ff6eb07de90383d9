// WRONG (a typical mistake): every chunk on one stream, which runs them one after another.
//
// chunked-overlap.cu: overlap copies with computation, chunk by chunk.
//
//   nvcc -O2 -lineinfo -DCHUNK=4194304 -DITERS=1000 chunked-overlap.cu -o chunked-overlap && ./chunked-overlap
//
// One big copy in, one kernel, one copy out: the GPU's copy engines and
// its SMs take turns, each idle while the other works. Cut the data into
// CHUNKS chunks and give each chunk a stream of its own:
//
//   stream[0]: [in 0][busy 0][out 0]
//   stream[1]:       [in 1][busy 1][out 1]
//   stream[2]:             [in 2][busy 2][out 2]
//   stream[3]:                   [in 3][busy 3][out 3]
//
// Work in one stream runs in order; work in different streams may overlap.
// So while chunk c is copied in, chunk c-1 is computed and chunk c-2 is
// copied out.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

// CHUNKS chunks of CHUNK floats, ITERS steps per element. cudojo sets CHUNK
// and ITERS: small on the emulator; on a GPU 2^22 floats per chunk and a
// kernel shorter than a chunk's copy, as in a real copy-bound pipeline.
#define CHUNKS 4
#ifndef CHUNK
#define CHUNK 1048576
#endif
#ifndef ITERS
#define ITERS 50
#endif

// ---------------------------------------------------------------------------
// error checking: every CUDA call goes through cudaCheck

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// ---------------------------------------------------------------------------
// the kernel (finished: this chapter is about the host side)

// y[i] = 2 * x[i], the long way: every step leaves acc equal to x[i]
// (x/2 + x/2 is exact), so the kernel takes a while and its answer is exact.
__global__ void busy(const float *x, float *y, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float half = 0.5f * x[i], acc = x[i];
    for (int j = 0; j < iters; j++) acc = fmaf(acc, 0.5f, half);
    y[i] = 2.0f * acc;
}

// ---------------------------------------------------------------------------
// the input and the CPU reference

// chunk c of a ramp 0, 1/1024, ..., 1023/1024, repeated: exact in float
static void make_input(float *x, int n, int c)
{
    for (int i = 0; i < n; i++) x[i] = (float)((c * n + i) % 1024) / 1024.0f;
}

// Compares chunk c's result y with 2 * x, prints the first mismatch, adds
// y to *sum. Returns the number of wrong elements.
static int validate(const float *x, const float *y, int n, int c, double *sum)
{
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        if (y[i] != 2.0f * x[i] && wrong++ == 0)
            printf("chunk %d: out[%d] = %f, want %f\n", c, i, y[i], 2.0f * x[i]);
        *sum += y[i];
    }
    return wrong;
}

// ---------------------------------------------------------------------------

int main(void)
{
    size_t chunk_bytes = CHUNK * sizeof(float);
    float *h_in[CHUNKS], *h_out[CHUNKS], *d_in[CHUNKS], *d_out[CHUNKS];
    for (int c = 0; c < CHUNKS; c++) {
        cudaCheck(cudaMallocHost(&h_in[c], chunk_bytes));   // pinned (see pinned-memory)
        cudaCheck(cudaMallocHost(&h_out[c], chunk_bytes));
        cudaCheck(cudaMalloc(&d_in[c], chunk_bytes));
        cudaCheck(cudaMalloc(&d_out[c], chunk_bytes));
        make_input(h_in[c], CHUNK, c);
    }
    cudaStream_t stream[CHUNKS];
    for (int c = 0; c < CHUNKS; c++)
        cudaCheck(cudaStreamCreate(&stream[c]));
    int block = 256, grid = (CHUNK + block - 1) / block;

    // warm-up (chapter 6): the first launch of a kernel loads it onto the
    // GPU, which must not stall the pipeline. n = 0: it computes nothing.
    busy<<<1, block>>>(d_in[0], d_out[0], 0, ITERS);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());

    for (int c = 0; c < CHUNKS; c++) {
        cudaStream_t s = stream[0];
        cudaCheck(cudaMemcpyAsync(d_in[c], h_in[c], chunk_bytes, cudaMemcpyHostToDevice, s));
        busy<<<grid, block, 0, s>>>(d_in[c], d_out[c], CHUNK, ITERS);
        cudaCheck(cudaGetLastError());
        cudaCheck(cudaMemcpyAsync(h_out[c], d_out[c], chunk_bytes, cudaMemcpyDeviceToHost, s));
    }
    cudaCheck(cudaDeviceSynchronize());           // before the host reads h_out

    int wrong = 0;
    double sum = 0;
    for (int c = 0; c < CHUNKS; c++) wrong += validate(h_in[c], h_out[c], CHUNK, c, &sum);
    printf("sum of out: %.4f\n", sum);        // cudojo checks this sum
    if (wrong) { printf("FAIL: %d of %d wrong\n", wrong, CHUNKS * CHUNK); return EXIT_FAILURE; }
    printf("PASS\n");

    for (int c = 0; c < CHUNKS; c++) {
        cudaCheck(cudaStreamDestroy(stream[c]));
        cudaCheck(cudaFree(d_in[c]));
        cudaCheck(cudaFree(d_out[c]));
        cudaCheck(cudaFreeHost(h_in[c]));
        cudaCheck(cudaFreeHost(h_out[c]));
    }
    return EXIT_SUCCESS;
}
