// past-the-end.cu: a "leaky ReLU", y[i] = x[i] if x[i] > 0, else 0.1f * x[i].
// The exercise launches this one kernel for many sizes: n = 1, 2, 3, 31, 33,
// 1000 and 65539, always with blocks of 64 threads, so the last block is
// almost never full. Make the kernel correct for every size: each element
// written exactly once, and no thread reading or writing past the end.

extern "C" __global__ void leaky_relu(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: this reads x[i] before asking whether element i exists.
    float v = x[i];

    // TODO: the comparison below is off by one (element n does not exist).
    if (i <= n)
        y[i] = v > 0.0f ? v : 0.1f * v;
}
