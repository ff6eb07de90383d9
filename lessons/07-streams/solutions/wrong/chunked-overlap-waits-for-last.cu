// WRONG (a typical mistake): waits only for the last stream, assuming it finishes last.
// Streams are independent: the others may still be copying when the host reads h_out.
//
// chunked-overlap.cu: overlap copies with computation, chunk by chunk.
//
// One big copy in, one kernel, one copy out: the GPU's copy engines and
// its SMs take turns, each idle while the other works. Cut the data into
// CHUNKS chunks and give each chunk a stream of its own:
//
//   stream 0:  [in 0][busy 0][out 0]
//   stream 1:        [in 1][busy 1][out 1]
//   stream 2:              [in 2][busy 2][out 2]
//   stream 3:                    [in 3][busy 3][out 3]
//
// Work in one stream runs in order; work in different streams may overlap.
// So while chunk c is copied in, chunk c-1 is computed and chunk c-2 is
// copied out.
//
// host_main() below does everything on the default stream and waits for
// every copy. TODO: create CHUNKS streams; queue chunk c's copy in, kernel
// and copy out on stream c with cudaMemcpyAsync and launch_busy's stream
// argument; wait for the device at the end. (The host buffers are pinned
// already: see pinned-memory.)

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

// The input is CHUNKS chunks of CHUNK floats each. CHUNK is set by cudojo:
// small on the emulator, 2^20 on a GPU.
#ifndef CHUNK
#define CHUNK 32768
#endif
#define CHUNKS 4
#define CHUNK_BYTES (CHUNK * sizeof(float))

// launch_busy(x, y, stream) stands for
//     busy<<<(CHUNK + 255) / 256, 256, 0, stream>>>(x, y, CHUNK, iters);
__device__ void launch_busy(const float *x, float *y, cudaStream_t stream = 0)
{ cudojo_op(20, cudojo_addr(x), cudojo_addr(y), stream); }

__device__ void host_main()
{
    float *h_in[CHUNKS], *h_out[CHUNKS], *d_in[CHUNKS], *d_out[CHUNKS];
    for (int c = 0; c < CHUNKS; c++) {
        cudaMallocHost(&h_in[c], CHUNK_BYTES);     // pinned; cudojo fills it with chunk c
        cudaMallocHost(&h_out[c], CHUNK_BYTES);
        cudaMalloc(&d_in[c], CHUNK_BYTES);
        cudaMalloc(&d_out[c], CHUNK_BYTES);
    }
    cudaStream_t stream[CHUNKS];
    for (int c = 0; c < CHUNKS; c++)
        cudaStreamCreate(&stream[c]);

    for (int c = 0; c < CHUNKS; c++) {
        cudaMemcpyAsync(d_in[c], h_in[c], CHUNK_BYTES, cudaMemcpyHostToDevice, stream[c]);
        launch_busy(d_in[c], d_out[c], stream[c]);
        cudaMemcpyAsync(h_out[c], d_out[c], CHUNK_BYTES, cudaMemcpyDeviceToHost, stream[c]);
    }
    cudaStreamSynchronize(stream[CHUNKS - 1]);   // the last one queued: surely the last to finish?
}

// cudojo calls this once to record host_main (leave it as it is).
extern "C" __global__ void host_program(long long *ops)
{
    cudojo_ops = ops;
    cudojo_n = 0;
    cudojo_ids = 0;
    host_main();
}
