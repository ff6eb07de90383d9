// stream-events.cu: an event belongs to a stream.
//
// host_main() runs two independent kernels, busy on d_x[0] and on d_x[1],
// each on a stream of its own, so that they run at the same time; and it
// times each one with a pair of events. But cudaEventRecord(e) without a
// stream records e on the DEFAULT stream (stream 0), which is not a neutral
// place: the legacy default stream waits for all work queued on the other
// (blocking) streams, and all work queued on them afterwards waits for it.
// Those events put a barrier between the two kernels, so they no longer
// overlap.
//
// TODO: time each kernel with events on the kernel's own stream, so that
// the kernels overlap on the timeline and each measurement (within 10%)
// is its kernel's duration. (No warm-up here, to keep the timeline short:
// see time-kernel.)

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

__device__ void host_main()
{
    float *h_x[2], *h_y[2], *d_x[2], *d_y[2];
    for (int k = 0; k < 2; k++) {
        cudaMallocHost(&h_x[k], BYTES);            // cudojo fills h_x[k]
        cudaMallocHost(&h_y[k], BYTES);
        cudaMalloc(&d_x[k], BYTES);
        cudaMalloc(&d_y[k], BYTES);
        cudaMemcpy(d_x[k], h_x[k], BYTES, cudaMemcpyHostToDevice);
    }
    cudaStream_t s[2];
    cudaEvent_t start[2], stop[2];
    for (int k = 0; k < 2; k++) {
        cudaStreamCreate(&s[k]);
        cudaEventCreate(&start[k]);
        cudaEventCreate(&stop[k]);
    }

    for (int k = 0; k < 2; k++) {
        cudaEventRecord(start[k], s[k]);           // a marker in the kernel's stream
        launch_busy(d_x[k], d_y[k], s[k]);
        cudaEventRecord(stop[k], s[k]);
    }

    cudaDeviceSynchronize();
    float ms[2];
    for (int k = 0; k < 2; k++)
        cudaEventElapsedTime(&ms[k], start[k], stop[k]);
    for (int k = 0; k < 2; k++)
        cudaMemcpy(h_y[k], d_y[k], BYTES, cudaMemcpyDeviceToHost);
}

// cudojo calls this once to record host_main (leave it as it is).
extern "C" __global__ void host_program(long long *ops)
{
    cudojo_ops = ops;
    cudojo_n = 0;
    cudojo_ids = 0;
    host_main();
}
