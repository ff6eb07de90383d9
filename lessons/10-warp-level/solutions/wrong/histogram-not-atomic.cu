// histogram.cu (typical mistake): hist[v]++ in both kernels. The increment is
// a load, an add and a store; threads that read the same bin at the same time
// all store the same old + 1, and most increments are lost.

#define BINS 256

extern "C" __global__ void histogram_global(const unsigned char *data, int n, unsigned int *hist)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        hist[data[i]]++;
}

extern "C" __global__ void histogram_shared(const unsigned char *data, int n, unsigned int *hist)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        local[data[i]]++;
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        atomicAdd(&hist[b], local[b]);
}
