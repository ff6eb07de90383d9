// histogram.cu (typical mistake): the private histogram is never set to zero.
// Shared memory is not initialised: on a GPU it holds whatever the previous
// block left there, so the counts start from garbage.

#define BINS 256

extern "C" __global__ void histogram_global(const unsigned char *data, int n, unsigned int *hist)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&hist[data[i]], 1u);
}

extern "C" __global__ void histogram_shared(const unsigned char *data, int n, unsigned int *hist)
{
    __shared__ unsigned int local[BINS];
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b])
            atomicAdd(&hist[b], local[b]);
}
