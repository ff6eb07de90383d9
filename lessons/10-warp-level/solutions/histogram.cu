// histogram.cu (solution): global atomics, then a privatised histogram per
// block in shared memory that is merged into hist[] with one atomic per bin.

#define BINS 256

extern "C" __global__ void histogram_global(const unsigned char *data, int n, unsigned int *hist)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&hist[data[i]], 1u);
}

extern "C" __global__ void histogram_shared(const unsigned char *data, int n, unsigned int *hist)
{
    __shared__ unsigned int local[BINS];

    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();                       // every bin is zero before anyone counts

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);    // shared-memory atomic: on the SM, cheap
    __syncthreads();                       // every count is in before the merge

    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned int c = local[b];
        if (c)
            atomicAdd(&hist[b], c);        // one global atomic per bin and block
    }
}
