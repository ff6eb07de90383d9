// past-the-end.cu (typical mistake): no guard at all. Every thread of the
// last block works, so the threads with i >= n read x and write y past their
// ends. With n = 1 and blocks of 64 that is 63 threads out of 64.

extern "C" __global__ void leaky_relu(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    y[i] = v > 0.0f ? v : 0.1f * v;
}
