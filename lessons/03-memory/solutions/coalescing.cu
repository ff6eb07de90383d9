// coalescing.cu (solution): the block owns 256 * 8 consecutive elements and
// walks over them in 8 steps of 256; at each step thread t takes element
// t of the step, so a warp reads and writes 32 consecutive floats (4 sectors).

#define PER_THREAD 8

extern "C" __global__ void scale(const float *x, float *y, float s, int n)
{
    int first = blockIdx.x * blockDim.x * PER_THREAD + threadIdx.x;
    for (int k = 0; k < PER_THREAD; k++) {
        int i = first + k * blockDim.x;
        if (i < n)
            y[i] = s * x[i];
    }
}
