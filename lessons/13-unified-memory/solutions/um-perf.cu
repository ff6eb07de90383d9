// um-perf.cu: explicit copies vs managed vs managed + prefetch vs zero copy,
// measured end to end on this machine (the table of NVIDIA's UnifiedMemoryPerf).
//
//   nvcc -O2 -lineinfo um-perf.cu -o um-perf && ./um-perf 8 3 1024 4096 16384
//
// Arguments: READS REPS SIZE_KIB... For each size, for a read-once kernel
// (every element of x read once) and a read-many kernel (every element read
// READS times), each of the four strategies runs REPS times; a run is timed
// with events from "the host has filled x" to "the host has read the
// result", and the table shows the fastest run and the result's checksum.
// Last, the winner of each kernel at the largest size.
//
// The input of row r is x[i] = i % 16 + r % 8; both kernels write one
// partial sum per block of 256 elements, and the checksum is their sum (all
// integers below 2^24, so exact in float).
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define BLOCK 256
#define MAX_SIZES 8

static void cuda_check(cudaError_t error, const char *file, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// out[blockIdx.x] = the sum of part[0..BLOCK)
__device__ void block_sum(float *part, float *out)
{
    for (int half = BLOCK / 2; half > 0; half /= 2) {
        __syncthreads();
        if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

// Each element of x is read once.
__global__ void read_once(const float *x, float *out, int n)
{
    __shared__ float part[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    part[threadIdx.x] = i < n ? x[i] : 0.0f;
    block_sum(part, out);
}

// Each element of x is read `reads` times: thread i reads x[i], x[i + n/reads],
// x[i + 2n/reads], ... (wrapping), so every pass k reads all of x once.
__global__ void read_many(const float *x, float *out, int n, int reads)
{
    __shared__ float part[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int stride = n / reads;
    float s = 0.0f;
    if (i < n) {
        for (int k = 0; k < reads; k++) {
            int j = i + k * stride;
            if (j >= n) j -= n;
            s += x[j];
        }
    }
    part[threadIdx.x] = s;
    block_sum(part, out);
}

static const char *STRATEGY[4] = {"explicit", "managed", "prefetch", "zero-copy"};

// ---- given: input, launch, result, timer -----------------------------------

// The host produces x: row r's input.
static void fill_input(float *x, int n, int row)
{
    for (int i = 0; i < n; i++) x[i] = (float)(i % 16 + row % 8);
}

static int blocks_for(int n) { return (n + BLOCK - 1) / BLOCK; }

// Launches the row's kernel on the default stream (reads == 1: read_once).
static void launch(const float *x, float *out, int n, int reads)
{
    if (reads == 1)
        read_once<<<blocks_for(n), BLOCK>>>(x, out, n);
    else
        read_many<<<blocks_for(n), BLOCK>>>(x, out, n, reads);
    cudaCheck(cudaGetLastError());
}

// The host reads the result: the sum of the blocks' partial sums.
static double read_result(const float *out, int n)
{
    double sum = 0;
    for (int b = 0; b < blocks_for(n); b++) sum += out[b];
    return sum;
}

// One timed run: timer_start once the host has filled x, timer_stop once it
// has read the result. Both record on the default stream.
static cudaEvent_t t_start, t_stop;

static void timer_start(void) { cudaCheck(cudaEventRecord(t_start, 0)); }

static float timer_stop(void)
{
    float ms;
    cudaCheck(cudaEventRecord(t_stop, 0));
    cudaCheck(cudaEventSynchronize(t_stop));
    cudaCheck(cudaEventElapsedTime(&ms, t_start, t_stop));
    return ms;
}

// ---- the four strategies: each returns its fastest run's time ---------------

// Pinned host buffers and device buffers, copied in and out by hand.
static float run_explicit(int n, int reads, int row, int reps, double *sum)
{
    size_t bytes = (size_t)n * sizeof(float), out_bytes = (size_t)blocks_for(n) * sizeof(float);
    float *h_x, *h_out, *d_x, *d_out, best = 1e30f;
    cudaCheck(cudaMallocHost(&h_x, bytes));
    cudaCheck(cudaMallocHost(&h_out, out_bytes));
    cudaCheck(cudaMalloc(&d_x, bytes));
    cudaCheck(cudaMalloc(&d_out, out_bytes));
    for (int rep = 0; rep < reps; rep++) {
        fill_input(h_x, n, row);
        timer_start();
        cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
        launch(d_x, d_out, n, reads);
        cudaCheck(cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost));
        *sum = read_result(h_out, n);
        float ms = timer_stop();
        if (ms < best) best = ms;
    }
    cudaCheck(cudaFreeHost(h_x));
    cudaCheck(cudaFreeHost(h_out));
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_out));
    return best;
}

// One managed pointer per array; the pages move on demand (page faults).
static float run_managed(int n, int reads, int row, int reps, double *sum)
{
    size_t bytes = (size_t)n * sizeof(float), out_bytes = (size_t)blocks_for(n) * sizeof(float);
    float *x, *out, best = 1e30f;
    cudaCheck(cudaMallocManaged(&x, bytes));
    cudaCheck(cudaMallocManaged(&out, out_bytes));
    for (int rep = 0; rep < reps; rep++) {
        fill_input(x, n, row);
        timer_start();
        launch(x, out, n, reads);
        cudaCheck(cudaDeviceSynchronize());
        *sum = read_result(out, n);
        float ms = timer_stop();
        if (ms < best) best = ms;
    }
    cudaCheck(cudaFree(x));
    cudaCheck(cudaFree(out));
    return best;
}

// Managed memory moved in bulk before anyone faults: x and out to the GPU
// before the kernel, out back to the host before the host reads it.
static float run_prefetch(int n, int reads, int row, int reps, double *sum)
{
    size_t bytes = (size_t)n * sizeof(float), out_bytes = (size_t)blocks_for(n) * sizeof(float);
    float *x, *out, best = 1e30f;
    int dev;
    cudaCheck(cudaGetDevice(&dev));
    cudaMemLocation gpu = {cudaMemLocationTypeDevice, dev};
    cudaMemLocation cpu = {cudaMemLocationTypeHost, 0};
    cudaCheck(cudaMallocManaged(&x, bytes));
    cudaCheck(cudaMallocManaged(&out, out_bytes));
    for (int rep = 0; rep < reps; rep++) {
        fill_input(x, n, row);
        timer_start();
        cudaCheck(cudaMemPrefetchAsync(x, bytes, gpu, 0, 0));
        cudaCheck(cudaMemPrefetchAsync(out, out_bytes, gpu, 0, 0));
        launch(x, out, n, reads);
        cudaCheck(cudaMemPrefetchAsync(out, out_bytes, cpu, 0, 0));
        cudaCheck(cudaDeviceSynchronize());
        *sum = read_result(out, n);
        float ms = timer_stop();
        if (ms < best) best = ms;
    }
    cudaCheck(cudaFree(x));
    cudaCheck(cudaFree(out));
    return best;
}

// Mapped pinned memory: the kernel reads x and writes out in host memory,
// over the bus; nothing is copied.
static float run_zero_copy(int n, int reads, int row, int reps, double *sum)
{
    size_t bytes = (size_t)n * sizeof(float), out_bytes = (size_t)blocks_for(n) * sizeof(float);
    float *h_x, *h_out, *d_x, *d_out, best = 1e30f;
    cudaCheck(cudaHostAlloc(&h_x, bytes, cudaHostAllocMapped));
    cudaCheck(cudaHostAlloc(&h_out, out_bytes, cudaHostAllocMapped));
    cudaCheck(cudaHostGetDevicePointer((void **)&d_x, h_x, 0));
    cudaCheck(cudaHostGetDevicePointer((void **)&d_out, h_out, 0));
    for (int rep = 0; rep < reps; rep++) {
        fill_input(h_x, n, row);
        timer_start();
        launch(d_x, d_out, n, reads);
        cudaCheck(cudaDeviceSynchronize());
        *sum = read_result(h_out, n);
        float ms = timer_stop();
        if (ms < best) best = ms;
    }
    cudaCheck(cudaFreeHost(h_x));
    cudaCheck(cudaFreeHost(h_out));
    return best;
}

typedef float (*Strategy)(int n, int reads, int row, int reps, double *sum);
static const Strategy RUN[4] = {run_explicit, run_managed, run_prefetch, run_zero_copy};

int main(int argc, char **argv)
{
    if (argc < 4 || argc - 3 > MAX_SIZES) {
        fprintf(stderr, "usage: %s READS REPS SIZE_KIB... (1 to %d sizes)\n", argv[0], MAX_SIZES);
        return 2;
    }
    int reads = atoi(argv[1]), reps = atoi(argv[2]), nsizes = argc - 3;
    if (reads < 2 || reads > 64 || (reads & (reads - 1)) || reps < 1) {
        fprintf(stderr, "READS must be a power of two from 2 to 64, REPS at least 1\n");
        return 2;
    }
    cudaCheck(cudaEventCreate(&t_start));
    cudaCheck(cudaEventCreate(&t_stop));

    float last[2][4];   // the times at the largest size
    int row = 0, largest = 0;
    printf("%8s  %-9s  %-9s  %10s  %s\n", "size_mb", "kernel", "strategy", "ms", "checksum");
    for (int s = 0; s < nsizes; s++) {
        int kib = atoi(argv[3 + s]);
        if (kib < 1 || kib > 1024 * 1024) {
            fprintf(stderr, "size %s KiB: give 1 to 1048576\n", argv[3 + s]);
            return 2;
        }
        int n = kib * 256;   // floats
        bool is_largest = kib >= largest;
        if (is_largest) largest = kib;
        for (int k = 0; k < 2; k++) {
            for (int st = 0; st < 4; st++) {
                double sum = 0;
                float ms = RUN[st](n, k == 0 ? 1 : reads, row, reps, &sum);
                row++;
                if (ms < 0) continue;   // not measured
                printf("%8.2f  %-9s  %-9s  %10.4f  %.0f\n", kib / 1024.0, k == 0 ? "read-once" : "read-many",
                       STRATEGY[st], ms, sum);
                if (is_largest) last[k][st] = ms;
            }
        }
    }
    // the winner of each kernel: the fastest strategy at the largest size
    for (int k = 0; k < 2; k++) {
        int win = 0;
        for (int st = 1; st < 4; st++)
            if (last[k][st] < last[k][win]) win = st;
        printf("WINNER %s: %s\n", k == 0 ? "read-once" : "read-many", STRATEGY[win]);
    }
    cudaCheck(cudaEventDestroy(t_start));
    cudaCheck(cudaEventDestroy(t_stop));
    return 0;
}
