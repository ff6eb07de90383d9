// past-the-end.cu (solution): the guard comes before every access, and it is
// i < n: valid indices are 0 .. n-1, so a thread with i >= n does nothing.

extern "C" __global__ void leaky_relu(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v > 0.0f ? v : 0.1f * v;
    }
}
