// async-overlap.cu: let the CPU work while the GPU works (cuda-samples'
// asyncAPI).
//
// host_main() copies the input in, runs busy, copies the result out, and
// then has the CPU count until the GPU is done. The CPU counts 0 times:
// by the time it starts, the GPU has long finished, because cudaMemcpy
// returns only when its copy is done, and the last one waited for the kernel.
//
// TODO: queue the copies, the kernel and the event without waiting, so the
// CPU is counting while the kernel runs. cudaMemcpyAsync(dst, src, bytes,
// kind, stream) returns at once, but only when the host memory is
// page-locked (cudaMallocHost): a copy to or from pageable memory (malloc)
// still waits until it is done. Use the default stream (0) as asyncAPI does.

// y[i] = 2 * x[i], the long way: every step leaves acc equal to x[i]
// (x/2 + x/2 is exact), so the kernel takes a while and its answer is exact.
// Finished: this chapter is about the host side.
extern "C" __global__ void busy(const float *x, float *y, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float half = 0.5f * x[i], acc = x[i];
    for (int j = 0; j < iters; j++) acc = fmaf(acc, 0.5f, half);
    y[i] = 2.0f * acc;
}

// ---- cudojo's host notation: leave this part as it is ----------------------
// This file is compiled for the GPU only, and a kernel cannot call the CUDA
// runtime. So host_main() runs once, before anything else, only to RECORD
// the CUDA calls you write in it; cudojo then makes the same calls in the
// same order with the real runtime (the emulator: its model of it) and
// checks what happened on the timeline. The calls take CUDA's arguments;
// what they measure (cudaEventElapsedTime's milliseconds) is known only then.
typedef int cudojoHandle;
#define cudaStream_t cudojoHandle
#define cudaEvent_t cudojoHandle
#define cudaMemcpyHostToDevice 1
#define cudaMemcpyDeviceToHost 2
#ifndef cudaStreamNonBlocking
#define cudaStreamNonBlocking 1
#endif
__device__ long long *cudojo_ops;
__device__ int cudojo_n, cudojo_ids;
__device__ void cudojo_op(int op, long long a = 0, long long b = 0, long long c = 0,
                          long long d = 0, long long e = 0)
{
    long long *o = cudojo_ops + 8 * cudojo_n;
    if (cudojo_n < 511) cudojo_n++;
    o[0] = op; o[1] = a; o[2] = b; o[3] = c; o[4] = d; o[5] = e;
}
#define cudojo_addr(p) ((long long)(size_t)(p))
__device__ void *cudojo_alloc(int op, size_t bytes)
{
    long long id = ++cudojo_ids;
    cudojo_op(op, id, (long long)bytes);
    return (void *)(size_t)(id << 32);
}
template <typename T> __device__ void cudaMalloc(T **p, size_t bytes) { *p = (T *)cudojo_alloc(8, bytes); }
template <typename T> __device__ void cudaMallocHost(T **p, size_t bytes) { *p = (T *)cudojo_alloc(9, bytes); }
#define malloc(bytes) cudojo_alloc(10, bytes)
__device__ void cudaEventCreate(cudaEvent_t *e) { *e = ++cudojo_ids; cudojo_op(1, *e); }
__device__ void cudaStreamCreate(cudaStream_t *s) { *s = ++cudojo_ids; cudojo_op(2, *s, 0); }
__device__ void cudaStreamCreateWithFlags(cudaStream_t *s, int flags) { *s = ++cudojo_ids; cudojo_op(2, *s, flags); }
__device__ void cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0) { cudojo_op(3, e, s); }
__device__ void cudaEventSynchronize(cudaEvent_t e) { cudojo_op(4, e); }
__device__ void cudaStreamSynchronize(cudaStream_t s) { cudojo_op(5, s); }
__device__ void cudaDeviceSynchronize() { cudojo_op(6); }
__device__ void cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop) { *ms = 0; cudojo_op(7, start, stop); }
__device__ void cudaMemcpy(void *dst, const void *src, size_t bytes, int kind)
{ cudojo_op(11, cudojo_addr(dst), cudojo_addr(src), (long long)bytes, kind, -1); }
__device__ void cudaMemcpyAsync(void *dst, const void *src, size_t bytes, int kind, cudaStream_t s = 0)
{ cudojo_op(11, cudojo_addr(dst), cudojo_addr(src), (long long)bytes, kind, s); }
__device__ void cudaMemset(void *dst, int value, size_t bytes)
{ cudojo_op(12, cudojo_addr(dst), value, (long long)bytes, -1); }
__device__ void cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t s = 0)
{ cudojo_op(12, cudojo_addr(dst), value, (long long)bytes, s); }
// ---- end of the notation -----------------------------------------------------

// N is set by cudojo: small on the emulator, 2^22 on a GPU.
#ifndef N
#define N 1000
#endif
#define BYTES (N * sizeof(float))

// launch_busy(x, y, stream) stands for
//     busy<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, iters);
__device__ void launch_busy(const float *x, float *y, cudaStream_t stream = 0)
{ cudojo_op(20, cudojo_addr(x), cudojo_addr(y), stream); }

// count_while_busy(stop) stands for asyncAPI's loop: the CPU does its own
// work (here: counts) until the GPU has reached the event stop.
//     unsigned long counter = 0;
//     while (cudaEventQuery(stop) == cudaErrorNotReady) counter++;
__device__ void count_while_busy(cudaEvent_t stop) { cudojo_op(13, stop); }

__device__ void host_main()
{
    // TODO: host memory the GPU can copy asynchronously
    float *h_x = (float *)malloc(BYTES);   // cudojo fills h_x with the input
    float *h_y = (float *)malloc(BYTES);
    float *d_x, *d_y;
    cudaMalloc(&d_x, BYTES);
    cudaMalloc(&d_y, BYTES);
    cudaEvent_t stop;
    cudaEventCreate(&stop);

    // TODO: queue these without waiting
    cudaMemcpy(d_x, h_x, BYTES, cudaMemcpyHostToDevice);
    launch_busy(d_x, d_y);
    cudaMemcpy(h_y, d_y, BYTES, cudaMemcpyDeviceToHost);
    cudaEventRecord(stop);

    count_while_busy(stop);                // the CPU's own work
}

// cudojo calls this once to record host_main (leave it as it is).
extern "C" __global__ void host_program(long long *ops)
{
    cudojo_ops = ops;
    cudojo_n = 0;
    cudojo_ids = 0;
    host_main();
}
