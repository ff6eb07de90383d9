// which-kernel-faulted.cu: name the kernel that faulted.
//
//   nvcc -O2 -lineinfo which-kernel-faulted.cu -o which-kernel-faulted && ./which-kernel-faulted 2
//
// Three kernels run one after another on x: scale, offset, square. A bug
// hands one of them a NULL pointer (which one is the program's argument,
// 1, 2 or 3: cudojo runs it with more than one). That kernel faults: its
// threads store to an address no allocation holds.
//
// A launch returns before the kernel runs, so a launch cannot report a
// fault: it reports only what it can check at once (the configuration).
// A fault is reported later, by the next call that waits for the GPU — and
// by then two more kernels may have been queued. This program waits once,
// at the end: it knows something failed, not what.
//
// ran(name), after each launch, reads the launch's own error, then waits
// for the kernel (a debugging build), so a fault is reported right after
// the kernel that made it.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}

#define N 4096

__global__ void scale(float *x, int n)  { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.0f; }
__global__ void offset(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
__global__ void square(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= x[i]; }

// After a launch: true when the kernel `name` ran; otherwise prints the
// "fault in kernel" line and returns false.
static bool ran(const char *name)
{
    cudaError_t launch = cudaGetLastError();        // the configuration, checked at the launch
    cudaError_t sync = cudaSuccess;                 // no wait: faster
    if (launch == cudaSuccess && sync == cudaSuccess) return true;
    printf("fault in kernel: %s (launch: %s, synchronize: %s)\n", name, cudaGetErrorName(launch),
           cudaGetErrorName(sync));
    fprintf(stderr, "%s: %s\n", name, cudaGetErrorString(sync != cudaSuccess ? sync : launch));
    return false;
}

int main(int argc, char **argv)
{
    int faulty = argc > 1 ? atoi(argv[1]) : 2;
    float *d_x;
    cudaCheck(cudaMalloc(&d_x, N * sizeof(float)));
    cudaCheck(cudaMemset(d_x, 0, N * sizeof(float)));
    float *stage[4] = {NULL, d_x, d_x, d_x};
    stage[faulty] = NULL;                   // the bug
    int block = 256, grid = N / block;

    scale<<<grid, block>>>(stage[1], N);
    if (!ran("scale")) return EXIT_FAILURE;
    offset<<<grid, block>>>(stage[2], N);
    if (!ran("offset")) return EXIT_FAILURE;
    square<<<grid, block>>>(stage[3], N);
    if (!ran("square")) return EXIT_FAILURE;

    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        printf("fault in kernel: unknown (launch: unknown, synchronize: %s)\n", cudaGetErrorName(err));
        return EXIT_FAILURE;
    }
    printf("no fault\n");
    cudaCheck(cudaFree(d_x));
    return EXIT_SUCCESS;
}
