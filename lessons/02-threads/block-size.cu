// block-size.cu: update y in place, y[i] = a * y[i] + b, for all n elements,
// with a grid-stride loop. The exercise launches this kernel with blocks of
// 32, 64, 96, 128, 256, 512, 1000 and 1024 threads and a grid sized for the
// device, not for n, so it must work for ANY block size and grid. (On a GPU
// it also times each block size: compare them in the log.)

extern "C" __global__ void affine(float *y, float a, float b, int n)
{
    // TODO: 256 is only right when the launch uses blocks of 256 threads.
    //       Use the block size and grid size of the launch instead.
    int start = blockIdx.x * 256 + threadIdx.x;
    int stride = 256 * gridDim.x;

    for (int i = start; i < n; i += stride)
        y[i] = a * y[i] + b;
}
